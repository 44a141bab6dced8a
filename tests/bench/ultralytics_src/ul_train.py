"""Ultralytics' side of the paired benchmark: one training run, timed from inside.

Prints one JSON line: the wall-clock time of every batch's start and end (time.time(), the
clock the driver and Stave's events use), the threads and workers Ultralytics really used, and
its results.csv, and the time each epoch's validation ended. With "weights" (an Ultralytics .pt)
the run starts from that checkpoint (its architecture, the dataset's classes) as `yolo train
model=FILE.pt` does. Run by paired.py and time_to_accuracy.py in the benchmark's virtual
environment.
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

starts, ends, epoch_ends = [], [], []


def on_batch_start(trainer):
    starts.append(time.time())


def on_batch_end(trainer):
    ends.append(time.time())
    if "torch_threads" not in used:
        used["torch_threads"] = torch.get_num_threads()
        used["workers"] = trainer.args.workers
        used["batch"] = trainer.batch_size
        used["device"] = str(trainer.device)


def on_fit_epoch_end(trainer):
    # Once per epoch: the final evaluation of best.pt calls it again, as epoch `epochs`.
    if trainer.epoch < trainer.epochs:
        epoch_ends.append(time.time())


weights = args.get("weights")
model = YOLO(weights) if weights else YOLO(args["model"] + ".yaml")
model.add_callback("on_train_batch_start", on_batch_start)
model.add_callback("on_train_batch_end", on_batch_end)
model.add_callback("on_fit_epoch_end", on_fit_epoch_end)
train_kw = dict(data=args["data"], imgsz=args["imgsz"], batch=args["batch"],
                epochs=args["epochs"], workers=args["workers"], device="cpu",
                project=args["project"], name=args["name"], exist_ok=True, pretrained=bool(weights),
                plots=False, amp=False, verbose=False, seed=0)
train_kw.update(args.get("extra", {}))
model.train(**train_kw)
print("PAIRED_JSON " + json.dumps({"batch_starts": starts, "batch_ends": ends, "used": used,
                                   "epoch_ends": epoch_ends, "save_dir": str(model.trainer.save_dir)}))
