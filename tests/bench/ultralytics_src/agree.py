"""Stave's weights in Ultralytics: `stave-train export-weights --format ultralytics` writes a
checkpoint; Ultralytics' YOLO() loads it unchanged, predicts on the same images as
`stave-train predict` with the source checkpoint, and both validate the same split. Prints one
JSON line (PAIRED_JSON ...) with how well the predictions agree and both tools' mAP; exits 1
when Ultralytics cannot load the file or the predictions disagree.

The images are square crops of the validation images saved as PNG, so both tools feed the
network the same pixels (Stave letterboxes to a square, Ultralytics' predictor pads only to a
multiple of the stride; on a square image neither pads)."""
import argparse
import csv
import glob
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import demo_dataset  # noqa: E402


def iou(a, b):
    iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = iw * ih
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def match(mine, theirs, conf, slack):
    """Each of `mine` with conf >= conf + slack: the best box of the same class among `theirs`
    with conf >= conf (a box near the threshold may fall on either side of it in the other
    tool). Returns (matched pairs, unmatched boxes)."""
    pairs, missing = [], []
    used = set()
    for m in sorted(mine, key=lambda b: -b["conf"]):
        if m["conf"] < conf + slack:
            continue
        best, best_iou = None, 0.0
        for k, t in enumerate(theirs):
            if k in used or t["cls"] != m["cls"] or t["conf"] < conf:
                continue
            v = iou(m["box"], t["box"])
            if v > best_iou:
                best, best_iou = k, v
        if best is None or best_iou < 0.5:
            missing.append(m)
            continue
        used.add(best)
        pairs.append((m, theirs[best], best_iou))
    return pairs, missing


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stave", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--weights", default="", help="a Stave checkpoint (default: train one)")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--imgsz", type=int, default=256)
    ap.add_argument("--conf", type=float, default=0.05)
    ap.add_argument("--images", type=int, default=16, help="validation images to predict on")
    a = ap.parse_args()
    work = os.path.abspath(a.work)
    os.makedirs(work, exist_ok=True)
    stave_yaml, ul_yaml = demo_dataset(a.stave, work, "agree-data", 96, max(a.images, 16))
    data_dir = os.path.dirname(stave_yaml)

    weights = a.weights
    if not weights:
        run = os.path.join(work, "agree-train")
        subprocess.run(["rm", "-rf", run])
        subprocess.run([a.stave, "train", "data=" + stave_yaml, "model=yolov8n",
                        "imgsz=%d" % a.imgsz, "batch=16", "epochs=%d" % a.epochs, "workers=0",
                        "close_mosaic=0", "seed=0", "--run-dir", run], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        weights = os.path.join(run, "weights", "last.pt")

    exported = os.path.join(work, "agree-ultralytics.pt")
    t0 = time.time()
    subprocess.run([a.stave, "export-weights", weights, "--format", "ultralytics", "--out",
                    exported], check=True, stdout=subprocess.DEVNULL)
    export_s = time.time() - t0

    import cv2  # noqa: E402 (the benchmark's environment)
    crops = os.path.join(work, "agree-images")
    subprocess.run(["rm", "-rf", crops])
    os.makedirs(crops)
    sources = sorted(glob.glob(os.path.join(data_dir, "images", "val", "*")))[: a.images]
    for p in sources:
        im = cv2.imread(p)
        h, w = im.shape[:2]
        s = min(h, w)
        y, x = (h - s) // 2, (w - s) // 2
        cv2.imwrite(os.path.join(crops, os.path.splitext(os.path.basename(p))[0] + ".png"),
                    im[y:y + s, x:x + s])

    out = os.path.join(work, "agree-stave-predict")
    subprocess.run(["rm", "-rf", out])
    subprocess.run([a.stave, "predict", "--weights", weights, "--source", crops, "--out", out,
                    "--conf", str(a.conf), "--iou", "0.7", "--imgsz", str(a.imgsz), "--device",
                    "cpu", "--json"], check=True, stdout=subprocess.DEVNULL)
    stave = {}
    with open(os.path.join(out, "predictions.csv")) as f:
        for r in csv.DictReader(f):
            stave.setdefault(r["image"], []).append(
                {"cls": int(r["cls"]), "conf": float(r["conf"]),
                 "box": [float(r[k]) for k in ("x1", "y1", "x2", "y2")]})

    from ultralytics import YOLO  # noqa: E402
    try:
        model = YOLO(exported)
    except Exception as e:  # the point of the test: report, do not trace back
        print("PAIRED_JSON " + json.dumps({"loaded": False, "error": str(e)}))
        sys.exit(1)
    ul = {}
    files = sorted(glob.glob(os.path.join(crops, "*.png")))
    for res in model.predict(source=files, imgsz=a.imgsz, conf=a.conf, iou=0.7, device="cpu",
                             verbose=False, stream=True):
        name = os.path.basename(res.path)
        b = res.boxes
        ul[name] = [{"cls": int(c), "conf": float(s), "box": [float(v) for v in xyxy]}
                    for c, s, xyxy in zip(b.cls.tolist(), b.conf.tolist(), b.xyxy.tolist())]

    slack = 0.02
    pairs, stave_only, ul_only = [], [], []
    for name in sorted(set(stave) | set(ul)):
        p, missing = match(stave.get(name, []), ul.get(name, []), a.conf, slack)
        pairs += p
        stave_only += missing
        _, missing = match(ul.get(name, []), stave.get(name, []), a.conf, slack)
        ul_only += missing
    compared = len(pairs) + len(stave_only)
    result = {
        "loaded": True, "weights": weights, "exported": exported, "export_s": export_s,
        "images": len(files), "conf": a.conf, "imgsz": a.imgsz,
        "stave_boxes": sum(len(v) for v in stave.values()),
        "ultralytics_boxes": sum(len(v) for v in ul.values()),
        "matched": len(pairs), "stave_only": len(stave_only), "ultralytics_only": len(ul_only),
        "agreement": len(pairs) / compared if compared else None,
        "min_iou": min((v for _, _, v in pairs), default=None),
        "mean_iou": sum(v for _, _, v in pairs) / len(pairs) if pairs else None,
        "max_conf_diff": max((abs(m["conf"] - t["conf"]) for m, t, _ in pairs), default=None),
        "max_coord_diff_px": max((max(abs(x - y) for x, y in zip(m["box"], t["box"]))
                                  for m, t, _ in pairs), default=None),
    }

    # Both tools validate the same weights on the same split, each by its own rule.
    r = subprocess.run([a.stave, "val", "--weights", weights, "--data", stave_yaml, "--imgsz",
                        str(a.imgsz), "--json"], capture_output=True, text=True, check=True)
    v = json.loads(r.stdout)
    result["stave_val"] = {k: v.get(k) for k in ("map50", "map5095", "precision", "recall")}
    m = model.val(data=ul_yaml, imgsz=a.imgsz, batch=16, device="cpu", workers=0, plots=False,
                  verbose=False)
    result["ultralytics_val"] = {"map50": float(m.box.map50), "map5095": float(m.box.map),
                                 "precision": float(m.box.mp), "recall": float(m.box.mr)}
    # Ultralytics' exporters start from the file (TorchScript needs no further packages).
    try:
        ts = YOLO(exported).export(format="torchscript", imgsz=a.imgsz, device="cpu")
        result["torchscript_export"] = bool(ts) and os.path.exists(str(ts))
    except Exception as e:  # reported, not fatal: the load and the predictions are the test
        result["torchscript_export"] = False
        result["torchscript_error"] = str(e)
    print("PAIRED_JSON " + json.dumps(result))
    # At least 95% of the boxes each tool finds are found by the other.
    ok = (compared > 0 and result["agreement"] >= 0.95
          and len(ul_only) <= 0.05 * (len(pairs) + len(ul_only)) and result["torchscript_export"])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
