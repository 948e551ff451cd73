#!/usr/bin/env python3
"""Splits an imported GPT block's --npz (the bundled gpt-block: input
[B, 8, 32] f32, target [B, 8] i64 classes of its 16-way head) for --data
training:

  gpt_data.py STEP.npz STEP.json STATE.npz [DATA.npz BATCHES]

STATE.npz: every argument's value but the data arguments' (for --inputs).
DATA.npz: BATCHES batches of B samples for the data arguments (by index,
argN), drawn with a fixed seed, so that every rank and the single-process
reference read the same batches (a data-parallel rank takes its slice of
each). The target is learnable: the class of the largest of the first 16
features of each token."""
import json
import sys

import numpy as np


def main():
    step_npz, manifest, state_out = sys.argv[1:4]
    args = json.load(open(manifest))["args"]
    data = [a for a in args if a["role"] == "data"]
    values = dict(np.load(step_npz))
    for a in data:
        values.pop("arg%d" % a["index"])
    np.savez(state_out, **values)
    if len(sys.argv) < 6:
        return
    data_out, batches = sys.argv[4], int(sys.argv[5])
    x_arg, y_arg = data
    rng = np.random.default_rng(7)
    x = rng.standard_normal([batches] + x_arg["shape"]).astype(np.float32)
    y = np.argmax(x[..., :16], axis=-1).astype(np.int64)
    np.savez(data_out, **{"arg%d" % x_arg["index"]: x, "arg%d" % y_arg["index"]: y})


if __name__ == "__main__":
    main()
