"""Stave's label issues against cleanlab's, on the same predictions (tests/bench/label_issues).

A synthetic dataset (`stave-train make-demo`) and one model trained on its clean training split
(or --weights). For each planting seed, a copy of the validation split whose labels get errors
planted, each recorded: a box dropped (overlooked, --drop of the boxes), its class changed
(swapped, --swap), shifted or resized by 30-60% of its size so that it overlaps its object by
less than 0.6 IoU (badly located, --move), and a box of a random class added where no object is
(spurious, on --spurious of the images). The model predicts that copy once (`stave-train val
--save-preds`, every detection from confidence 0.001); both tools score the same predictions:
`stave-train label-issues --preds`, and cleanlab's object-detection scores
(`cleanlab.object_detection.rank`: compute_overlooked/swap/badloc_box_scores, image quality from
get_label_quality_scores, flagged images from filter.find_label_issues): at its defaults (a
prediction must reach 0.95 to claim an overlooked or swapped box, 0.5 to locate one), and, since
a small model's confidences seldom reach those, at each pair of --cleanlab-thresholds too; the
goal is judged against the best cleanlab does over all of them, kind by kind.

What is compared, per planted kind:
  recall@N   of the N planted errors of the kind, how many the tool's N highest-ranked boxes of
             that kind hit (for a label box: the box itself; for overlooked: a prediction
             overlapping the dropped box with IoU >= 0.5); ties broken at random in expectation.
  auroc      label-box kinds: every label box of the copy scored for the kind (0 where the tool
             did not flag it), planted boxes against the rest.
cleanlab has no spurious kind: its score there is the box's worse of swap and badloc scores (a
box no prediction supports is what its badloc score ranks low). Per image: AUROC and
precision of the top N images (N = images with an error planted), and precision and recall of
the images each tool flags by itself. Prints one JSON; docs/benchmarks.md records the numbers.
"""
import argparse
import csv
import json
import os
import random
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ultralytics_src"))
from common import demo_dataset  # noqa: E402

KINDS = ("overlooked", "swapped", "badly_located", "spurious")


def jpeg_size(path):
    """(width, height) from a JPEG's start-of-frame marker."""
    with open(path, "rb") as f:
        b = f.read()
    i = 2
    while i + 9 < len(b):
        marker, length = b[i + 1], (b[i + 2] << 8) | b[i + 3]
        if marker in (0xC0, 0xC1, 0xC2):
            return (b[i + 7] << 8) | b[i + 8], (b[i + 5] << 8) | b[i + 6]
        i += 2 + length
    sys.exit("label_issues: %s: no JPEG frame header" % path)


def iou(a, b):
    iw, ih = min(a[2], b[2]) - max(a[0], b[0]), min(a[3], b[3]) - max(a[1], b[1])
    if iw <= 0 or ih <= 0:
        return 0.0
    inter = iw * ih
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def read_labels(path, w, h):
    """YOLO label lines as (class, [x1, y1, x2, y2] in pixels)."""
    out = []
    if os.path.exists(path):
        for line in open(path):
            if line.strip():
                c, cx, cy, bw, bh = line.split()
                cx, cy, bw, bh = float(cx) * w, float(cy) * h, float(bw) * w, float(bh) * h
                out.append((int(c), [cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2]))
    return out


def plant(a, clean_root, out_root, seed, nc):
    """A copy of the validation split with errors planted; returns (images, sizes, the copy's
    labels per image, the planted errors)."""
    rng = random.Random(seed)
    shutil.rmtree(out_root, ignore_errors=True)
    os.makedirs(os.path.join(out_root, "labels", "val"))
    shutil.copytree(os.path.join(clean_root, "images", "val"), os.path.join(out_root, "images", "val"))
    with open(os.path.join(out_root, "data.yaml"), "w") as f:
        f.write("path: .\ntrain: %s\nval: images/val\nnc: %d\n" % (
            os.path.join(clean_root, "images", "train"), nc))
    images = sorted(os.listdir(os.path.join(out_root, "images", "val")))
    sizes, labels, planted = {}, {}, []
    for im in images:
        w, h = jpeg_size(os.path.join(out_root, "images", "val", im))
        sizes[im] = (w, h)
        stem = os.path.splitext(im)[0]
        boxes = read_labels(os.path.join(clean_root, "labels", "val", stem + ".txt"), w, h)
        out = []
        for c, b in boxes:
            x = rng.random()
            if x < a.drop:
                planted.append({"image": im, "kind": "overlooked", "box": b, "class": c})
                continue
            if x < a.drop + a.swap:
                c = (c + 1 + rng.randrange(nc - 1)) % nc
                planted.append({"image": im, "kind": "swapped", "box": b, "class": c})
            elif x < a.drop + a.swap + a.move:
                bw, bh = b[2] - b[0], b[3] - b[1]
                for _ in range(20):
                    f = 0.3 + 0.3 * rng.random()
                    if rng.random() < 0.6:  # shift along x or y
                        dx, dy = (rng.choice((-1, 1)) * f * bw, 0) if rng.random() < 0.5 else \
                                 (0, rng.choice((-1, 1)) * f * bh)
                        nb = [b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy]
                    else:  # grow or shrink about the centre
                        g = 1 + f if rng.random() < 0.5 else 1 - f
                        cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
                        nb = [cx - g * bw / 2, cy - g * bh / 2, cx + g * bw / 2, cy + g * bh / 2]
                    nb = [max(0, nb[0]), max(0, nb[1]), min(w, nb[2]), min(h, nb[3])]
                    if nb[2] - nb[0] > 2 and nb[3] - nb[1] > 2 and iou(nb, b) < 0.6:
                        planted.append({"image": im, "kind": "badly_located", "box": nb, "class": c})
                        b = nb
                        break
            out.append((c, b))
        if rng.random() < a.spurious:
            for _ in range(50):
                bw, bh = w * (0.1 + 0.2 * rng.random()), h * (0.1 + 0.2 * rng.random())
                x0, y0 = rng.random() * (w - bw), rng.random() * (h - bh)
                nb = [x0, y0, x0 + bw, y0 + bh]
                if all(iou(nb, ob) == 0 for _, ob in boxes):
                    c = rng.randrange(nc)
                    out.append((c, nb))
                    planted.append({"image": im, "kind": "spurious", "box": nb, "class": c})
                    break
        labels[im] = out
        with open(os.path.join(out_root, "labels", "val", stem + ".txt"), "w") as f:
            for c, b in out:
                f.write("%d %.6f %.6f %.6f %.6f\n" % (c, (b[0] + b[2]) / 2 / w, (b[1] + b[3]) / 2 / h,
                                                      (b[2] - b[0]) / w, (b[3] - b[1]) / h))
    return images, sizes, labels, planted


def read_preds(path, images):
    """Predictions CSV rows per image name: (class, conf, box)."""
    by = {im: [] for im in images}
    for r in csv.DictReader(open(path)):
        name = os.path.basename(r["image"])
        if name not in by:
            sys.exit("label_issues: %s names an image not in the split: %s" % (path, r["image"]))
        by[name].append((int(r["cls"]), float(r["conf"]),
                         [float(r[k]) for k in ("x1", "y1", "x2", "y2")]))
    return by


def auroc(pos, neg):
    """P(a positive scores above a negative), ties counting one half."""
    if not pos or not neg:
        return None
    neg = np.sort(np.asarray(neg))
    total = 0.0
    for p in pos:
        below = np.searchsorted(neg, p, side="left")
        ties = np.searchsorted(neg, p, side="right") - below
        total += below + 0.5 * ties
    return total / (len(pos) * len(neg))


def top_n_hits(scored, n):
    """Expected hits in the n highest of (score, hit) pairs, ties in random order."""
    if n == 0:
        return None
    scored = sorted(scored, key=lambda s: -s[0])
    if len(scored) <= n:
        return float(sum(h for _, h in scored))
    cut = scored[n - 1][0]
    above = [h for s, h in scored if s > cut]
    tied = [h for s, h in scored if s == cut]
    return sum(above) + sum(tied) * (n - len(above)) / len(tied)


def evaluate(images, labels, planted, preds, stave_rows, cl, nc):
    """Both tools' scores against the planted errors (see the module's text)."""
    res = {"planted": {k: sum(1 for p in planted if p["kind"] == k) for k in KINDS}}
    # Every label box of the copy, with what each tool says of it per kind.
    boxes = []
    for ii, im in enumerate(images):
        for bi, (c, b) in enumerate(labels[im]):
            kind = next((p["kind"] for p in planted if p["image"] == im and p["kind"] != "overlooked"
                         and p["box"] == b), None)
            st = {k: 0.0 for k in KINDS}
            for r in stave_rows.get(im, []):
                if r["kind"] != "overlooked" and iou(r["box"], b) > 0.99:
                    st[r["kind"]] = max(st[r["kind"]], r["score"])
            sw = cl["swap"][ii][bi] if len(cl["swap"][ii]) else np.nan
            bl = cl["badloc"][ii][bi] if len(cl["badloc"][ii]) else np.nan
            sw = 1.0 if np.isnan(sw) else sw
            bl = 1.0 if np.isnan(bl) else bl
            clk = {"swapped": 1 - sw, "badly_located": 1 - bl, "spurious": 1 - min(sw, bl)}
            boxes.append({"kind": kind, "stave": st, "cleanlab": clk})
    per_kind = {}
    for k in ("swapped", "badly_located", "spurious"):
        n = res["planted"][k]
        row = {}
        for tool in ("stave", "cleanlab"):
            pos = [b[tool][k] for b in boxes if b["kind"] == k]
            neg = [b[tool][k] for b in boxes if b["kind"] != k]
            hits = top_n_hits([(b[tool][k], 1 if b["kind"] == k else 0) for b in boxes], n)
            row[tool] = {"recall_at_n": None if hits is None else hits / n, "auroc": auroc(pos, neg)}
        per_kind[k] = row
    # Overlooked: each tool's N highest-ranked predictions, and the dropped boxes they hit.
    dropped = [p for p in planted if p["kind"] == "overlooked"]
    n = len(dropped)
    ranked = {"stave": [], "cleanlab": []}
    for im in images:
        for r in stave_rows.get(im, []):
            if r["kind"] == "overlooked":
                ranked["stave"].append((r["score"], im, r["box"]))
    for ii, im in enumerate(images):
        flat = [p for cls in range(nc) for p in preds[im] if p[0] == cls]  # cleanlab's order
        for pi, s in enumerate(cl["overlooked"][ii]):
            if not np.isnan(s):
                ranked["cleanlab"].append((1 - s, im, flat[pi][2]))
    row = {}
    for tool, items in ranked.items():
        items.sort(key=lambda t: -t[0])
        found = set()
        for _, im, b in items[:n]:
            for di, d in enumerate(dropped):
                if d["image"] == im and iou(d["box"], b) >= 0.5:
                    found.add(di)
        row[tool] = {"recall_at_n": len(found) / n if n else None, "flagged": len(items)}
    per_kind["overlooked"] = row
    res["per_kind"] = per_kind
    # Per image.
    dirty = {p["image"] for p in planted}
    st_img = [max([r["score"] for r in stave_rows.get(im, [])] or [0.0]) for im in images]
    cl_img = [1 - q for q in cl["quality"]]
    img = {"images": len(images), "with_errors": len(dirty)}
    for tool, scores, flags in (("stave", st_img, [bool(stave_rows.get(im)) for im in images]),
                                ("cleanlab", cl_img, list(cl["flagged"]))):
        pos = [s for s, im in zip(scores, images) if im in dirty]
        neg = [s for s, im in zip(scores, images) if im not in dirty]
        hits = top_n_hits([(s, 1 if im in dirty else 0) for s, im in zip(scores, images)], len(dirty))
        flagged = [im for f, im in zip(flags, images) if f]
        img[tool] = {"auroc": auroc(pos, neg),
                     "precision_top_n": None if hits is None else hits / len(dirty),
                     "flagged": len(flagged),
                     "flagged_precision": (sum(1 for im in flagged if im in dirty) / len(flagged))
                     if flagged else None,
                     "flagged_recall": sum(1 for im in flagged if im in dirty) / len(dirty)}
    res["per_image"] = img
    return res


def run_cleanlab(images, labels, preds, nc, high, low):
    """cleanlab's scores with its thresholds for confident (high) and locating (low)
    predictions set (module constants that its functions read when given none)."""
    from cleanlab.object_detection import filter as clf
    from cleanlab.object_detection import rank as clr
    for mod in (clr, clf):
        mod.HIGH_PROBABILITY_THRESHOLD, mod.LOW_PROBABILITY_THRESHOLD = high, low
    cl_labels, cl_preds = [], []
    for im in images:
        ls = labels[im]
        cl_labels.append({"bboxes": np.array([b for _, b in ls], dtype=np.float32).reshape(-1, 4),
                          "labels": np.array([c for c, _ in ls], dtype=np.int64)})
        cl_preds.append([np.array([p[2] + [p[1]] for p in preds[im] if p[0] == cls],
                                  dtype=np.float32).reshape(-1, 5) for cls in range(nc)])
    kw = dict(labels=cl_labels, predictions=cl_preds)
    return {"quality": clr.get_label_quality_scores(cl_labels, cl_preds, verbose=False),
            "flagged": clf.find_label_issues(cl_labels, cl_preds),
            "overlooked": clr.compute_overlooked_box_scores(high_probability_threshold=high, **kw),
            "swap": clr.compute_swap_box_scores(high_probability_threshold=high, **kw),
            "badloc": clr.compute_badloc_box_scores(low_probability_threshold=low, **kw)}


def read_stave_issues(path):
    by = {}
    for r in csv.DictReader(open(path)):
        by.setdefault(os.path.basename(r["image"]), []).append(
            {"kind": r["kind"], "score": float(r["score"]),
             "box": [float(r[k]) for k in ("x1", "y1", "x2", "y2")]})
    return by


def mean(values):
    v = [x for x in values if x is not None]
    return sum(v) / len(v) if v else None


def summarise(per_seed, variants):
    """Means over the seeds: Stave, cleanlab at its defaults (the first variant), and per kind
    the cleanlab variant with the highest mean recall@N."""
    def kind_mean(k, tool, v):
        rows = [s["variants"][v]["per_kind"][k][tool] for s in per_seed]
        return {m: mean([r.get(m) for r in rows]) for m in ("recall_at_n", "auroc") if m in rows[0]}

    out = {}
    for k in KINDS:
        st = kind_mean(k, "stave", variants[0])
        cls = {v: kind_mean(k, "cleanlab", v) for v in variants}
        best = max(variants, key=lambda v: cls[v]["recall_at_n"] or 0)
        out[k] = {"stave": st, "cleanlab_defaults": cls[variants[0]],
                  "cleanlab_best": dict(cls[best], thresholds=best),
                  "stave_at_least_cleanlab": st["recall_at_n"] is not None and
                  st["recall_at_n"] >= (cls[best]["recall_at_n"] or 0)}
    out["per_image"] = {}
    for v in variants:
        for tool in ("stave", "cleanlab"):
            if tool == "stave" and v != variants[0]:
                continue
            name = tool if tool == "stave" else "cleanlab@" + v
            out["per_image"][name] = {m: mean([s["variants"][v]["per_image"][tool][m] for s in per_seed])
                                      for m in ("auroc", "precision_top_n", "flagged_precision",
                                                "flagged_recall")}
    out["goal"] = {"target": "Stave's recall@N at least the best of cleanlab's on every planted "
                             "kind cleanlab has (overlooked, swapped, badly located)",
                   "met": all(out[k]["stave_at_least_cleanlab"] for k in
                              ("overlooked", "swapped", "badly_located"))}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stave", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--images", type=int, default=400)
    ap.add_argument("--val-images", type=int, default=200)
    ap.add_argument("--source-imgsz", type=int, default=128)
    ap.add_argument("--data-seed", type=int, default=11)
    ap.add_argument("--imgsz", type=int, default=128)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--start", default="yolov8n", help="what training starts from: a model name "
                    "or a checkpoint to fine-tune")
    ap.add_argument("--weights", default=None, help="score with this checkpoint (no training)")
    ap.add_argument("--seeds", default="0,1,2", help="planting seeds")
    ap.add_argument("--drop", type=float, default=0.10)
    ap.add_argument("--swap", type=float, default=0.05)
    ap.add_argument("--move", type=float, default=0.05)
    ap.add_argument("--spurious", type=float, default=0.08)
    ap.add_argument("--cleanlab-thresholds", default="0.95/0.5,0.7/0.3,0.5/0.2,0.3/0.1",
                    help="cleanlab's high/low probability thresholds to try, the first its defaults")
    a = ap.parse_args()
    work = os.path.abspath(a.work)
    os.makedirs(work, exist_ok=True)
    # A copy of the executable, so that a rebuild meanwhile cannot change it half-way.
    snapshot = os.path.join(work, "stave-train")
    shutil.copy2(a.stave, snapshot)
    a.stave = snapshot
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads))
    name = "data-%d-%d-%d-s%d" % (a.images, a.val_images, a.source_imgsz, a.data_seed)
    data_yaml, _ = demo_dataset(a.stave, work, name, a.images, a.val_images, a.source_imgsz,
                                a.data_seed)
    clean = os.path.dirname(data_yaml)
    nc = next(int(l.split(":")[1]) for l in open(data_yaml) if l.startswith("nc:"))
    weights = a.weights
    if not weights:
        run = os.path.join(work, "model-%s-%s-e%d-i%d" % (name, os.path.basename(a.start), a.epochs,
                                                          a.imgsz))
        weights = os.path.join(run, "weights", "best.pt")
        if not os.path.exists(weights):
            shutil.rmtree(run, ignore_errors=True)
            subprocess.run([a.stave, "train", "data=" + data_yaml, "model=" + a.start,
                            "imgsz=%d" % a.imgsz, "epochs=%d" % a.epochs, "batch=%d" % a.batch,
                            "threads=%d" % a.threads, "seed=0", "--run-dir", run], env=env,
                           check=True, stdout=subprocess.DEVNULL)
    variants = a.cleanlab_thresholds.split(",")
    per_seed = []
    for seed in [int(s) for s in a.seeds.split(",")]:
        root = os.path.join(work, "planted-s%d" % seed)
        images, _, labels, planted = plant(a, clean, root, seed, nc)
        preds_csv = os.path.join(work, "preds-s%d.csv" % seed)
        v = subprocess.run([a.stave, "val", "--weights", weights, "--data",
                            os.path.join(root, "data.yaml"), "--imgsz", str(a.imgsz), "--conf",
                            "0.001", "--save-preds", preds_csv, "--force", "--json"], env=env,
                           check=True, capture_output=True, text=True)
        model_map = json.loads(v.stdout)
        issues_csv = os.path.join(work, "issues-s%d.csv" % seed)
        subprocess.run([a.stave, "label-issues", "--preds", preds_csv,
                        "data=" + os.path.join(root, "data.yaml"), "--out", issues_csv, "--force"],
                       env=env, check=True, stdout=subprocess.DEVNULL)
        preds = read_preds(preds_csv, images)
        stave_rows = read_stave_issues(issues_csv)
        r = {"seed": seed, "planted": None, "variants": {}}
        for v in variants:
            high, low = (float(x) for x in v.split("/"))
            cl = run_cleanlab(images, labels, preds, nc, high, low)
            r["variants"][v] = evaluate(images, labels, planted, preds, stave_rows, cl, nc)
        r["planted"] = r["variants"][variants[0]]["planted"]
        r["model_on_planted"] = {"map50": model_map.get("map50"),
                                 "map50_95": model_map.get("map5095")}
        per_seed.append(r)
    import cleanlab
    print(json.dumps({"benchmark": "label_issues", "weights": weights, "images": a.images,
                      "val_images": a.val_images, "imgsz": a.imgsz, "epochs": a.epochs,
                      "start": a.start, "rates": {"drop": a.drop, "swap": a.swap, "move": a.move,
                                                  "spurious_images": a.spurious},
                      "cleanlab": cleanlab.__version__, "summary": summarise(per_seed, variants),
                      "per_seed": per_seed}, indent=2))


if __name__ == "__main__":
    main()
