"""Time to accuracy, paired (tests/bench/ultralytics time-to-accuracy): how long each tool takes,
on this machine, to train a model as good as Ultralytics' own runs end up.

Both tools train the same model on the same synthetic data with the same imgsz, batch, epochs,
threads and workers, each with its other defaults (augmentation, optimiser, warmup, EMA,
close_mosaic, validation after every epoch), once per seed; the order alternates per seed so
that a change of the machine's load falls on both. A start is either from scratch (`--start
scratch`: each tool draws its own initial weights), from one pretrained Ultralytics checkpoint
that both read (`--start pretrained`: made once by Ultralytics on a differently seeded synthetic
set, or `--weights FILE.pt`), or from the same untrained weights (`--start init`): per seed, the
initial weights one tool draws for that seed (`--init-from stave|ultralytics`), which both then
train. The last pairs the tools on each random start, so that the spread of the starts, which
from scratch dominates a few seeds' comparison, falls out of the difference.

Every epoch of a run is scored by one rule, Ultralytics' (its validator's numbers for its own
runs; `stave-train val --ap-rule ultralytics` on each of Stave's epoch checkpoints, which hold the
EMA weights Stave validated), and timed as the moment that epoch's validation ended, measured
from the process's start (imports, dataset scan and model build included).

The target is the peer's final accuracy: the median over the seeds of Ultralytics' last-epoch
mAP50-95 (and 90% and 95% of it, which a noisy last epoch cannot make unreachable). For each
tool and target: each seed's wall time to the first epoch at or above it (null when its run
never got there), their median and range, and Stave's median over Ultralytics'. Prints one JSON
object; docs/benchmarks.md records the numbers.
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import demo_dataset  # noqa: E402
from paired import paired_json, parse_seeds, run_timed, stave_events  # noqa: E402

FRACTIONS = (0.9, 0.95, 1.0)


def median(values):
    """The median (mean of the middle two for an even count); None for no values."""
    v = sorted(values)
    if not v:
        return None
    mid = len(v) // 2
    return v[mid] if len(v) % 2 else (v[mid - 1] + v[mid]) / 2


def ul_curve(save_dir, epoch_ends, t0):
    """Ultralytics' run: per epoch (1-based) its mAPs from results.csv and the seconds from the
    process's start to the end of that epoch's validation (its on_fit_epoch_end callback)."""
    rows = []
    with open(os.path.join(save_dir, "results.csv")) as f:
        for r in csv.DictReader(f):
            r = {k.strip(): v for k, v in r.items()}
            rows.append({"epoch": int(float(r["epoch"])),
                         "map50": float(r["metrics/mAP50(B)"]),
                         "map50_95": float(r["metrics/mAP50-95(B)"])})
    if len(epoch_ends) != len(rows):
        sys.exit("time-to-accuracy: Ultralytics logged %d epochs but %d epoch ends"
                 % (len(rows), len(epoch_ends)))
    for row, end in zip(rows, epoch_ends):
        row["seconds"] = end - t0
    return rows


def stave_curve(a, run_dir, data_yaml, t0, env):
    """Stave's run: per epoch (1-based) the seconds from the process's start to its validation
    event, its own mAPs (COCO-style rule), and the same epoch's checkpoint scored by
    `stave-train val --ap-rule ultralytics`."""
    ends = {}
    for e in stave_events(run_dir):
        if e.get("type") == "validation" and e.get("rank", 0) == 0:
            d = e["data"]
            ends[d["epoch"] + 1] = {"seconds": e["time"] - t0, "own_map50": d["map50"],
                                    "own_map50_95": d["map50_95"]}
    rows = []
    for epoch in sorted(ends):
        ckpt = os.path.join(run_dir, "weights", "epoch%d.pt" % epoch)
        if not os.path.exists(ckpt):
            sys.exit("time-to-accuracy: %s is missing (save_period=1 writes one per epoch)" % ckpt)
        out = subprocess.run([a.stave, "val", "--weights", ckpt, "--data", data_yaml,
                              "--imgsz", str(a.imgsz), "--batch", str(a.batch),
                              "--ap-rule", "ultralytics", "--json"],
                             env=env, check=True, text=True, capture_output=True).stdout
        v = json.loads(out)
        rows.append(dict(ends[epoch], epoch=epoch, map50=v["map50"], map50_95=v["map5095"]))
    return rows


def start_weights(start, seed):
    """The checkpoint a run of `seed` starts from, or None (scratch)."""
    w = start["weights"]
    return w(seed) if callable(w) else w


def stave_run(a, seed, start, data_yaml, work, env):
    run_dir = os.path.join(work, "tta", "stave-%s-seed%d" % (start["name"], seed))
    subprocess.run(["rm", "-rf", run_dir])
    os.makedirs(os.path.dirname(run_dir), exist_ok=True)
    model = start_weights(start, seed) or a.model
    rc, wall, rss, t0, _ = run_timed(
        [a.stave, "train", "data=" + data_yaml, "model=" + model, "imgsz=%d" % a.imgsz,
         "batch=%d" % a.batch, "epochs=%d" % a.epochs, "threads=%d" % a.threads,
         "workers=%d" % a.workers, "seed=%d" % seed, "save_period=1"]
        + ["%s=%s" % kv for kv in a.settings] + ["--run-dir", run_dir],
        run_dir + ".log", env)
    if rc != 0:
        sys.exit("time-to-accuracy: Stave's run failed (exit %d), see %s.log" % (rc, run_dir))
    curve = stave_curve(a, run_dir, data_yaml, t0, env)
    return {"seed": seed, "wall_s": wall, "peak_rss_mib": rss, "per_epoch": curve,
            "images_per_s": a.images * a.epochs / max(wall, 1e-9)}


def ul_run(a, seed, start, ul_yaml, work, env):
    name = "ul-%s-seed%d" % (start["name"], seed)
    project = os.path.join(work, "tta")
    subprocess.run(["rm", "-rf", os.path.join(project, name)])
    spec = {"model": a.model, "data": ul_yaml, "imgsz": a.imgsz, "batch": a.batch,
            "epochs": a.epochs, "workers": a.workers, "project": project, "name": name,
            "threads": a.threads, "extra": dict(a.settings_typed, seed=seed)}
    if start_weights(start, seed):
        spec["weights"] = start_weights(start, seed)
    log = os.path.join(project, name + ".log")
    rc, wall, rss, t0, out = run_timed([sys.executable, os.path.join(HERE, "ul_train.py"),
                                        json.dumps(spec)], log, env)
    u = paired_json(out)
    if rc != 0 or u is None:
        sys.exit("time-to-accuracy: Ultralytics' run failed (exit %d), see %s" % (rc, log))
    return {"seed": seed, "wall_s": wall, "peak_rss_mib": rss,
            "per_epoch": ul_curve(u["save_dir"], u["epoch_ends"], t0),
            "images_per_s": a.images * a.epochs / max(wall, 1e-9), "used": u["used"]}


def typed(value):
    """A --set value as Ultralytics' trainer wants it: int, float, bool or the string."""
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def time_to(curve, target):
    """Seconds to the first epoch whose mAP50-95 is at least `target`, and that epoch."""
    for row in curve:
        if row["map50_95"] >= target:
            return row["seconds"], row["epoch"]
    return None, None


def summarise(stave_runs, ul_runs):
    target = median([r["per_epoch"][-1]["map50_95"] for r in ul_runs])
    out = {"target_rule": "median over the seeds of Ultralytics' last-epoch mAP50-95, "
                          "both tools scored by Ultralytics' AP rule",
           "peer_final_map50_95": target, "targets": []}
    for frac in FRACTIONS:
        row = {"fraction": frac, "map50_95": frac * target}
        for side, runs in (("stave", stave_runs), ("ultralytics", ul_runs)):
            per_seed = []
            for r in runs:
                seconds, epoch = time_to(r["per_epoch"], frac * target)
                per_seed.append({"seed": r["seed"], "seconds": seconds, "epoch": epoch})
            reached = [p["seconds"] for p in per_seed if p["seconds"] is not None]
            # A run that never got there counts as slower than every run that did.
            ranked = sorted(reached) + [float("inf")] * (len(per_seed) - len(reached))
            med = median(ranked)
            row[side] = {"per_seed": per_seed, "reached": len(reached), "runs": len(per_seed),
                         "median_s": None if med is None or med == float("inf") else med,
                         "min_s": min(reached) if reached else None,
                         "max_s": max(reached) if len(reached) == len(per_seed) else None}
        s, u = row["stave"]["median_s"], row["ultralytics"]["median_s"]
        row["ratio_stave_over_ultralytics"] = s / u if s is not None and u else None
        out["targets"].append(row)
    full = out["targets"][-1]["ratio_stave_over_ultralytics"]
    out["goal"] = {"ratio": full, "target": "<= 0.9 (CPU)", "met": full is not None and full <= 0.9}
    if target <= 0:  # nothing learnt: every epoch "reaches" it, the times say nothing
        out["goal"] = {"ratio": None, "target": "<= 0.9 (CPU)", "met": None,
                       "why": "Ultralytics' runs end at mAP50-95 0: train longer or larger"}
    for side, runs in (("stave", stave_runs), ("ultralytics", ul_runs)):
        finals = [r["per_epoch"][-1] for r in runs]
        out["final_" + side] = {
            "map50_median": median([f["map50"] for f in finals]),
            "map50_95_median": median([f["map50_95"] for f in finals]),
            "map50_95_per_seed": [f["map50_95"] for f in finals],
            "wall_s_median": median([r["wall_s"] for r in runs]),
            "images_per_s_median": median([r["images_per_s"] for r in runs])}
    return out


def pretrained_start(a, work, env):
    """One Ultralytics checkpoint both tools start from: yolov8n (or --model) trained by
    Ultralytics for --pretrain-epochs on a synthetic set of its own (other seed, other images),
    made once and kept in WORK."""
    out = os.path.join(work, "tta-start", "%s-%dep.pt" % (a.model, a.pretrain_epochs))
    if os.path.exists(out):
        return out
    data = os.path.join(work, "tta-start", "data")
    if not os.path.exists(os.path.join(data, "data.yaml")):
        subprocess.run([a.stave, "make-demo", "--out", data, "--train", str(a.images),
                        "--val", str(a.val_images), "--imgsz", str(a.source_imgsz),
                        "--seed", "1234"],
                       check=True, stdout=subprocess.DEVNULL)
    ul_yaml = os.path.join(work, "tta-start", "data-ultralytics.yaml")
    from common import ultralytics_yaml
    ultralytics_yaml(os.path.join(data, "data.yaml"), ul_yaml)
    spec = {"model": a.model, "data": ul_yaml, "imgsz": a.imgsz, "batch": a.batch,
            "epochs": a.pretrain_epochs, "workers": a.workers,
            "project": os.path.join(work, "tta-start"), "name": "train", "threads": a.threads,
            "extra": {"seed": 0}}
    log = os.path.join(work, "tta-start", "train.log")
    rc, _, _, _, o = run_timed([sys.executable, os.path.join(HERE, "ul_train.py"),
                                json.dumps(spec)], log, env)
    u = paired_json(o)
    if rc != 0 or u is None:
        sys.exit("time-to-accuracy: making the pretrained start failed, see %s" % log)
    os.replace(os.path.join(u["save_dir"], "weights", "last.pt"), out)
    return out


def init_start(a, seed, data_yaml, work, env):
    """The untrained weights --init-from draws for `seed`, as an Ultralytics checkpoint in WORK
    (made once). Stave's: a one-epoch run of `seed` at learning rate 0 (SGD, no bias warmup), so
    that its weights stay as drawn, exported with `export-weights --format ultralytics`, and
    BatchNorm's running statistics (which that epoch moved) put back to their initial 0 and 1.
    Ultralytics': its model built after its trainer's seeding (ul_init.py)."""
    folder = os.path.join(work, "tta-init")
    os.makedirs(folder, exist_ok=True)
    out = os.path.join(folder, "%s-%s-seed%d.pt" % (a.init_from, a.model, seed))
    if os.path.exists(out):
        return out
    if a.init_from == "ultralytics":
        with open(data_yaml) as f:
            nc = next(int(l.split(":")[1]) for l in f if l.startswith("nc:"))
        subprocess.run([sys.executable, os.path.join(HERE, "ul_init.py"), a.model, str(nc),
                        str(seed), out], env=env, check=True, stdout=subprocess.DEVNULL)
        return out
    run_dir = os.path.join(folder, "stave-%s-seed%d" % (a.model, seed))
    subprocess.run(["rm", "-rf", run_dir])
    subprocess.run([a.stave, "train", "data=" + data_yaml, "model=" + a.model,
                    "imgsz=%d" % a.imgsz, "batch=%d" % a.batch, "epochs=1", "seed=%d" % seed,
                    "optimizer=SGD", "lr0=0", "warmup_bias_lr=0", "val=false",
                    "threads=%d" % a.threads, "workers=%d" % a.workers, "--run-dir", run_dir],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    subprocess.run([a.stave, "export-weights", os.path.join(run_dir, "weights", "last.pt"),
                    "--format", "ultralytics", "--out", out + ".tmp"], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    import contextlib
    import torch
    with contextlib.redirect_stdout(sys.stderr):  # Ultralytics' modules log to stdout
        ckpt = torch.load(out + ".tmp", map_location="cpu", weights_only=False)
    for key in ("model", "ema"):
        if isinstance(ckpt.get(key), torch.nn.Module):
            for m in ckpt[key].modules():
                if isinstance(m, torch.nn.BatchNorm2d):
                    m.reset_running_stats()
    torch.save(ckpt, out + ".tmp")
    os.replace(out + ".tmp", out)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stave", required=True, help="the stave-train executable")
    ap.add_argument("--work", required=True, help="folder for the data and both tools' runs")
    ap.add_argument("--images", type=int, default=256)
    ap.add_argument("--val-images", type=int, default=64)
    ap.add_argument("--source-imgsz", type=int, default=128,
                    help="side of the synthetic images on disk (smaller decodes faster)")
    ap.add_argument("--data-seed", type=int, default=0,
                    help="make-demo's seed: another seed draws other images")
    ap.add_argument("--model", default="yolov8n")
    ap.add_argument("--imgsz", type=int, default=128)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--start", choices=("scratch", "pretrained", "init"), default="scratch")
    ap.add_argument("--init-from", choices=("stave", "ultralytics"), default="stave",
                    help="with --start init: whose initial weights for each seed both train")
    ap.add_argument("--weights", default=None,
                    help="with --start pretrained: an Ultralytics checkpoint both start from "
                         "(default: one Ultralytics trains first, --pretrain-epochs)")
    ap.add_argument("--pretrain-epochs", type=int, default=30)
    ap.add_argument("--tools", default="stave,ultralytics",
                    help="which tools train (one alone: its curves, no comparison)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="sets",
                    help="a setting both tools train with, by its Ultralytics name (Stave's "
                         "schema uses the same), e.g. close_mosaic=10 optimizer=AdamW lr0=0.0003 "
                         "warmup_epochs=0; repeatable")
    a = ap.parse_args()
    a.settings = []
    for item in a.sets:
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            ap.error("--set %r: KEY=VALUE" % item)
        a.settings.append((key, value))
    a.settings_typed = {k: typed(v) for k, v in a.settings}
    try:
        seeds = parse_seeds(None, a.seeds)
    except ValueError as e:
        ap.error(str(e))
    work = os.path.abspath(a.work)
    os.makedirs(work, exist_ok=True)
    # The runs take an hour or more: a copy of the executable, so that a rebuild meanwhile
    # neither changes the trainer half-way nor leaves a moment with no file to start.
    snapshot = os.path.join(work, "stave-train")
    shutil.copy2(a.stave, snapshot)
    a.stave = snapshot
    stave_yaml, ul_yaml = demo_dataset(
        a.stave, work, "data-%d-%d-%d-s%d" % (a.images, a.val_images, a.source_imgsz, a.data_seed),
        a.images, a.val_images, a.source_imgsz, a.data_seed)
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads), YOLO_OFFLINE="1")
    start = {"name": a.start, "weights": None}
    if a.start == "pretrained":
        start["weights"] = os.path.abspath(a.weights) if a.weights else pretrained_start(a, work, env)
    elif a.start == "init":
        start["name"] = "init-" + a.init_from
        start["weights"] = lambda seed: init_start(a, seed, stave_yaml, work, env)
    stave_runs, ul_runs = [], []
    t_begin = time.time()
    tools = a.tools.split(",")
    if not tools or any(t not in ("stave", "ultralytics") for t in tools):
        ap.error("--tools: stave, ultralytics or both")
    for i, seed in enumerate(seeds):
        # Alternate which tool goes first, so that a drift of the machine's load is shared.
        order = ("stave", "ultralytics") if i % 2 == 0 else ("ultralytics", "stave")
        for tool in order:
            if tool not in tools:
                continue
            if tool == "stave":
                stave_runs.append(stave_run(a, seed, start, stave_yaml, work, env))
            else:
                ul_runs.append(ul_run(a, seed, start, ul_yaml, work, env))
    result = {"benchmark": "ultralytics time-to-accuracy", "model": a.model, "imgsz": a.imgsz,
              "source_imgsz": a.source_imgsz, "data_seed": a.data_seed,
              "batch": a.batch, "epochs": a.epochs, "images": a.images,
              "val_images": a.val_images, "threads": a.threads, "workers": a.workers,
              "seeds": seeds, "settings": a.settings_typed,
              "start": {"name": start["name"],
                        "weights": [start_weights(start, s) for s in seeds]}, "bench_wall_s": time.time() - t_begin,
              "summary": summarise(stave_runs, ul_runs) if stave_runs and ul_runs else None,
              "stave": stave_runs, "ultralytics": ul_runs}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
