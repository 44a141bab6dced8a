"""Ultralytics' validation speed for the paired benchmark: model.val() on a split, timed around
the call (the import is not counted). Prints one JSON line."""
import json
import sys
import time

args = json.loads(sys.argv[1])
from ultralytics import YOLO  # noqa: E402
import ultralytics.utils.torch_utils as torch_utils  # noqa: E402

if args.get("threads"):
    torch_utils.NUM_THREADS = args["threads"]  # as in ul_train.py

model = YOLO(args["weights"])
t0 = time.time()
m = model.val(data=args["data"], imgsz=args["imgsz"], batch=args["batch"], device="cpu",
              workers=args["workers"], plots=False, verbose=False)
seconds = time.time() - t0
print("PAIRED_JSON " + json.dumps({"seconds": seconds, "map50": float(m.box.map50),
                                   "map5095": float(m.box.map), "speed_ms": m.speed}))
