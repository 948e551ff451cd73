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
