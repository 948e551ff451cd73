#!/usr/bin/env python3
"""Writes examples/mlp/mlp_step.mlir (batch 8) for another batch size:

  rebatch.py MLP_STEP.mlir BATCH OUT.mlir

Every batch dimension (8x..., ...x8, tensor<8xf32>) becomes BATCH and the mean's
1/8 becomes 1/BATCH rounded to f32 (printed with 9 significant digits, which
round-trip). A data-parallel run on N ranks takes the step for BATCH/N
samples; the single-process reference takes the step for BATCH."""
import re
import struct
import sys


def main():
    src, batch, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    text = open(src).read()
    if "arith.constant 0.125 : f32" not in text:
        sys.exit("%s: no 1/8 constant: not the 8-sample MLP step" % src)
    inv = struct.unpack("<f", struct.pack("<f", 1.0 / batch))[0]
    text = text.replace("arith.constant 0.125 : f32",
                        "arith.constant %.9e : f32" % inv)
    text = re.sub(r"(?<=[<(])8x", "%dx" % batch, text)
    text = text.replace("tensor<8xf32>", "tensor<%dxf32>" % batch)
    # Transposed activations (32x8) in the backward.
    text = text.replace("x8xf32>", "x%dxf32>" % batch)
    open(out, "w").write(text)


if __name__ == "__main__":
    main()
