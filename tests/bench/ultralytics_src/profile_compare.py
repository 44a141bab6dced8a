"""Where a training step's time goes, Stave against Ultralytics, operator by operator.

Stave: `stave-train bench train --profile` (LibTorch's profiler over compute-only steps on one
batch of a synthetic set). Ultralytics: its DetectionModel, v8DetectionLoss, AdamW, gradient
clipping and ModelEMA on a batch of the same shape under torch.profiler (same threads, same
torch build). Both traces are reduced to self time per operator per step (a parent's time less
its children's), and the JSON lists the operators that take the most time in either tool.
Convolution costs do not depend on pixel values, so the shapes decide the comparison.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import time


def self_times(trace_path, steps):
    """{operator: (self ms per step, calls per step)} and the total, from a Chrome trace."""
    with open(trace_path) as f:
        data = json.load(f)
    events = data["traceEvents"] if isinstance(data, dict) else data
    ops = [e for e in events if e.get("ph") == "X" and e.get("cat") == "cpu_op" and "dur" in e]
    by_thread = collections.defaultdict(list)
    for e in ops:
        by_thread[(e["pid"], e["tid"])].append(e)
    own, calls = collections.Counter(), collections.Counter()
    for evs in by_thread.values():
        evs.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []
        for e in evs:
            while stack and stack[-1]["ts"] + stack[-1]["dur"] <= e["ts"]:
                stack.pop()
            if stack:
                stack[-1]["_children"] = stack[-1].get("_children", 0) + e["dur"]
            stack.append(e)
        for e in evs:
            own[e["name"]] += e["dur"] - e.get("_children", 0)
            calls[e["name"]] += 1
    table = {n: (own[n] / 1e3 / steps, calls[n] / steps) for n in own}
    return table, sum(own.values()) / 1e3 / steps


def ultralytics_step(args):
    """Runs in the benchmark's virtual environment: times and profiles Ultralytics' step."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    from ultralytics.cfg import get_cfg
    from ultralytics.nn.tasks import DetectionModel
    from ultralytics.utils.loss import v8DetectionLoss
    from ultralytics.utils.torch_utils import ModelEMA

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = DetectionModel(args.model + ".yaml", nc=3, verbose=False)
    model.args = get_cfg()
    model.train()
    criterion = v8DetectionLoss(model)
    opt = torch.optim.AdamW(model.parameters(), lr=0.001, betas=(0.9, 0.999), weight_decay=0.0)
    ema = ModelEMA(model)
    g = torch.Generator().manual_seed(0)
    x = torch.rand(args.batch, 3, args.imgsz, args.imgsz, generator=g)
    n = 8 * args.batch
    batch = {"batch_idx": torch.arange(args.batch).repeat_interleave(8).float(),
             "cls": torch.randint(0, 3, (n, 1), generator=g).float(),
             "bboxes": torch.cat([torch.rand(n, 2, generator=g) * 0.6 + 0.2,
                                  torch.rand(n, 2, generator=g) * 0.3 + 0.02], 1)}

    def step():
        loss, _ = criterion(model(x), batch)
        loss.sum().backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=10.0)
        opt.step()
        opt.zero_grad()
        ema.update(model)

    for _ in range(2):
        step()
    t0 = time.time()
    for _ in range(args.steps):
        step()
    seconds = (time.time() - t0) / args.steps
    with profile(activities=[ProfilerActivity.CPU]) as p:
        for _ in range(args.profile_steps):
            step()
    p.export_chrome_trace(args.trace)
    print("PAIRED_JSON " + json.dumps({"step_s": seconds}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stave", help="the stave-train executable")
    ap.add_argument("--work", help="folder for the traces")
    ap.add_argument("--model", default="yolov8n")
    ap.add_argument("--imgsz", type=int, default=256)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--stave-args", default="--precision fp32",
                    help="extra `bench train` options for Stave's side, e.g. '--channels-last'")
    ap.add_argument("--ultralytics-side", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--trace", help=argparse.SUPPRESS)
    ap.add_argument("--profile-steps", type=int, default=5, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.ultralytics_side:
        ultralytics_step(a)
        return
    work = os.path.abspath(a.work)
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads), YOLO_OFFLINE="1")
    st_trace, ul_trace = os.path.join(work, "stave-step.json"), os.path.join(work, "ul-step.json")
    if not a.model.startswith("yolov8"):
        # Stave's `bench train` builds YOLOv8 at a scale (--scale); it has no --model, so any
        # other family would be profiled as yolov8 against Ultralytics' other model.
        ap.error("--model %s: Stave's side (`stave-train bench train`) builds yolov8 only" % a.model)
    scale = a.model[-1]
    out = subprocess.run([a.stave, "bench", "train", "--scale", scale, "--imgsz", str(a.imgsz),
                          "--batch", str(a.batch), "--steps", str(a.steps), "--threads",
                          str(a.threads), "--workers", "1", "--profile", st_trace]
                         + a.stave_args.split(), env=env, check=True, capture_output=True,
                         text=True).stdout
    st = json.loads(out)
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--ultralytics-side",
                          "--model", a.model, "--imgsz", str(a.imgsz), "--batch", str(a.batch),
                          "--threads", str(a.threads), "--steps", str(a.steps), "--trace",
                          ul_trace, "--profile-steps", "5"],
                         env=env, check=True, capture_output=True, text=True).stdout
    ul = json.loads(out.split("PAIRED_JSON ", 1)[1])
    st_ops, st_total = self_times(st_trace, min(a.steps, 5))
    ul_ops, ul_total = self_times(ul_trace, 5)
    names = sorted(set(st_ops) | set(ul_ops),
                   key=lambda n: -(st_ops.get(n, (0, 0))[0] + ul_ops.get(n, (0, 0))[0]))
    rows = [{"op": n,
             "stave_ms": round(st_ops.get(n, (0, 0))[0], 2),
             "stave_calls": round(st_ops.get(n, (0, 0))[1], 1),
             "ultralytics_ms": round(ul_ops.get(n, (0, 0))[0], 2),
             "ultralytics_calls": round(ul_ops.get(n, (0, 0))[1], 1)} for n in names[:a.top]]
    print(json.dumps({
        "benchmark": "ultralytics profile", "model": a.model, "imgsz": a.imgsz, "batch": a.batch,
        "threads": a.threads, "stave_settings": a.stave_args,
        "stave": {"compute_only_step_s": a.batch / st["compute_only_samples_per_s"],
                  "precision": st["precision"], "channels_last": st["channels_last"],
                  "profiled_self_ms_per_step": round(st_total, 1), "trace": st_trace},
        "ultralytics": {"step_s": ul["step_s"], "precision": "fp32", "channels_last": False,
                        "profiled_self_ms_per_step": round(ul_total, 1), "trace": ul_trace},
        "step_ratio": ul["step_s"] / (a.batch / st["compute_only_samples_per_s"]),
        "operators": rows}, indent=2))


if __name__ == "__main__":
    main()
