"""Test-only: Ultralytics with nothing going to the network and nothing written outside `work`.

Shared by ultralytics_fixtures.py and ultralytics_check.py. Call offline(work) before Ultralytics
is imported: its settings go to a temporary YOLO_CONFIG_DIR with sync off, YOLO_OFFLINE is set,
plots use the Agg backend, and a copy of matplotlib's DejaVuSans stands in for the Arial fonts
Ultralytics would otherwise download for its dataset check. The working directory becomes `work`
(so that nothing Ultralytics writes, nor its checkpoints' `git` fields, refer to Stave's tree).
"""
import os
import shutil


def offline(work):
    cfg = os.path.join(work, "config")
    os.environ.update(YOLO_OFFLINE="1", YOLO_CONFIG_DIR=cfg, MPLBACKEND="Agg",
                      YOLO_VERBOSE="False")
    import matplotlib
    os.makedirs(os.path.join(cfg, "Ultralytics"), exist_ok=True)
    font = os.path.join(matplotlib.get_data_path(), "fonts", "ttf", "DejaVuSans.ttf")
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        shutil.copyfile(font, os.path.join(cfg, "Ultralytics", name))
    os.chdir(work)
    from ultralytics.utils import SETTINGS
    SETTINGS.update(sync=False)
