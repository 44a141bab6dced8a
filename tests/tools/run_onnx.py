#!/usr/bin/env python3
"""Test-only: runs an ONNX model with ONNX Runtime (CPU) on a raw float32 input.

usage: run_onnx.py MODEL INPUT.f32 N C H W OUTPUT.f32

INPUT.f32 holds N*C*H*W little-endian float32 values (NCHW). The first output is written to
OUTPUT.f32 the same way. Prints one JSON object: the model's input and output names, element
types and shapes as declared, the output's actual shape, and the metadata_props.
"""
import json
import sys

import numpy as np
import onnxruntime as ort


def main() -> int:
    if len(sys.argv) != 8:
        print(__doc__, file=sys.stderr)
        return 2
    model, src, n, c, h, w, dst = sys.argv[1:]
    x = np.fromfile(src, dtype="<f4").reshape(int(n), int(c), int(h), int(w))
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    inp, out = session.get_inputs()[0], session.get_outputs()[0]
    if inp.type == "tensor(float16)":
        x = x.astype(np.float16)
    y = session.run([out.name], {inp.name: x})[0]
    y.astype("<f4").tofile(dst)
    print(json.dumps({
        "input": {"name": inp.name, "type": inp.type, "shape": inp.shape},
        "output": {"name": out.name, "type": out.type, "shape": out.shape},
        "output_shape": list(y.shape),
        "metadata": session.get_modelmeta().custom_metadata_map,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
