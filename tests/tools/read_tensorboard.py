"""Reads TensorBoard event files with the tensorboard package's own loader and prints every
scalar as JSON: {"tag": [[step, value, wall_time], ...], ...}. Test-only (Stave's TensorBoard
round trip); run with the virtual environment scripts/setup makes."""
import json
import sys

from tensorboard.backend.event_processing import event_accumulator


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: read_tensorboard.py LOGDIR", file=sys.stderr)
        return 2
    acc = event_accumulator.EventAccumulator(
        sys.argv[1], size_guidance={event_accumulator.SCALARS: 0})
    acc.Reload()
    out = {}
    for tag in acc.Tags()["scalars"]:
        out[tag] = [[e.step, e.value, e.wall_time] for e in acc.Scalars(tag)]
    json.dump(out, sys.stdout, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
