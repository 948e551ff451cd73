"""The models of bench/memory/memory.py, as mpt-import-torch factories
(--model bench/memory/models.py:NAME) and for the PyTorch measurements.

  resnet18   torchvision ResNet-18, 10 classes (input 3x64x64)
  gpt_block  one GPT-2 style pre-LN block, d=256, 4 heads, T=128, a 256-class
             per-token head (mpt-import-torch's gpt-block, larger)
  gpt4       four such blocks, then the final LayerNorm and the head
"""
import os
import sys

import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from mpt_import_torch.models import CausalSelfAttention, GPTBlock, resnet18  # noqa: E402,F401

D_MODEL, N_HEADS, SEQ_LEN, N_CLASSES = 256, 4, 128, 256


class Block(nn.Module):
    """GPTBlock without its head: x + attn(ln1(x)), then x + mlp(ln2(x))."""

    def __init__(self, d_model, n_heads, seq_len):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, n_heads, seq_len)
        self.ln2 = nn.LayerNorm(d_model)
        self.fc = nn.Linear(d_model, 4 * d_model)
        self.fc_proj = nn.Linear(4 * d_model, d_model)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.fc_proj(nn.functional.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, n_blocks, d_model=D_MODEL, n_heads=N_HEADS, seq_len=SEQ_LEN,
                 n_classes=N_CLASSES):
        super().__init__()
        self.blocks = nn.Sequential(*[Block(d_model, n_heads, seq_len) for _ in range(n_blocks)])
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, n_classes)

    def forward(self, x):
        return self.head(self.ln_f(self.blocks(x)))


def gpt_block():
    return GPTBlock(d_model=D_MODEL, n_heads=N_HEADS, seq_len=SEQ_LEN, n_classes=N_CLASSES)


def gpt4():
    return GPT(4)


# name: (factory, shape of one sample, optimizer and its mpt-import-torch options)
MODELS = {
    "resnet18": (resnet18, (3, 64, 64), ["--optimizer", "sgd", "--lr", "0.01", "--momentum", "0.9"]),
    "gpt_block": (gpt_block, (SEQ_LEN, D_MODEL), ["--optimizer", "adamw", "--lr", "1e-3"]),
    "gpt4": (gpt4, (SEQ_LEN, D_MODEL), ["--optimizer", "adamw", "--lr", "1e-3"]),
}
