"""An untrained Ultralytics model as a checkpoint (time-to-accuracy's `--start init
--init-from ultralytics`): the weights Ultralytics' own trainer would draw for `seed` (it seeds
with seed + 1 before building the model), the dataset's classes, saved in float32 (no rounding
to half) in the layout YOLO() and `stave-train` read.

  python3 ul_init.py MODEL NC SEED OUT.pt
"""
import io
import os
import sys

import torch
from ultralytics.cfg import DEFAULT_CFG_DICT
from ultralytics.nn.tasks import DetectionModel
from ultralytics.utils.torch_utils import init_seeds


def main():
    model_name, nc, seed, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    init_seeds(seed + 1)  # as BaseTrainer does for rank 0
    model = DetectionModel(model_name + ".yaml", nc=nc, verbose=False)
    model.names = {i: "class%d" % i for i in range(nc)}
    model.args = dict(DEFAULT_CFG_DICT, model=model_name + ".yaml")
    buffer = io.BytesIO()
    torch.save({"epoch": -1, "best_fitness": None, "model": None, "ema": model.float(),
                "updates": 0, "optimizer": None, "train_args": dict(model.args),
                "train_metrics": {}, "train_results": {}}, buffer)
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(buffer.getvalue())
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
