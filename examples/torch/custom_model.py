"""A user model for mpt-import-torch's --model FILE.py:FACTORY (or
examples.torch.custom_model:make_model from the repo root).

  tools/mpt-import-torch/mpt-import-torch \
      --model examples/torch/custom_model.py:make_model --optimizer adam -o tiny_cnn.mlir

The factory takes no arguments and returns a torch.nn.Module; the optional
`example_input_shape` attribute gives the batch shape (else --input-shape).
"""

import torch.nn as nn


class TinyCNN(nn.Module):
    example_input_shape = (4, 1, 8, 8)

    def __init__(self, n_classes=5):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, kernel_size=3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(4 * 4 * 4, n_classes)

    def forward(self, x):
        x = self.pool(nn.functional.relu(self.conv(x)))
        return self.fc(x.flatten(1))


def make_model():
    return TinyCNN()
