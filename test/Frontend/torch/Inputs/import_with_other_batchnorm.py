"""mpt-import-torch with another native_batch_norm than the importer's own
(decomp.OWN), for batchnorm-statistics.test:
  torch-mlir: torch-mlir's lowering (normalises with a mean summed in f32):
              correct, less accurate;
  unbiased:   the variance divided by N - 1 instead of N: wrong."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "python"))
import torch  # noqa: E402
from mpt_import_torch import cli, decomp  # noqa: E402

aten = torch.ops.aten


def unbiased_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    dims = [0] + list(range(2, input.dim()))
    shape = [1, input.shape[1]] + [1] * (input.dim() - 2)
    mean = input.mean(dims)
    rstd = torch.rsqrt(input.var(dims, correction=1) + eps)
    out = (input - mean.reshape(shape)) * rstd.reshape(shape) * weight.reshape(shape) + bias.reshape(shape)
    return out, mean, rstd


mode = sys.argv.pop(1)
if mode == "torch-mlir":
    del decomp.OWN[aten.native_batch_norm.default]
else:
    decomp.OWN[aten.native_batch_norm.default] = unbiased_batch_norm
sys.exit(cli.main(sys.argv[1:]))
