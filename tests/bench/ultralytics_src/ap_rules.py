"""Three AP rules on ONE set of predictions (tests/bench/ultralytics aprule): a Stave checkpoint is
exported for Ultralytics, Ultralytics' validator predicts the split (conf 0.001, max_det 300)
and scores it by its own rule, writing the predictions as COCO JSON; the same predictions are
then scored by pycocotools' COCOeval (the reference both rules imitate) and by Stave's rule
(`stave-train eval-preds`). Stave's own validator runs on the checkpoint too, for its numbers
with its own predictions. Prints one JSON line (PAIRED_JSON ...).

COCOeval runs with maxDets (1, 10, 300), so that no rule drops predictions the others keep, and
over all areas; ground truth comes from the YOLO labels and each image's size."""
import argparse
import csv
import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import ultralytics_yaml  # noqa: E402


def image_size(path):
    import cv2  # noqa: E402  (Ultralytics' environment has OpenCV)
    im = cv2.imread(path)
    if im is None:
        sys.exit("aprule: cannot read " + path)
    return im.shape[1], im.shape[0]


def coco_ground_truth(images_dir, labels_dir, nc):
    """COCO ground truth from a YOLO split: image ids are the file stems (as Ultralytics writes
    them: an int when the stem is a number), categories 1..nc."""
    images, annotations = [], []
    for path in sorted(glob.glob(os.path.join(images_dir, "*"))):
        stem = os.path.splitext(os.path.basename(path))[0]
        image_id = int(stem) if stem.isnumeric() else stem
        w, h = image_size(path)
        images.append({"id": image_id, "file_name": os.path.basename(path), "width": w,
                       "height": h})
        label = os.path.join(labels_dir, stem + ".txt")
        if not os.path.exists(label):
            continue
        with open(label) as f:
            for line in f:
                parts = line.split()
                if len(parts) != 5:
                    continue
                c, cx, cy, bw, bh = int(parts[0]), *map(float, parts[1:])
                box = [(cx - bw / 2) * w, (cy - bh / 2) * h, bw * w, bh * h]
                annotations.append({"id": len(annotations) + 1, "image_id": image_id,
                                    "category_id": c + 1, "bbox": box, "area": box[2] * box[3],
                                    "iscrowd": 0})
    return {"images": images, "annotations": annotations,
            "categories": [{"id": c + 1, "name": str(c)} for c in range(nc)]}


def coco_score(gt_path, dets):
    """pycocotools' COCOeval bbox mAP50 and mAP50-95 of `dets` (COCO result dicts), maxDets 300,
    all areas."""
    from pycocotools.coco import COCO  # noqa: E402
    from pycocotools.cocoeval import COCOeval  # noqa: E402
    if not dets:
        return {"map50": 0.0, "map5095": 0.0}
    coco_gt = COCO(gt_path)
    ev = COCOeval(coco_gt, coco_gt.loadRes(dets), "bbox")
    ev.params.maxDets = [1, 10, 300]
    ev.evaluate()
    ev.accumulate()
    # The precision table (IoU thresholds x recall x class x area x maxDets; -1 where a class
    # has no ground truth), area "all", the last maxDets: summarize() would ask for maxDets=100.
    p = ev.eval["precision"][:, :, :, 0, -1]

    def mean_valid(a):
        v = a[a > -1]
        return float(v.mean()) if v.size else 0.0
    return {"map50": mean_valid(p[0]), "map5095": mean_valid(p)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stave", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--weights", required=True, help="a Stave checkpoint")
    ap.add_argument("--data", required=True, help="its dataset's data.yaml")
    ap.add_argument("--imgsz", type=int, default=256)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    work = os.path.abspath(a.work)
    os.makedirs(work, exist_ok=True)

    exported = os.path.join(work, "aprule-weights.pt")
    subprocess.run([a.stave, "export-weights", a.weights, "--format", "ultralytics", "--out",
                    exported], check=True, stdout=subprocess.DEVNULL)
    ul_yaml = os.path.join(work, "aprule-data.yaml")
    ultralytics_yaml(a.data, ul_yaml)

    from ultralytics import YOLO  # noqa: E402
    import ultralytics.utils.torch_utils as torch_utils  # noqa: E402
    torch_utils.NUM_THREADS = a.threads
    m = YOLO(exported).val(data=ul_yaml, imgsz=a.imgsz, batch=a.batch, device="cpu", workers=0,
                           plots=False, verbose=False, save_json=True, conf=0.001, max_det=300,
                           rect=True, project=work, name="aprule-val", exist_ok=True)
    preds_json = os.path.join(str(m.save_dir), "predictions.json")
    with open(preds_json) as f:
        preds = json.load(f)
    names = YOLO(exported).names
    nc = len(names)

    root = os.path.dirname(os.path.abspath(a.data))
    images_dir, labels_dir = os.path.join(root, "images", "val"), os.path.join(root, "labels", "val")
    gt = coco_ground_truth(images_dir, labels_dir, nc)
    gt_path = os.path.join(work, "aprule-ground-truth.json")
    with open(gt_path, "w") as f:
        json.dump(gt, f)

    pycoco = coco_score(gt_path, preds)
    # The same predictions through Stave's rule: image,cls,conf,x1,y1,x2,y2 in pixels.
    csv_path = os.path.join(work, "aprule-predictions.csv")
    with open(csv_path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["image", "cls", "conf", "x1", "y1", "x2", "y2"])
        for p in preds:
            x, y, bw, bh = p["bbox"]
            w.writerow([p.get("file_name", p["image_id"]), p["category_id"] - 1, p["score"], x,
                        y, x + bw, y + bh])
    out = subprocess.run([a.stave, "eval-preds", "--data", a.data, "--preds", csv_path,
                          "--max-det", "300", "--json"], check=True, capture_output=True,
                         text=True).stdout
    stave_rule = json.loads(out)
    own_csv = os.path.join(work, "aprule-stave-val-predictions.csv")
    own = json.loads(subprocess.run([a.stave, "val", "--weights", a.weights, "--data", a.data,
                                     "--imgsz", str(a.imgsz), "--batch", str(a.batch),
                                     "--save-preds", own_csv, "--json"],
                                    check=True, capture_output=True, text=True).stdout)
    ids = {im["file_name"]: im["id"] for im in gt["images"]}
    own_preds = []
    with open(own_csv) as f:
        for r in csv.DictReader(f):
            x1, y1, x2, y2 = (float(r[k]) for k in ("x1", "y1", "x2", "y2"))
            own_preds.append({"image_id": ids[os.path.basename(r["image"])],
                              "category_id": int(r["cls"]) + 1, "score": float(r["conf"]),
                              "bbox": [x1, y1, x2 - x1, y2 - y1]})

    result = {"weights": a.weights, "predictions": len(preds),
              "ground_truth_boxes": len(gt["annotations"]), "images": len(gt["images"]),
              "same_predictions": {
                  "ultralytics_rule": {"map50": float(m.box.map50), "map5095": float(m.box.map)},
                  "pycocotools": pycoco,
                  "stave_rule": {"map50": stave_rule["map50"], "map5095": stave_rule["map50_95"],
                                 "predictions_read": stave_rule.get("predictions")}},
              "stave_val_own_predictions": {
                  "stave_validator": {"map50": own["map50"], "map5095": own["map5095"]},
                  "pycocotools": coco_score(gt_path, own_preds), "predictions": len(own_preds)}}
    print("PAIRED_JSON " + json.dumps(result))


if __name__ == "__main__":
    main()
