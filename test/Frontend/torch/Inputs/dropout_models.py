"""Models with dropout for dropout.test."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class MaskProbe(nn.Module):
    """out = dropout(w) + 0 * x with w = ones(64, 64) and p = 0.5: after one
    SGD step (no momentum) an element of w has moved iff dropout kept it
    (its gradient, 2 (w / (1-p) - t) / (1-p) / 4096 for an MSE target t ~
    N(0, 1), is zero only where t = 2 exactly)."""
    example_input_shape = (64, 64)

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(64, 64))

    def forward(self, x):
        return F.dropout(self.w, 0.5, training=True) + 0.0 * x


def mask_probe():
    return MaskProbe()


class DropoutNet(nn.Module):
    """nn.Dropout after a linear layer and attention dropout inside
    scaled_dot_product_attention (two random ops per step)."""
    example_input_shape = (2, 4, 8)

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.drop = nn.Dropout(0.25)
        self.out = nn.Linear(8, 5)

    def forward(self, x):
        h = self.drop(self.fc(x))
        h = F.scaled_dot_product_attention(h, h, h, dropout_p=0.5)
        return self.out(h)


def dropout_net():
    return DropoutNet()


class DropPathNet(nn.Module):
    """Stochastic depth as transformers' drop_path writes it (Segformer, Swin,
    BEiT, ConvNeXt with drop_path_rate > 0): keep_prob + torch.rand per
    sample, floored, scaling a residual branch."""
    example_input_shape = (16, 8)

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.branch = nn.Linear(8, 8)
        self.out = nn.Linear(8, 3)

    def forward(self, x):
        h = self.fc(x)
        keep = 0.5
        mask = (keep + torch.rand((h.shape[0], 1), dtype=h.dtype, device=h.device)).floor_()
        return self.out(h + self.branch(h).div(keep) * mask)


def drop_path_net():
    return DropPathNet()
