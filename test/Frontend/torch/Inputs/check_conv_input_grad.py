"""The importer's input gradient of strided convolutions by phases
(decomp._strided_conv_input_grad) against autograd, in float64, over
geometries that reach every case: strides 2 and 3, odd and even kernels,
a kernel smaller than the stride (phases without taps: zeros), padding
larger and smaller than the stride, sizes that leave the last phase short.
Prints one line per geometry and the worst difference."""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "python"))
from mpt_import_torch import decomp  # noqa: E402

torch.manual_seed(0)
worst = 0.0
# H, W, kernel, stride, padding, C, F
for h, w, k, s, p, c, f in [(10, 9, 3, 2, 1, 3, 4), (8, 8, 1, 2, 0, 2, 3), (7, 11, 3, 2, 0, 2, 2),
                            (12, 12, 7, 2, 3, 3, 2), (9, 10, 3, 3, 1, 2, 3), (16, 16, 4, 2, 1, 2, 2),
                            (5, 5, 2, 3, 0, 2, 2), (11, 6, 5, 2, 2, 1, 3)]:
    x = torch.randn(2, c, h, w, dtype=torch.float64, requires_grad=True)
    weight = torch.randn(f, c, k, k, dtype=torch.float64)
    y = torch.nn.functional.conv2d(x, weight, None, s, p)
    go = torch.randn_like(y)
    (ref,) = torch.autograd.grad(y, x, go)
    got = decomp._strided_conv_input_grad(go, x.detach(), weight, (s, s), (p, p))
    d = (got - ref).abs().max().item() if got.shape == ref.shape else float("inf")
    worst = max(worst, d)
    print(f"{h}x{w} k{k} s{s} p{p}: max |diff| {d:.1e}")
print(f"worst {worst:.1e}", "ok" if worst < 1e-12 else "FAIL")
