"""Models whose forward returns something other than a tensor, for
test/Frontend/torch/custom-model.test: the loss reads .logits (as of an HF
ModelOutput) or a tuple's first element; anything else is one error."""

import torch.nn as nn


class Output:
    """Stands for transformers' ModelOutput: the logits as an attribute."""

    def __init__(self, logits, hidden):
        self.logits = logits
        self.hidden = hidden


class Net(nn.Module):
    example_input_shape = (4, 8)

    def __init__(self, kind):
        super().__init__()
        self.fc = nn.Linear(8, 16)
        self.head = nn.Linear(16, 5)
        self.kind = kind

    def forward(self, x):
        h = self.fc(x).relu()
        y = self.head(h)
        if self.kind == "logits":
            return Output(y, h)
        if self.kind == "tuple":
            return y, h
        return {"out": y}


def logits_output():
    return Net("logits")


def tuple_output():
    return Net("tuple")


def dict_output():
    return Net("dict")
