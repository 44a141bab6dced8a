"""What the Ultralytics benchmarks share: one synthetic dataset made by `stave-train make-demo`
and a copy of its data.yaml for Ultralytics."""
import os
import subprocess


def demo_dataset(stave, work, name, train, val, source_imgsz=640, seed=0):
    """Makes WORK/NAME (640 px sources unless told otherwise) once; returns (Stave's data.yaml, Ultralytics' copy with
    an absolute `path:`, since Ultralytics resolves relative ones against its own datasets
    folder)."""
    data_dir = os.path.join(work, name)
    if not os.path.exists(os.path.join(data_dir, "data.yaml")):
        subprocess.run([stave, "make-demo", "--out", data_dir, "--train", str(train), "--val",
                        str(val), "--imgsz", str(source_imgsz), "--seed", str(seed)], check=True, stdout=subprocess.DEVNULL)
    stave_yaml = os.path.join(data_dir, "data.yaml")
    ul_yaml = os.path.join(work, name + "-ultralytics.yaml")
    ultralytics_yaml(stave_yaml, ul_yaml)
    return stave_yaml, ul_yaml


def ultralytics_yaml(stave_yaml, out):
    """Writes a copy of a data.yaml whose `path:` is the dataset's absolute folder (Ultralytics
    resolves a relative one against its own datasets folder)."""
    root = os.path.dirname(os.path.abspath(stave_yaml))
    with open(stave_yaml) as f:
        lines = [l for l in f.read().splitlines() if not l.startswith("path:")]
    with open(out, "w") as f:
        f.write("path: " + root + "\n" + "\n".join(lines) + "\n")
