"""Ultralytics' side of the paired benchmark: one training run, timed from inside.

Prints one JSON line: the wall-clock time of every batch's start and end (time.time(), the
clock the driver and Stave's events use), the threads and workers Ultralytics really used, and
its results.csv. Run by paired.py in the benchmark's virtual environment.
"""
import json
import sys
import time

args = json.loads(sys.argv[1])
from ultralytics import YOLO  # noqa: E402  (import time is part of the start-up measured)
import torch  # noqa: E402
import ultralytics.utils.torch_utils as torch_utils  # noqa: E402

# Ultralytics' CPU policy trains with min(8, cores - 1) threads (select_device sets them); the
# paired run asks both tools for the same count and records the policy's own.
used = {"policy_threads": torch_utils.NUM_THREADS}
if args.get("threads"):
    torch_utils.NUM_THREADS = args["threads"]

starts, ends = [], []


def on_batch_start(trainer):
    starts.append(time.time())


def on_batch_end(trainer):
    ends.append(time.time())
    if "torch_threads" not in used:
        used["torch_threads"] = torch.get_num_threads()
        used["workers"] = trainer.args.workers
        used["batch"] = trainer.batch_size
        used["device"] = str(trainer.device)


model = YOLO(args["model"] + ".yaml")
model.add_callback("on_train_batch_start", on_batch_start)
model.add_callback("on_train_batch_end", on_batch_end)
train_kw = dict(data=args["data"], imgsz=args["imgsz"], batch=args["batch"],
                epochs=args["epochs"], workers=args["workers"], device="cpu",
                project=args["project"], name=args["name"], exist_ok=True, pretrained=False,
                plots=False, amp=False, verbose=False, seed=0)
train_kw.update(args.get("extra", {}))
model.train(**train_kw)
print("PAIRED_JSON " + json.dumps({"batch_starts": starts, "batch_ends": ends, "used": used,
                                   "save_dir": str(model.trainer.save_dir)}))
