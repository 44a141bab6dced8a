"""A real Ultralytics checkpoint, written by Ultralytics itself (never downloaded): the model of
--model's yaml (e.g. yolo11x.yaml, nc 80) built by DetectionModel, BatchNorm statistics moved
off their defaults, saved as the trainer saves (the EMA in half precision, NCHW, with the
trainer's keys), then finalized with strip_optimizer as every trained best.pt / last.pt is (the
EMA becomes `model`, optimizer and EMA dropped, train_args merged with the defaults). What
`tests/bench/checkpoint_read --file` reads (issue 42 §1: yolo11x, ~110 MB, <= 1 s).

  tests/bench/ultralytics checkpoint [--model yolo11x] [--nc 80] [--out FILE.pt]

Prints one JSON line: the file, its size, the parameter count and the Ultralytics version."""
import argparse
import io
import json
import os
from copy import deepcopy


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stave", default="", help="unused (the dispatcher passes it)")
    ap.add_argument("--work", required=True)
    ap.add_argument("--model", default="yolo11x")
    ap.add_argument("--nc", type=int, default=80)
    ap.add_argument("--out", default="", help="default: WORK/MODEL.pt")
    a = ap.parse_args()
    out = os.path.abspath(a.out or os.path.join(a.work, a.model + ".pt"))
    os.makedirs(os.path.dirname(out), exist_ok=True)

    import torch
    from ultralytics import __version__
    from ultralytics.cfg import DEFAULT_CFG_DICT
    from ultralytics.nn.tasks import DetectionModel
    from ultralytics.utils.torch_utils import strip_optimizer

    torch.manual_seed(0)
    model = DetectionModel(a.model + ".yaml", nc=a.nc, verbose=False)
    model.names = {i: "class%d" % i for i in range(a.nc)}
    model.args = dict(DEFAULT_CFG_DICT, model=a.model + ".yaml")
    with torch.no_grad():  # statistics as after training, not the defaults
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
                m.num_batches_tracked.fill_(1000)
    ema = deepcopy(model).half().to(memory_format=torch.contiguous_format)
    buffer = io.BytesIO()
    torch.save({"epoch": 0, "best_fitness": 0.0, "model": None, "ema": ema, "updates": 1000,
                "optimizer": None, "train_args": dict(model.args),
                "train_metrics": {}, "train_results": {}}, buffer)
    with open(out, "wb") as f:
        f.write(buffer.getvalue())
    strip_optimizer(out)
    print(json.dumps({"file": out, "bytes": os.path.getsize(out), "model": a.model, "nc": a.nc,
                      "parameters": sum(p.numel() for p in model.parameters()),
                      "ultralytics": __version__, "torch": torch.__version__}))


if __name__ == "__main__":
    main()
