"""How exact float32 training arithmetic is in each memory format on this CPU (tests/bench/
ultralytics layout): one training batch through yolov8n in train mode (a Stave checkpoint,
exported for Ultralytics, and Ultralytics' v8DetectionLoss) in float32 NCHW, float32
channels_last (NHWC) and float64 NCHW; the relative L2 error of the float32 gradients against
float64's. Then BatchNorm2d alone at yolov8n's first three shapes (batch 16, imgsz 256), with an
input whose mean is --bn-offset standard deviations, the same comparison per output. Same
torch build as Stave's LibTorch, so the kernels are Stave's. Prints one JSON line."""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import demo_dataset  # noqa: E402


def rel(a, b):
    return float((a.double() - b).norm() / b.norm().clamp(min=1e-300))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stave", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--weights", action="append", required=True,
                    help="a Stave checkpoint (repeat for several)")
    ap.add_argument("--data", default="", help="Stave's data.yaml (default: a synthetic set)")
    ap.add_argument("--imgsz", type=int, default=256)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--bn-offset", type=float, default=8.0)
    a = ap.parse_args()
    work = os.path.abspath(a.work)
    os.makedirs(work, exist_ok=True)
    data = a.data or demo_dataset(a.stave, work, "data", 400, 100)[0]
    batch_file = os.path.join(work, "layout-batch.pt")
    subprocess.run([a.stave, "loss-batch", "--weights", a.weights[0], "--data", data, "--augment",
                    "--imgsz", str(a.imgsz), "--batch", str(a.batch), "--out", batch_file],
                   check=True, stdout=subprocess.DEVNULL)

    import torch  # noqa: E402
    from ultralytics import YOLO  # noqa: E402
    from ultralytics.cfg import get_cfg  # noqa: E402
    from ultralytics.utils.loss import v8DetectionLoss  # noqa: E402

    torch.set_num_threads(a.threads)
    d = torch.load(batch_file, weights_only=True)
    px = d["batches"][0]["pixels"]
    t = d["batches"][0]["targets"]

    def grads(path, dtype, channels_last):
        m = YOLO(path).model.to(dtype).train()
        m.args = get_cfg()
        for p in m.parameters():
            p.requires_grad_(True)
        x = px.to(dtype) / 255.0
        if channels_last:
            m = m.to(memory_format=torch.channels_last)
            x = x.contiguous(memory_format=torch.channels_last)
        loss, _ = v8DetectionLoss(m)(m(x), {"batch_idx": t[:, 0], "cls": t[:, 1:2],
                                            "bboxes": t[:, 2:6]})
        loss.sum().backward()
        return {n: p.grad.double() for n, p in m.named_parameters() if p.grad is not None}

    def whole(g, ref):
        num = sum(float((g[k] - ref[k]).norm()) ** 2 for k in ref)
        den = sum(float(ref[k].norm()) ** 2 for k in ref)
        worst = max(ref, key=lambda k: rel(g[k], ref[k]))
        return {"relative_error": (num / den) ** 0.5, "worst_tensor": worst,
                "worst_relative_error": rel(g[worst], ref[worst])}

    model = {}
    for w in a.weights:
        exported = os.path.join(work, "layout-" + os.path.basename(w))
        subprocess.run([a.stave, "export-weights", w, "--format", "ultralytics", "--out",
                        exported], check=True, stdout=subprocess.DEVNULL)
        ref = grads(exported, torch.float64, False)
        model[w] = {"nchw": whole(grads(exported, torch.float32, False), ref),
                    "channels_last": whole(grads(exported, torch.float32, True), ref)}

    bn = []
    torch.manual_seed(0)
    s = a.imgsz
    for shape in ((a.batch, 16, s // 2, s // 2), (a.batch, 32, s // 4, s // 4),
                  (a.batch, 64, s // 8, s // 8)):
        x64 = torch.randn(*shape, dtype=torch.float64) + a.bn_offset
        g64 = torch.randn(*shape, dtype=torch.float64) * 1e-3
        ref = torch.nn.BatchNorm2d(shape[1]).double().train()
        xr = x64.clone().requires_grad_(True)
        yr = ref(xr)
        yr.backward(g64)
        row = {"shape": list(shape)}
        for name, cl in (("nchw", False), ("channels_last", True)):
            m = torch.nn.BatchNorm2d(shape[1]).float().train()
            x, g = x64.float(), g64.float()
            if cl:
                m = m.to(memory_format=torch.channels_last)
                x = x.contiguous(memory_format=torch.channels_last)
                g = g.contiguous(memory_format=torch.channels_last)
            x.requires_grad_(True)
            y = m(x)
            y.backward(g)
            row[name] = {"output": rel(y.detach(), yr.detach()), "grad_input": rel(x.grad, xr.grad),
                         "grad_weight": rel(m.weight.grad, ref.weight.grad),
                         "grad_bias": rel(m.bias.grad, ref.bias.grad)}
        bn.append(row)
    print("PAIRED_JSON " + json.dumps({"torch": torch.__version__, "threads": a.threads,
                                       "model_gradients_vs_float64": model,
                                       "batchnorm_alone_bn_offset": a.bn_offset,
                                       "batchnorm_alone_vs_float64": bn}))


if __name__ == "__main__":
    main()
