"""The same start and the same batches through both trainers (tests/bench/ultralytics
trajectory): Stave trains N batches from a checkpoint's weights (`pretrained=`), writing every
batch it trains on (STAVE_DEBUG_RECORD_BATCHES); Ultralytics' own trainer, from the same
weights exported for it, is then fed exactly those batches in place of its data loader, with
its defaults for everything else (optimizer=auto, warmup, accumulation, clipping, EMA). The
weights both reach are compared, tensor by tensor, as a fraction of how far training moved
them: float rounding alone leaves a small fraction, a different optimiser step, schedule,
accumulation, weight decay or EMA a large one. Stave runs in Ultralytics' CPU numerics
(channels_last=false) for the comparison, and once more with its defaults as the control: how
far rounding alone (another memory format) moves Stave from itself. Training is chaotic: after
~100 batches any two runs have parted, so the comparison is for short horizons (default 25).
Prints one JSON line; exits 1 when Stave and Ultralytics part further than both --tolerance
and the control."""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import demo_dataset, ultralytics_yaml  # noqa: E402


class Done(Exception):
    """Raised by the replayed loader when the recorded batches are used up."""


def stave_train(a, data, run_dir, extra, env=None):
    cmd = [a.stave, "train", "data=" + data, "model=yolov8n", "imgsz=%d" % a.imgsz,
           "batch=%d" % a.batch, "epochs=%d" % a.epochs, "threads=%d" % a.threads,
           "seed=%d" % a.seed, "val=false"] + extra + ["--run-dir", run_dir]
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout[-4000:])
        raise SystemExit("stave-train train failed (%d): %s" % (r.returncode, " ".join(cmd)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stave", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--weights", default="", help="start from this Stave checkpoint (default: "
                    "one made by a first Stave step on the data)")
    ap.add_argument("--data", default="", help="Stave's data.yaml (default: a synthetic set)")
    ap.add_argument("--batches", type=int, default=25, help="batches both trainers take")
    ap.add_argument("--epochs", type=int, default=30, help="planned epochs (the schedule's)")
    ap.add_argument("--imgsz", type=int, default=256)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--stave-args", default="", help="more key=value settings for Stave's run")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="sets",
                    help="a setting both trainers use, by its Ultralytics name (e.g. "
                         "close_mosaic=10 optimizer=AdamW lr0=0.0003 warmup_epochs=0); repeatable")
    ap.add_argument("--tolerance", type=float, default=0.1,
                    help="largest allowed |Stave - Ultralytics| / |Ultralytics - start| (L2, all "
                    "weights) unless the control parts further (rounding alone, at long horizons)")
    a = ap.parse_args()
    from time_to_accuracy import typed  # noqa: E402
    settings = []
    for item in a.sets:
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            ap.error("--set %r: KEY=VALUE" % item)
        settings.append((key, value))
    work = os.path.abspath(a.work)
    os.makedirs(work, exist_ok=True)
    if a.data:
        stave_yaml = os.path.abspath(a.data)
        ul_yaml = os.path.join(work, "trajectory-ultralytics.yaml")
        ultralytics_yaml(stave_yaml, ul_yaml)
    else:
        stave_yaml, ul_yaml = demo_dataset(a.stave, work, "data", 400, 100)

    start = a.weights
    if not start:
        init_dir = os.path.join(work, "trajectory-init")
        shutil.rmtree(init_dir, ignore_errors=True)
        stave_train(a, stave_yaml, init_dir, ["--stop-after-batches", "1"])
        start = os.path.join(init_dir, "weights", "last.pt")
    start_ul = os.path.join(work, "trajectory-start-ultralytics.pt")
    subprocess.run([a.stave, "export-weights", start, "--format", "ultralytics", "--out",
                    start_ul], check=True, stdout=subprocess.DEVNULL)

    # Stave: N batches from the start weights, every batch recorded; then the control run.
    rec = os.path.join(work, "trajectory-batches")
    shutil.rmtree(rec, ignore_errors=True)
    os.makedirs(rec)
    exported = {}
    for name, extra in (("compared", ["channels_last=false"]), ("control", [])):
        run_dir = os.path.join(work, "trajectory-stave-" + name)
        shutil.rmtree(run_dir, ignore_errors=True)
        env = dict(os.environ, STAVE_DEBUG_RECORD_BATCHES=rec) if name == "compared" else None
        stave_train(a, stave_yaml, run_dir, ["pretrained=" + start] + extra +
                    ["%s=%s" % kv for kv in settings] + a.stave_args.split() +
                    ["--stop-after-batches", str(a.batches)], env)
        exported[name] = os.path.join(work, "trajectory-stave-%s-ultralytics.pt" % name)
        subprocess.run([a.stave, "export-weights", os.path.join(run_dir, "weights", "last.pt"),
                        "--format", "ultralytics", "--out", exported[name]], check=True,
                       stdout=subprocess.DEVNULL)

    import torch  # noqa: E402
    from ultralytics import YOLO  # noqa: E402
    from ultralytics.models.yolo.detect import DetectionTrainer  # noqa: E402
    import ultralytics.utils.torch_utils as torch_utils  # noqa: E402

    files = sorted(glob.glob(os.path.join(rec, "batch-r0-*.pt")))
    recorded = [torch.load(f, weights_only=True) for f in files]
    if len(recorded) != a.batches:
        raise SystemExit("Stave recorded %d batches, not %d" % (len(recorded), a.batches))
    torch_utils.NUM_THREADS = a.threads
    torch.set_num_threads(a.threads)

    class Replay:
        """Ultralytics' training loader with the recorded batches in place of its own."""

        def __init__(self, real):
            self.real = real
            self.cursor = 0

        def __len__(self):
            return len(self.real)

        def __getattr__(self, name):
            return getattr(self.real, name)

        def __iter__(self):
            for _ in range(len(self.real)):
                if self.cursor >= len(recorded):
                    raise Done()
                r = recorded[self.cursor]
                self.cursor += 1
                consumed[0] = self.cursor
                t = r["targets"]
                n = r["pixels"].shape[0]
                yield {"img": r["pixels"], "batch_idx": t[:, 0].clone(), "cls": t[:, 1:2].clone(),
                       "bboxes": t[:, 2:6].clone(), "im_file": [""] * n,
                       "ori_shape": [(a.imgsz, a.imgsz)] * n,
                       "resized_shape": [(a.imgsz, a.imgsz)] * n}

    class ReplayTrainer(DetectionTrainer):
        def get_dataloader(self, dataset_path, batch_size=16, rank=0, mode="train"):
            loader = super().get_dataloader(dataset_path, batch_size, rank, mode)
            return Replay(loader) if mode == "train" else loader

    ul_losses = []
    consumed = [0]
    model = YOLO(start_ul)
    model.add_callback("on_train_batch_end",
                       lambda tr: ul_losses.append([float(v) for v in (
                           tr.loss_items.values() if isinstance(tr.loss_items, dict)
                           else tr.loss_items)]))
    train_kw = dict(trainer=ReplayTrainer, data=ul_yaml, imgsz=a.imgsz, batch=a.batch,
                    epochs=a.epochs, workers=0, device="cpu", project=work,
                    name="trajectory-ultralytics", exist_ok=True, plots=False, amp=False,
                    val=False, verbose=False, seed=a.seed, close_mosaic=10)
    train_kw.update({k: typed(v) for k, v in settings})
    try:
        model.train(**train_kw)
        # A run whose planned epochs end with the recorded batches ends by itself.
        if consumed[0] != len(recorded):
            raise SystemExit("Ultralytics' run ended after %d of the %d recorded batches"
                             % (consumed[0], len(recorded)))
    except Done:
        pass
    tr = model.trainer

    def floats(sd):
        return {k: v.detach().float() for k, v in sd.items() if v.is_floating_point()}

    def compare(a_sd, b_sd, w0):
        """|a - b| / |b - w0| over all weights (L2), the same for BatchNorm's running
        statistics, and the tensors that differ most by that measure."""
        rows, num, den, bn_num, bn_den = [], 0.0, 0.0, 0.0, 0.0
        for k, u in b_sd.items():
            if k not in a_sd or k not in w0:
                continue
            d = float((a_sd[k] - u).norm())
            m = float((u - w0[k]).norm())
            if "running_" in k:
                bn_num += d * d
                bn_den += m * m
                continue
            num += d * d
            den += m * m
            rows.append((d / max(m, 1e-12), k, d, m, float((a_sd[k] - w0[k]).norm())))
        rows.sort(reverse=True)
        return ((num ** 0.5) / max(den ** 0.5, 1e-12), (bn_num ** 0.5) / max(bn_den ** 0.5, 1e-12),
                rows)

    start_sd = floats(YOLO(start_ul).model.state_dict())
    # The EMAs: export-weights writes a checkpoint's EMA, as Ultralytics saves its own.
    stave_sd = floats(YOLO(exported["compared"]).model.state_dict())
    control_sd = floats(YOLO(exported["control"]).model.state_dict())
    ul_sd = floats(tr.ema.ema.state_dict())
    overall, bn_overall, rows = compare(stave_sd, ul_sd, start_sd)
    control, _, _ = compare(control_sd, stave_sd, start_sd)
    result = {
        "batches": a.batches, "epochs_planned": a.epochs, "imgsz": a.imgsz, "batch": a.batch,
        "seed": a.seed, "start": start, "stave_args": a.stave_args,
        "settings": {k: typed(v) for k, v in settings},
        "stave": "channels_last=false (Ultralytics' CPU numerics); control: Stave's defaults",
        "ultralytics": {"optimizer": type(tr.optimizer).__name__,
                        "lr0": tr.args.lr0, "accumulate_nominal": round(tr.args.nbs / tr.batch_size),
                        "ema_updates": int(tr.ema.updates),
                        "lr_per_group": [g["lr"] for g in tr.optimizer.param_groups],
                        "loss_per_batch": ul_losses},
        "weights_compared": len(rows),
        "relative_difference": overall,
        "relative_difference_bn_running_stats": bn_overall,
        "control_stave_defaults_vs_stave_fp32_nchw": control,
        "largest": [{"tensor": k, "relative": r, "diff_norm": d, "ultralytics_moved": m,
                     "stave_moved": sm} for r, k, d, m, sm in rows[:10]],
    }
    print("PAIRED_JSON " + json.dumps(result))
    sys.exit(0 if overall <= max(a.tolerance, control) else 1)


if __name__ == "__main__":
    main()
