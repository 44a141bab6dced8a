"""Both tools' augmented training data side by side (tests/bench/ultralytics augment): an epoch
of Stave's training batches (`stave-train loss-batch --augment --batches N`) and as many of
Ultralytics' (its YOLODataset with its default hyperparameters, mosaic on, then mosaic off as
after close_mosaic), from the same images. For each stream: boxes per image, box sizes, empty
images, padding and pixel statistics, and the loss one fixed model (a Stave checkpoint, exported
for Ultralytics, in eval mode) scores on the batches with Ultralytics' v8DetectionLoss. The
same model scoring one tool's batches higher means that tool's augmentation makes harder
samples: a difference in the data, not in the training. Prints one JSON line."""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import demo_dataset, ultralytics_yaml  # noqa: E402


def quantiles(t, qs=(0.1, 0.5, 0.9)):
    import torch  # noqa: E402
    if t.numel() == 0:
        return [0.0 for _ in qs]
    return [float(v) for v in torch.quantile(t.float(), torch.tensor(qs))]


def stream_stats(batches, score):
    """batches: (uint8 pixels [B,3,H,W] RGB, targets [M,6]: image, class, cx, cy, w, h normalised)."""
    import torch  # noqa: E402
    images = boxes = empty = 0
    ws, hs, per_class = [], [], {}
    pad = 0.0
    mean = torch.zeros(3, dtype=torch.float64)
    sq = torch.zeros(3, dtype=torch.float64)
    pixels = 0
    losses = torch.zeros(3, dtype=torch.float64)
    for px, t in batches:
        b = px.shape[0]
        images += b
        boxes += t.shape[0]
        counts = torch.bincount(t[:, 0].long(), minlength=b) if t.shape[0] else torch.zeros(b)
        empty += int((counts == 0).sum())
        ws.append(t[:, 4] * px.shape[3])
        hs.append(t[:, 5] * px.shape[2])
        for c in t[:, 1].long().tolist():
            per_class[c] = per_class.get(c, 0) + 1
        f = px.double()
        pad += float((px == 114).all(dim=1).double().mean()) * b
        mean += f.mean(dim=(0, 2, 3)) * b
        sq += (f * f).mean(dim=(0, 2, 3)) * b
        pixels += b
        losses += torch.tensor(score(px, t), dtype=torch.float64) * b
    w = torch.cat(ws) if ws else torch.zeros(0)
    h = torch.cat(hs) if hs else torch.zeros(0)
    m = mean / max(pixels, 1)
    sd = (sq / max(pixels, 1) - m * m).clamp(min=0).sqrt()
    side = torch.minimum(w, h)
    return {
        "images": images, "boxes_per_image": boxes / max(images, 1),
        "empty_images": empty,
        "box_width_px_p10_p50_p90": quantiles(w), "box_height_px_p10_p50_p90": quantiles(h),
        "box_area_px_mean": float((w * h).mean()) if w.numel() else 0.0,
        "boxes_under_8px": float((side < 8).double().mean()) if w.numel() else 0.0,
        "boxes_under_16px": float((side < 16).double().mean()) if w.numel() else 0.0,
        "class_counts": {str(k): v for k, v in sorted(per_class.items())},
        "padding_fraction": pad / max(pixels, 1),
        "pixel_mean_rgb": m.tolist(), "pixel_std_rgb": sd.tolist(),
        "loss_per_image": dict(zip(("box", "cls", "dfl"), (losses / max(images, 1)).tolist())),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stave", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--weights", required=True, help="a Stave checkpoint (the model that scores)")
    ap.add_argument("--data", default="", help="Stave's data.yaml (default: the paired set)")
    ap.add_argument("--imgsz", type=int, default=256)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--batches", type=int, default=25)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    work = os.path.abspath(a.work)
    os.makedirs(work, exist_ok=True)
    if a.data:
        stave_yaml = a.data
        ul_yaml = os.path.join(work, "augment-ultralytics.yaml")
        ultralytics_yaml(a.data, ul_yaml)
    else:
        stave_yaml, ul_yaml = demo_dataset(a.stave, work, "data", 400, 100)
    exported = os.path.join(work, "augment-model-ultralytics.pt")
    subprocess.run([a.stave, "export-weights", a.weights, "--format", "ultralytics", "--out",
                    exported], check=True, stdout=subprocess.DEVNULL)

    import torch  # noqa: E402
    from ultralytics import YOLO  # noqa: E402
    from ultralytics.cfg import get_cfg  # noqa: E402
    from ultralytics.data import build_yolo_dataset  # noqa: E402
    from ultralytics.data.utils import check_det_dataset  # noqa: E402
    from ultralytics.utils.loss import v8DetectionLoss  # noqa: E402
    from ultralytics.utils.torch_utils import init_seeds  # noqa: E402

    torch.set_num_threads(2)
    model = YOLO(exported).model.float().eval()
    model.args = get_cfg()
    criterion = v8DetectionLoss(model)

    def score(px, t):
        with torch.no_grad():
            preds = model(px.float() / 255.0)
            batch = {"batch_idx": t[:, 0], "cls": t[:, 1:2], "bboxes": t[:, 2:6]}
            loss, _ = criterion(preds, batch)
        return (loss / px.shape[0]).tolist()

    result = {"imgsz": a.imgsz, "batch": a.batch, "batches": a.batches, "seed": a.seed,
              "weights": a.weights}
    for mosaic in (True, False):
        key = "mosaic" if mosaic else "no_mosaic"
        # Stave: epoch 1, so that mosaic companions come from a previous epoch as in training.
        out = os.path.join(work, "augment-stave-%s.pt" % key)
        cmd = [a.stave, "loss-batch", "--weights", a.weights, "--data", stave_yaml, "--augment",
               "--epoch", "1", "--seed", str(a.seed), "--imgsz", str(a.imgsz), "--batch",
               str(a.batch), "--batches", str(a.batches), "--out", out]
        if not mosaic:
            cmd.append("--no-mosaic")
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        d = torch.load(out, weights_only=True)
        stave = [(b["pixels"], b["targets"]) for b in d["batches"]]

        # Ultralytics: its training dataset with its default hyperparameters; the recent-image
        # buffer its mosaic draws from is filled first, as it is after the first batches.
        init_seeds(a.seed)
        cfg = get_cfg(overrides={"imgsz": a.imgsz, "batch": a.batch})
        data = check_det_dataset(ul_yaml)
        ds = build_yolo_dataset(cfg, data["train"], a.batch, data, mode="train", rect=False,
                                stride=32)
        if not mosaic:
            ds.close_mosaic(cfg)
        order = torch.randperm(len(ds)).tolist()
        if mosaic:
            for i in order[:min(len(ds), a.batch * 8)]:
                ds[i]
        ul = []
        n = min(len(ds), a.batches * a.batch)
        order = (order * (n // max(len(order), 1) + 1))[:n]
        for k in range(0, n, a.batch):
            b = ds.collate_fn([ds[i] for i in order[k:k + a.batch]])
            t = torch.cat((b["batch_idx"].view(-1, 1), b["cls"].view(-1, 1), b["bboxes"]), 1)
            ul.append((b["img"], t))
        result[key] = {"stave": stream_stats(stave, score),
                       "ultralytics": stream_stats(ul, score)}
    print("PAIRED_JSON " + json.dumps(result))


if __name__ == "__main__":
    main()
