"""Ultralytics' validator on several checkpoints (the paired benchmark's convergence run scores
Stave's per-epoch weights, exported with `stave-train export-weights --format ultralytics`, by
Ultralytics' own rule and pipeline). Prints one JSON line: mAP50 and mAP50-95 per checkpoint, in
order."""
import json
import sys

args = json.loads(sys.argv[1])
from ultralytics import YOLO  # noqa: E402
import ultralytics.utils.torch_utils as torch_utils  # noqa: E402

if args.get("threads"):
    torch_utils.NUM_THREADS = args["threads"]

out = []
for path in args["weights"]:
    # rect=True: the rectangular batches (0.5 stride of padding) Ultralytics' trainer validates
    # each epoch with; a bare val() letterboxes to squares, which scores the same weights
    # differently from the curve they are compared with.
    m = YOLO(path).val(data=args["data"], imgsz=args["imgsz"], batch=args["batch"], device="cpu",
                       workers=args["workers"], plots=False, verbose=False, rect=True)
    out.append({"weights": path, "map50": float(m.box.map50), "map5095": float(m.box.map)})
print("PAIRED_JSON " + json.dumps(out))
