"""Models with BatchNorm for batchnorm.test."""

import torch.nn as nn


class BNNet(nn.Module):
    """conv -> BatchNorm2d -> ReLU -> (the same BatchNorm2d's channels pooled)
    -> linear -> BatchNorm1d (momentum 0.3) -> linear; batch 8."""
    example_input_shape = (8, 3, 6, 6)

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn2d = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4, 6)
        self.bn1d = nn.BatchNorm1d(6, momentum=0.3)
        self.out = nn.Linear(6, 5)

    def forward(self, x):
        h = self.bn2d(self.conv(x)).relu().mean((2, 3))
        return self.out(self.bn1d(self.fc(h)).relu())


def bn_net():
    return BNNet()


class BiasBeforeNorm(nn.Module):
    """Convolutions with a bias before BatchNorm1d and GroupNorm: the norm
    removes the bias, so its gradient is zero up to float32 rounding."""
    example_input_shape = (4, 2, 64)

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(2, 16, 5, stride=2, padding=2)
        self.bn = nn.BatchNorm1d(16)
        self.c2 = nn.Conv1d(16, 32, 3, padding=1)
        self.gn = nn.GroupNorm(4, 32)
        self.out = nn.Linear(32, 6)

    def forward(self, x):
        x = nn.functional.silu(self.bn(self.c1(x)))
        return self.out(self.gn(self.c2(x)).mean(-1))


def bias_before_norm():
    return BiasBeforeNorm()
