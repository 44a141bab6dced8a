#!/usr/bin/env python3
"""Checkpoint fixtures made by Ultralytics itself, never downloaded (issue 42 section 3).

Run with the test-only Python environment (scripts/setup makes it: $stave_cache/venv-test),
which holds the pinned Ultralytics on the cached torch wheel:

    venv-test/bin/python3 tests/tools/ultralytics_fixtures.py --out DIR --stave-train BIN

Writes into DIR (replaced as a whole, or left alone when its stamp says it is up to date):

  manifest.json           what is below, with shapes, dtypes, parameter counts, metrics
  input.bin               the fixed input, float32 little-endian (2, 3, 320, 256)
  models/NAME.pt          built from NAME's yaml (yolov8n, yolo11n, yolo11s x nc 80 and 5),
                          BatchNorm statistics and affine parameters not the defaults, saved
                          as Ultralytics' trainer saves a finished run (strip_optimizer)
  models/yolo11n-nc5-midtrain.pt
                          the same weights' file as the trainer writes it mid-training
                          (model None, ema, half-precision optimizer state, epoch >= 0)
  outputs/NAME/*.bin      each model's eval-mode float32 outputs on input.bin, computed from
                          the file as loaded back (half weights, .float()): y.bin the decoded
                          (B, 4 + nc, anchors); levelI.bin the head's raw output of level I
                          (B, 4*16 + nc, H, W), box logits first; featI.bin the head's input;
                          also for trained-final and trained-midtrain
  demo/                   Stave's demo dataset (stave-train make-demo), data.yaml as Stave reads it
  demo-ultralytics.yaml   the same with an absolute `path:`, as Ultralytics needs it
  trained/last.pt         Ultralytics' own training on demo/, the final stripped file
  trained/last-midtrain.pt the same run's file saved mid-training (its last epoch, save_period)

Nothing goes to the network: YOLO_OFFLINE, settings in a temporary YOLO_CONFIG_DIR with sync
off, a font in place so that the dataset check finds one, plots off. Deterministic where torch
allows (fixed seeds, deterministic=True, fixed thread count); the files' `date` fields differ.
"""
import argparse
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from ultralytics_offline import offline

FORMAT = 1  # manifest layout version; bump when the layout changes
THREADS = 2  # torch threads for building, training and validating (fixed: same numbers anywhere)
BUILT = [(m, nc) for m in ("yolov8n", "yolo11n", "yolo11s") for nc in (80, 5)]
MIDTRAIN = ("yolo11n", 5)
INPUT_SHAPE = (2, 3, 320, 256)
COUNT_MODELS = [f"{f}{s}" for f in ("yolov8", "yolo11") for s in "nsmlx"]
# Stave's demo data and Ultralytics' training on it: small enough for ~2-3 minutes on 2 cores,
# long enough that the final mAP50 is well above zero.
DEMO = {"train": 256, "val": 64, "imgsz": 128, "seed": 0}
TRAIN = dict(model="yolov8n.yaml", imgsz=128, batch=16, nbs=16, epochs=40, optimizer="auto",
             warmup_epochs=0, close_mosaic=10, seed=0, deterministic=True, workers=0,
             device="cpu", amp=False, plots=False, pretrained=False, val=True)
# Ultralytics' validation as Stave's `val` does it by default (rect true), and letterboxed to
# squares; conf, iou and max_det are Ultralytics' defaults for val.
VAL = {"rect": dict(imgsz=128, batch=16, conf=0.001, iou=0.7, max_det=300, rect=True),
       "square": dict(imgsz=128, batch=16, conf=0.001, iou=0.7, max_det=300, rect=False)}


def sha256_files(paths, root):
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(os.path.relpath(p, root).encode() + b"\0")
        with open(p, "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def make_demo(stave_train, out):
    subprocess.run([stave_train, "make-demo", "--out", out, "--train", str(DEMO["train"]),
                    "--val", str(DEMO["val"]), "--imgsz", str(DEMO["imgsz"]), "--seed",
                    str(DEMO["seed"]), "--threads", "1"], check=True, stdout=subprocess.DEVNULL)
    files = [p for p in glob.glob(os.path.join(out, "**"), recursive=True) if os.path.isfile(p)]
    return sha256_files(files, out)


def stamp_of(demo_hash):
    """What the fixtures depend on: this script, the pinned environment, the demo's bytes."""
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    deps = [os.path.abspath(__file__)] + [
        os.path.join(root, "scripts", f) for f in ("test-requirements.txt", "libtorch-requirements.txt")]
    h = hashlib.sha256(sha256_files([d for d in deps if os.path.exists(d)], root).encode())
    h.update(demo_hash.encode())
    h.update(f"{FORMAT} {sys.version_info[:2]}".encode())
    return h.hexdigest()[:32]


def write_bin(path, t):
    """A tensor as raw little-endian float32, C order; returns its manifest entry."""
    import numpy as np
    a = t.detach().to("cpu").float().contiguous().numpy().astype("<f4")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    a.tofile(path)
    return {"shape": list(a.shape), "dtype": "float32", "max_abs": float(np.abs(a).max()),
            "mean_abs": float(np.abs(a).mean())}


def ultralytics_yaml(stave_yaml, out):
    """A copy of data.yaml with an absolute `path:` (Ultralytics resolves a relative one against
    its own datasets folder)."""
    root = os.path.dirname(os.path.abspath(stave_yaml))
    with open(stave_yaml) as f:
        lines = [l for l in f.read().splitlines() if not l.startswith("path:")]
    with open(out, "w") as f:
        f.write("path: " + root + "\n" + "\n".join(lines) + "\n")


def param_counts(model):
    return {"parameters": sum(p.numel() for p in model.parameters()),
            "trainable": sum(p.numel() for p in model.parameters() if p.requires_grad),
            "tensors": len(model.state_dict())}


def randomise_batchnorm(model, gen):
    """BatchNorm running statistics and affine parameters away from their defaults (0, 1, 1, 0),
    so that a reader that drops or swaps them gives different outputs."""
    import torch
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            n = m.num_features
            with torch.no_grad():
                m.running_mean.copy_(0.2 * torch.randn(n, generator=gen))
                m.running_var.copy_(torch.empty(n).uniform_(0.5, 1.5, generator=gen))
                m.weight.copy_(torch.empty(n).uniform_(0.7, 1.3, generator=gen))
                m.bias.copy_(0.1 * torch.randn(n, generator=gen))
                m.num_batches_tracked.fill_(1000)


def names_for(nc, demo_yaml):
    import yaml
    from ultralytics.utils import ROOT
    if nc == 80:
        with open(ROOT / "cfg" / "datasets" / "coco.yaml") as f:
            return dict(yaml.safe_load(f)["names"])
    with open(demo_yaml) as f:
        names = yaml.safe_load(f)["names"]
    return dict(enumerate(names)) if isinstance(names, list) else dict(names)


def save_as_trainer(model, path, data_name, names, epoch, optimizer_state):
    """The dict BaseTrainer.save_model writes (model None, the EMA in half precision, the
    optimizer state in half precision), in the trainer's own key order."""
    import io
    from copy import deepcopy
    from datetime import datetime

    import torch
    from ultralytics import __version__
    from ultralytics.cfg import get_cfg
    from ultralytics.utils import DEFAULT_CFG
    from ultralytics.utils.torch_utils import ModelEMA, convert_optimizer_state_dict_to_fp16

    args = get_cfg(DEFAULT_CFG, {"model": model.yaml.get("yaml_file", ""), "data": data_name,
                                 "epochs": 100, "imgsz": 640, "device": "cpu"})
    model.nc, model.names, model.args = len(names), names, args  # as DetectionTrainer sets them
    ema = ModelEMA(model)
    snap = deepcopy(ema.ema).half().to(memory_format=torch.contiguous_format)
    metrics = {"metrics/precision(B)": 0.0, "metrics/recall(B)": 0.0, "metrics/mAP50(B)": 0.0,
               "metrics/mAP50-95(B)": 0.0, "val/box_loss": 0.0, "val/cls_loss": 0.0,
               "val/dfl_loss": 0.0}
    buffer = io.BytesIO()
    torch.save({"epoch": epoch, "best_fitness": 0.0,
                "stopper": {"best_fitness": 0.0, "best_epoch": epoch},
                "model": None, "ema": snap, "updates": ema.updates, "modelopt": None,
                "optimizer": convert_optimizer_state_dict_to_fp16(deepcopy(optimizer_state)),
                "scaler": torch.amp.GradScaler("cpu", enabled=False).state_dict(),
                "train_args": vars(args), "train_metrics": {**metrics, "fitness": 0.0},
                "train_results": {}, "date": datetime.now().astimezone().isoformat(),
                "version": __version__,
                "git": {"root": None, "branch": None, "commit": None, "message": None, "origin": None},
                "license": "AGPL-3.0 (https://ultralytics.com/license)",
                "docs": "https://docs.ultralytics.com"}, buffer)
    with open(path, "wb") as f:
        f.write(buffer.getvalue())


def optimizer_state(model):
    """A real optimizer's state as the trainer builds it (its parameter groups) after one step
    with fixed gradients, so that momentum buffers exist. Changes the model's weights."""
    import types

    import torch
    from ultralytics.engine.trainer import BaseTrainer

    fake = types.SimpleNamespace(args=None, data={"nc": model.yaml["nc"]})
    opt = BaseTrainer.build_optimizer(fake, model, name="SGD", lr=0.01, momentum=0.937, decay=5e-4)
    gen = torch.Generator().manual_seed(1)
    for p in model.parameters():
        if p.requires_grad:
            p.grad = 1e-3 * torch.randn(p.shape, generator=gen)
    opt.step()
    opt.zero_grad(set_to_none=True)
    return opt.state_dict()


def load_ckpt(path):
    import torch
    return torch.load(path, map_location="cpu", weights_only=False)


def reference_outputs(model, x, out_dir):
    """Eval-mode float32 forward: Detect returns (y, preds); preds holds the flattened box and
    class logits of all levels and the head's inputs. Written per level in the classic layout
    (B, 4*reg_max + nc, H, W), as one conv head's output, plus y (B, 4 + nc, anchors)."""
    import torch
    model = model.float().eval()
    with torch.no_grad():
        y, preds = model(x)
    head = model.model[-1]
    feats = preds["feats"]
    b = x.shape[0]
    sizes = [f.shape[2] * f.shape[3] for f in feats]
    boxes = preds["boxes"].split(sizes, dim=-1)
    scores = preds["scores"].split(sizes, dim=-1)
    out = {"y": write_bin(os.path.join(out_dir, "y.bin"), y)}
    for i, f in enumerate(feats):
        h, w = f.shape[2], f.shape[3]
        level = torch.cat([boxes[i].view(b, 4 * head.reg_max, h, w),
                           scores[i].view(b, head.nc, h, w)], 1)
        out[f"level{i}"] = write_bin(os.path.join(out_dir, f"level{i}.bin"), level)
        out[f"feat{i}"] = write_bin(os.path.join(out_dir, f"feat{i}.bin"), f)
    for k, v in out.items():  # relative to the fixtures' folder
        v["file"] = "/".join(["outputs", os.path.basename(out_dir), f"{k}.bin"])
    return out


def ckpt_summary(path):
    ck = load_ckpt(path)
    m = ck["model"] if ck.get("model") is not None else ck["ema"]
    first = next(iter(m.state_dict().values()))
    return {"keys": list(ck.keys()), "epoch": ck["epoch"], "model_is_none": ck["model"] is None,
            "ema_is_none": ck.get("ema") is None, "optimizer_is_none": ck.get("optimizer") is None,
            "dtype": str(first.dtype).replace("torch.", ""),
            "version": ck.get("version"), "yaml": m.yaml,
            "nc": int(m.nc), "names": {str(k): v for k, v in m.names.items()},
            "stride": [float(s) for s in m.stride], "size": os.path.getsize(path)}


def build_fixtures(out, demo_yaml, x, manifest):
    import torch
    from ultralytics.nn.tasks import DetectionModel
    from ultralytics.utils.torch_utils import strip_optimizer

    os.makedirs(os.path.join(out, "models"), exist_ok=True)
    manifest["models"] = {}
    for arch, nc in BUILT:
        name = f"{arch}-nc{nc}"
        t = time.time()
        torch.manual_seed(0)
        model = DetectionModel(f"{arch}.yaml", nc=nc, verbose=False)
        counts = param_counts(model)  # as built (the saved files' parameters are frozen)
        randomise_batchnorm(model, torch.Generator().manual_seed(0))
        names = names_for(nc, demo_yaml)
        data_name = "coco.yaml" if nc == 80 else "demo.yaml"
        path = os.path.join(out, "models", name + ".pt")
        files = {}
        if (arch, nc) == MIDTRAIN:
            # Mid-training first: one optimiser step changes the weights that both files hold.
            state = optimizer_state(model)
            mid = os.path.join(out, "models", name + "-midtrain.pt")
            save_as_trainer(model, mid, data_name, names, epoch=3, optimizer_state=state)
            shutil.copyfile(mid, path)
            files["midtrain"] = os.path.relpath(mid, out)
        else:
            save_as_trainer(model, path, data_name, names, epoch=0,
                            optimizer_state=torch.optim.SGD(model.parameters(), lr=0.01).state_dict())
        strip_optimizer(path)  # the trainer's final step: ema -> model, optimizer None, epoch -1
        files["final"] = os.path.relpath(path, out)
        loaded = load_ckpt(path)["model"]
        entry = {"arch": arch, "yaml": f"{arch}.yaml", "nc": nc, "files": files,
                 "checkpoint": ckpt_summary(path), **counts,
                 "outputs": reference_outputs(loaded, x, os.path.join(out, "outputs", name))}
        if "midtrain" in files:
            entry["midtrain_checkpoint"] = ckpt_summary(os.path.join(out, files["midtrain"]))
        manifest["models"][name] = entry
        print(f"fixtures: {files} ({entry['parameters']:,} parameters, {time.time() - t:.1f} s)",
              flush=True)


def count_parameters(manifest):
    from ultralytics.nn.tasks import DetectionModel
    counts = {}
    for arch in COUNT_MODELS:
        for nc in (80, 5):
            m = DetectionModel(f"{arch}.yaml", nc=nc, verbose=False)
            counts[f"{arch}-nc{nc}"] = param_counts(m)
    manifest["parameter_counts"] = counts
    print("fixtures: parameter counts " + ", ".join(
        f"{k} {v['parameters']:,}" for k, v in counts.items() if k.endswith("nc80")), flush=True)


def validate(path, ul_yaml, work, args):
    from ultralytics import YOLO
    r = YOLO(path).val(data=ul_yaml, device="cpu", workers=0, plots=False, verbose=False,
                       project=work, name="val", exist_ok=True, **args)
    return {"mAP50": float(r.box.map50), "mAP50-95": float(r.box.map), "precision": float(r.box.mp),
            "recall": float(r.box.mr),
            "per_class_mAP50-95": [float(v) for v in r.box.maps]}


def train_fixture(out, ul_yaml, work, x, manifest):
    from ultralytics import YOLO

    t = time.time()
    model = YOLO(TRAIN["model"])
    kw = {k: v for k, v in TRAIN.items() if k != "model"}
    # save_period = epochs - 1: the trainer itself keeps its last epoch's file as written
    # mid-training (epochN.pt, never stripped) beside last.pt, which it strips at the end.
    model.train(data=ul_yaml, project=work, name="train", exist_ok=True, verbose=False,
                save_period=TRAIN["epochs"] - 1, **kw)
    train_s = time.time() - t
    trainer = model.trainer
    wdir = trainer.wdir
    os.makedirs(os.path.join(out, "trained"), exist_ok=True)
    final = os.path.join(out, "trained", "last.pt")
    mid = os.path.join(out, "trained", "last-midtrain.pt")
    shutil.copyfile(wdir / "last.pt", final)
    shutil.copyfile(wdir / f"epoch{TRAIN['epochs'] - 1}.pt", mid)
    entry = {"train_args": {**TRAIN, "data": "demo-ultralytics.yaml",
                            "save_period": TRAIN["epochs"] - 1, "threads": THREADS},
             "train_seconds": round(train_s, 1),
             # The trainer's own final validation (of best.pt, rect batches, in its loop).
             "trainer_final_metrics": {k: float(v) for k, v in trainer.metrics.items()},
             "files": {}}
    saved = load_ckpt(final)["train_args"]  # what optimizer=auto chose, among others
    entry["train_args_saved"] = {k: saved[k] for k in (
        "optimizer", "lr0", "lrf", "momentum", "weight_decay", "warmup_epochs", "warmup_bias_lr",
        "nbs", "batch", "imgsz", "epochs", "close_mosaic", "mosaic", "seed", "deterministic")}
    for key, path in (("final", final), ("midtrain", mid)):
        rel = os.path.relpath(path, out)
        e = {"file": rel, "checkpoint": ckpt_summary(path), "val": {}}
        for vname, vargs in VAL.items():
            e["val"][vname] = validate(path, ul_yaml, work, vargs)
        loaded = load_ckpt(path)
        e["outputs"] = reference_outputs(
            (loaded["model"] if loaded["model"] is not None else loaded["ema"]), x,
            os.path.join(out, "outputs", f"trained-{key}"))
        entry["files"][key] = e
        print(f"fixtures: {rel}: Ultralytics val " + ", ".join(
            f"{k} mAP50 {v['mAP50']:.4f} mAP50-95 {v['mAP50-95']:.4f}" for k, v in e["val"].items()),
            flush=True)
    manifest["trained"] = entry
    print(f"fixtures: trained {TRAIN['model']} {TRAIN['epochs']} epochs in {train_s:.0f} s", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="the fixtures' folder (replaced as a whole)")
    ap.add_argument("--stave-train", required=True, help="stave-train (its make-demo)")
    ap.add_argument("--force", action="store_true", help="remake even when up to date")
    ap.add_argument("--quick", action="store_true",
                    help="a 2-epoch training, to check this script (its stamp says so)")
    a = ap.parse_args()
    if a.quick:
        TRAIN.update(epochs=2, close_mosaic=1)
    out = os.path.abspath(a.out)
    t0 = time.time()

    work = tempfile.mkdtemp(prefix="stave-ultralytics-fixtures-")
    try:
        demo_tmp = os.path.join(work, "demo")
        demo_hash = make_demo(a.stave_train, demo_tmp)
        stamp = stamp_of(demo_hash) + ("-quick" if a.quick else "")
        stamp_file = os.path.join(out, "stamp")
        if not a.force and os.path.exists(stamp_file) and open(stamp_file).read().strip() == stamp:
            print(f"fixtures: {out} is up to date (stamp {stamp})")
            return 0

        # No network, nothing written outside `work` (the checkpoints' `git` fields: not Stave's
        # repository).
        offline(work)

        import torch
        import ultralytics
        import ultralytics.utils.torch_utils as torch_utils
        torch_utils.NUM_THREADS = THREADS  # select_device() sets torch's threads from it
        torch.set_num_threads(THREADS)

        # Written in place, the stamp last: a run cut short leaves no stamp and is redone. The
        # dataset stays where the trained checkpoints' train_args say it is.
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        shutil.copytree(demo_tmp, os.path.join(out, "demo"))
        ul_yaml = os.path.join(out, "demo-ultralytics.yaml")
        ultralytics_yaml(os.path.join(out, "demo", "data.yaml"), ul_yaml)

        torch.manual_seed(0)
        x = torch.rand(*INPUT_SHAPE)
        manifest = {"format": FORMAT, "ultralytics": ultralytics.__version__,
                    "torch": torch.__version__.split("+")[0], "stamp": stamp,
                    "input": {**write_bin(os.path.join(out, "input.bin"), x),
                              "file": "input.bin",
                              "made_by": "torch.manual_seed(0); torch.rand(2, 3, 320, 256)"},
                    "demo": {"dir": "demo", "data": "demo/data.yaml",
                             "ultralytics_data": "demo-ultralytics.yaml",
                             "make_demo": DEMO, "sha256": demo_hash},
                    "val_args": VAL}
        build_fixtures(out, os.path.join(out, "demo", "data.yaml"), x, manifest)
        count_parameters(manifest)
        train_fixture(out, ul_yaml, work, x, manifest)
        manifest["seconds"] = round(time.time() - t0, 1)
        with open(os.path.join(out, "manifest.json"), "w") as f:
            json.dump(manifest, f, indent=1)
        with open(stamp_file, "w") as f:
            f.write(stamp + "\n")
        print(f"fixtures: wrote {out} in {time.time() - t0:.0f} s")
        return 0
    finally:
        os.chdir("/")
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
