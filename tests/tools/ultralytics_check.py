#!/usr/bin/env python3
"""Test-only: does Ultralytics take a checkpoint Stave wrote (export-weights --format ultralytics)?

usage: ultralytics_check.py MODEL.pt DATA.yaml [IMGSZ]

Loads MODEL.pt with YOLO() as a user would, then validates it on DATA.yaml (CPU, Ultralytics'
val defaults at IMGSZ, default 64). Prints one JSON object: the architecture file its yaml names,
the module classes of its layers, nc, the parameter count and the val metrics. Nothing goes to
the network: settings in a temporary YOLO_CONFIG_DIR with sync off, offline, plots off.
"""
import json
import os
import shutil
import sys
import tempfile

from ultralytics_offline import offline


def main() -> int:
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    model_path, data = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    imgsz = int(sys.argv[3]) if len(sys.argv) == 4 else 64
    work = tempfile.mkdtemp(prefix="stave-ultralytics-check-")
    try:
        offline(work)
        import torch
        from ultralytics import YOLO
        torch.set_num_threads(2)
        model = YOLO(model_path)
        net = model.model
        r = model.val(data=data, imgsz=imgsz, batch=16, device="cpu", workers=0, plots=False,
                      verbose=False, project=work, name="val", exist_ok=True)
        print(json.dumps({
            "yaml_file": os.path.basename(str(net.yaml.get("yaml_file", ""))),
            "modules": sorted({type(m).__name__ for m in net.model}),
            "nc": int(net.model[-1].nc),
            "parameters": sum(p.numel() for p in net.parameters()),
            "mAP50": float(r.box.map50),
            "mAP50-95": float(r.box.map),
        }))
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
