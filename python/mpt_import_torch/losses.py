"""Losses, written so their backward needs no gather/scatter.

cross-entropy: mean over all positions of -sum_c onehot(y)_c * log_softmax(z)_c,
with integer class targets y of the logits' shape without the last (class)
dimension.  The one-hot is a comparison with arange(C), so the backward is
elementwise; F.cross_entropy's backward lowers to torch-mlir's tm_tensor.scatter,
which upstream MLIR cannot parse.  Numerically it is F.cross_entropy
(reduction='mean', no ignore_index, no label smoothing).
mse: F.mse_loss(z, y), reduction='mean', y float of the output's shape.
l1, smooth-l1 (beta 1), bce-with-logits: F.l1_loss, F.smooth_l1_loss,
F.binary_cross_entropy_with_logits, reduction='mean', y float of the output's
shape (bce-with-logits: 0 or 1); their backward is elementwise as they are.
"""

import torch
import torch.nn.functional as F

from . import UserError

LOSSES = ("cross-entropy", "mse", "l1", "smooth-l1", "bce-with-logits")


def cross_entropy(logits, target):
    n_classes = logits.shape[-1]
    classes = torch.arange(n_classes, device=logits.device)
    onehot = (target.unsqueeze(-1) == classes).to(torch.float32)
    logp = F.log_softmax(logits, dim=-1)
    return -(onehot * logp).sum(dim=-1).mean()


TORCH_LOSSES = {"mse": F.mse_loss, "l1": F.l1_loss, "smooth-l1": F.smooth_l1_loss,
                "bce-with-logits": F.binary_cross_entropy_with_logits}


def get(name):
    if name == "cross-entropy":
        return cross_entropy
    if name in TORCH_LOSSES:
        return TORCH_LOSSES[name]
    raise UserError(f"unknown loss '{name}' (known: {', '.join(LOSSES)})")


def make_target(name, out_shape, generator):
    """A synthetic target batch for a model output shape."""
    if name == "cross-entropy":
        return torch.randint(0, out_shape[-1], tuple(out_shape[:-1]), generator=generator, dtype=torch.int64)
    if name == "bce-with-logits":
        return torch.randint(0, 2, tuple(out_shape), generator=generator).to(torch.float32)
    return torch.randn(tuple(out_shape), generator=generator)
