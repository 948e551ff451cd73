"""Models for batchnorm-statistics.test."""

import torch
import torch.nn as nn


class OffsetChannels(nn.Module):
    """A convolution whose bias dominates its output (every channel's mean
    20, its spread 0.05-0.06: near-constant channels, 1/std 16-20) ->
    BatchNorm2d -> tanh -> spatial mean -> linear; batch 8, 3x32x32, so
    BatchNorm takes the mean of 8192 values a channel.  Summed in f32 one
    value after another (the running sum reaches 1.6e5, where an f32 ulp is
    0.016) that mean is up to 5.7e-5 off, which shifts the normalised
    channel by up to 1.1e-3; summed in f64, as PyTorch's kernel sums it, it
    is the f32 rounding of the exact mean of those values."""
    example_input_shape = (8, 3, 32, 32)

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        with torch.no_grad():
            self.conv.weight.mul_(0.1)
            self.conv.bias.fill_(20.0)
        self.bn = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        return self.fc(torch.tanh(self.bn(self.conv(x))).mean((2, 3)))


def offset_channels():
    return OffsetChannels()
