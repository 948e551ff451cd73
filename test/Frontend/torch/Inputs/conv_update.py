"""Compares one SGD step's change of the convolution's weights in bf16 and
f16 with FP32's (adaptive-max-pool-low.test)."""
import sys

import numpy as np

init, f32, bf16, f16 = (np.load(p) for p in sys.argv[1:5])
# Arguments by number: the model's parameters come first, in its order
# (conv.weight is the first).
name = "arg0"
reference = f32[name] - init[name]
assert np.abs(reference).max() > 0, "FP32 did not change the convolution"
for label, run in (("bf16", bf16), ("f16", f16)):
    change = run[name] - init[name]
    error = np.abs(change - reference).max() / np.abs(reference).max()
    print(f"{label} conv update relative error", "ok" if error < 5e-2 else f"{error:.3g} too large")
