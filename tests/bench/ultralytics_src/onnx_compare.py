"""Stave's ONNX export against Ultralytics' on the same weights: `stave-train export-weights
--format onnx` (native, no Python) and Ultralytics' exporter on the file `export-weights
--format ultralytics` writes from the same checkpoint. Both models run in ONNX Runtime on the
same letterboxed images; their output0 tensors are compared (boxes in units of the input size,
class scores as they are), with each side's export time (median of --repeats) and file size.
Prints one JSON line (PAIRED_JSON ...); exits 1 when the layouts or the outputs differ by more
than --tolerance."""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import onnxruntime as ort

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import demo_dataset  # noqa: E402


def letterbox(path, size):
    """As `stave-train predict` feeds an image: aspect kept, bilinear, centred on grey 114, RGB
    0..1, (3, size, size)."""
    import cv2
    img = cv2.imread(path)
    r = min(size / img.shape[1], size / img.shape[0])
    nw, nh = max(1, round(img.shape[1] * r)), max(1, round(img.shape[0] * r))
    canvas = np.full((size, size, 3), 114, np.uint8)
    px, py = (size - nw) // 2, (size - nh) // 2
    canvas[py:py + nh, px:px + nw] = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_LINEAR)
    return canvas[:, :, ::-1].transpose(2, 0, 1).astype(np.float32) / 255.0


def run(model, x):
    s = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    inp = s.get_inputs()[0]
    return s.run(None, {inp.name: x})[0], inp.shape, s.get_outputs()[0].shape


def timed(fn, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stave", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--weights", default="", help="a Stave checkpoint (default: train one)")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--imgsz", type=int, default=320, help="the exported models' input size")
    ap.add_argument("--images", type=int, default=8)
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--tolerance", type=float, default=1e-4)
    a = ap.parse_args()
    work = os.path.join(a.work, "onnx")
    os.makedirs(work, exist_ok=True)
    data, _ = demo_dataset(a.stave, a.work, "demo-onnx", 96, 32)
    weights = a.weights
    if not weights:
        run_dir = os.path.join(work, "run")
        weights = os.path.join(run_dir, "weights", "last.pt")
        if not os.path.exists(weights):
            cfg = os.path.join(work, "train.yaml")
            # The end-to-end test's recipe: confident boxes after 10 short epochs at 128 px, so
            # the scores compared span 0..1 (an untrained model's are all near 0).
            with open(cfg, "w") as f:
                f.write(f'data: "{data}"\nmodel: yolov8n\nimgsz: 128\nepochs: {a.epochs}\n'
                        "batch: 8\nnbs: 8\ndevices: cpu\nworkers: 2\nseed: 1\nlr0: 0.01\n"
                        "optimizer: SGD\nwarmup_epochs: 0\nclose_mosaic: 2\n")
            subprocess.run([a.stave, "train", cfg, "--run-dir", run_dir], check=True,
                           stdout=subprocess.DEVNULL)

    stave_onnx = os.path.join(work, "stave.onnx")
    stave_cmd = [a.stave, "export-weights", weights, "--format", "onnx", "--imgsz",
                 str(a.imgsz), "--batch", str(a.images), "--opset", str(a.opset), "--out",
                 stave_onnx, "--force"]
    stave_s = timed(lambda: subprocess.run(stave_cmd, check=True, stdout=subprocess.DEVNULL),
                    a.repeats)

    ul_pt = os.path.join(work, "ultralytics.pt")
    subprocess.run([a.stave, "export-weights", weights, "--format", "ultralytics", "--out", ul_pt,
                    "--force"], check=True, stdout=subprocess.DEVNULL)
    ul_onnx = os.path.join(work, "ultralytics.onnx")
    # Ultralytics in a process of its own per export, as a user runs `yolo export`: import,
    # load, trace, export (simplify off: onnxslim is another package and changes no numbers).
    ul_code = ("from ultralytics import YOLO; YOLO(%r).export(format='onnx', imgsz=%d, batch=%d, "
               "opset=%d, simplify=False, dynamic=False, device='cpu')"
               % (ul_pt, a.imgsz, a.images, a.opset))
    ul_s = timed(lambda: subprocess.run([sys.executable, "-c", ul_code], check=True,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
                 a.repeats)

    val = sorted(glob.glob(os.path.join(os.path.dirname(data), "images", "val", "*")))
    x = np.stack([letterbox(p, a.imgsz) for p in val[:a.images]])
    ys, in_s, out_s = run(stave_onnx, x)
    yu, in_u, out_u = run(ul_onnx, x)
    box = float(np.abs(ys[:, :4] - yu[:, :4]).max()) / a.imgsz if ys.shape == yu.shape else None
    score = float(np.abs(ys[:, 4:] - yu[:, 4:]).max()) if ys.shape == yu.shape else None
    result = {
        "weights": weights,
        "imgsz": a.imgsz,
        "images": a.images,
        "opset": a.opset,
        "stave": {"export_s": round(stave_s, 3), "bytes": os.path.getsize(stave_onnx),
                  "input": in_s, "output": out_s},
        "ultralytics": {"export_s": round(ul_s, 3), "bytes": os.path.getsize(ul_onnx),
                        "input": in_u, "output": out_u},
        "same_layout": list(ys.shape) == list(yu.shape),
        "box_max_diff_of_imgsz": box,
        "score_max_diff": score,
        "best_score": float(ys[:, 4:].max()),
        "export_time_ratio_ultralytics_over_stave": round(ul_s / stave_s, 2),
        "size_ratio_stave_over_ultralytics": round(os.path.getsize(stave_onnx) /
                                                   os.path.getsize(ul_onnx), 4),
    }
    print("PAIRED_JSON " + json.dumps(result))
    ok = result["same_layout"] and box <= a.tolerance and score <= a.tolerance
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
