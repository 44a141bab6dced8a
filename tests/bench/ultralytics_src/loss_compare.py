"""The same batch through both losses: `stave-train loss-batch` runs one validation batch
(square letterbox, no augmentation) through a checkpoint's EMA model in eval mode and Stave's
loss, and writes the pixels, the targets, the loss and every parameter's gradient; here the
same checkpoint, exported for Ultralytics, takes the same pixels and targets through
Ultralytics' v8DetectionLoss (task-aligned assigner included) and its backward. Prints one
JSON line with both losses and the largest gradient differences; exits 1 when they disagree
beyond float tolerance."""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import demo_dataset  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stave", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--weights", required=True, help="a Stave checkpoint")
    ap.add_argument("--data", default="", help="data.yaml (default: a synthetic set)")
    ap.add_argument("--imgsz", type=int, default=256)
    ap.add_argument("--batch", type=int, default=16)
    a = ap.parse_args()
    work = os.path.abspath(a.work)
    os.makedirs(work, exist_ok=True)
    data = a.data or demo_dataset(a.stave, work, "loss-data", 32, 32)[0]
    batch_file = os.path.join(work, "loss-batch.pt")
    exported = os.path.join(work, "loss-ultralytics.pt")
    subprocess.run([a.stave, "loss-batch", "--weights", a.weights, "--data", data, "--imgsz",
                    str(a.imgsz), "--batch", str(a.batch), "--out", batch_file], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([a.stave, "export-weights", a.weights, "--format", "ultralytics", "--out",
                    exported], check=True, stdout=subprocess.DEVNULL)

    import torch  # noqa: E402
    from ultralytics import YOLO  # noqa: E402
    from ultralytics.cfg import get_cfg  # noqa: E402
    from ultralytics.utils.loss import v8DetectionLoss  # noqa: E402

    torch.set_num_threads(2)
    d = torch.load(batch_file, weights_only=True)
    model = YOLO(exported).model.float().eval()
    for p in model.parameters():
        p.requires_grad_(True)
    model.args = get_cfg()
    model.args.box, model.args.cls, model.args.dfl = d["gains"]
    criterion = v8DetectionLoss(model)
    t = d["targets"]
    batch = {"batch_idx": t[:, 0], "cls": t[:, 1:2], "bboxes": t[:, 2:6]}
    preds = model(d["images"])
    loss, _ = criterion(preds, batch)
    loss.sum().backward()
    # Ultralytics' assignment on the same (detached) outputs, as its loss makes it internally.
    with torch.no_grad():
        from ultralytics.utils.tal import make_anchors  # noqa: E402
        p = criterion.parse_output(preds)
        pred_scores = p["scores"].detach().permute(0, 2, 1).contiguous()
        pred_distri = p["boxes"].detach().permute(0, 2, 1).contiguous()
        anchors, strides = make_anchors(p["feats"], criterion.stride, 0.5)
        imgsz = torch.tensor(p["feats"][0].shape[2:], dtype=pred_scores.dtype) * criterion.stride[0]
        tt = torch.cat((batch["batch_idx"].view(-1, 1), batch["cls"].view(-1, 1), batch["bboxes"]), 1)
        tt = criterion.preprocess(tt, pred_scores.shape[0], scale_tensor=imgsz[[1, 0, 1, 0]])
        gl, gb = tt.split((1, 4), 2)
        _, _, ul_ts, ul_fg, _ = criterion.assigner(
            pred_scores.sigmoid(), (criterion.bbox_decode(anchors, pred_distri) * strides).type(gb.dtype),
            anchors * strides, gl, gb, gb.sum(2, keepdim=True).gt_(0.0))
    st_fg = d["foreground"].bool()
    assignment = {
        "stave_foreground": int(st_fg.sum()), "ultralytics_foreground": int(ul_fg.sum()),
        "foreground_differs_at": int((st_fg != ul_fg).sum()),
        "stave_target_scores_sum": float(d["target_scores_sum"]),
        "ultralytics_target_scores_sum": float(ul_ts.sum().clamp(min=1)),
        "target_scores_max_abs_diff": float((d["target_scores"] - ul_ts).abs().max()),
    }

    ul_items = (loss.detach() / d["images"].shape[0]).tolist()
    st_items = d["loss_items"].tolist()
    worst = []
    params = dict(model.named_parameters())
    for name, g in d["grads"].items():
        p = params.get(name)
        if p is None or p.grad is None:
            worst.append((float("inf"), name, "missing in Ultralytics"))
            continue
        diff = (p.grad - g).abs().max().item()
        scale = max(g.abs().max().item(), p.grad.abs().max().item(), 1e-12)
        worst.append((diff / scale, name, "max |diff| %.3g of max |grad| %.3g" % (diff, scale)))
    worst.sort(reverse=True)
    # Trainable parameters of Ultralytics' model that Stave's file has no gradient for (the
    # DFL's fixed projection is frozen in both tools): a layer Stave's model lacks shows here.
    frozen = {n for n, m in model.named_modules() if type(m).__name__ == "DFL"}
    unmatched = sorted(n for n in params if n not in d["grads"]
                       and n.rsplit(".", 2)[0] not in frozen)
    rel_items = [abs(u - s) / max(abs(u), 1e-12) for u, s in zip(ul_items, st_items)]
    result = {
        "images": int(d["images"].shape[0]), "targets": int(t.shape[0]),
        "shape": list(d["images"].shape),
        "stave_loss": dict(zip(("box", "cls", "dfl"), st_items)),
        "ultralytics_loss": dict(zip(("box", "cls", "dfl"), ul_items)),
        "loss_relative_diff": dict(zip(("box", "cls", "dfl"), rel_items)),
        "assignment": assignment,
        "architecture": (model.yaml.get("yaml_file") or "") if hasattr(model, "yaml") else "",
        "gradients_compared": len(worst),
        "ultralytics_parameters_without_stave_gradient": unmatched,
        "largest_gradient_differences": [
            {"param": n, "relative": r, "detail": s} for r, n, s in worst[:8]],
    }
    print("PAIRED_JSON " + json.dumps(result))
    ok = max(rel_items) < 1e-3 and worst and worst[0][0] < 1e-2 and not unmatched
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
