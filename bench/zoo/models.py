"""The model zoo (bench/zoo/zoo.py): factories for mpt-import-torch's
--model bench/zoo/models.py:FACTORY.

Every model is the library's own code (torchvision's classes, torch.nn's
modules) at a small size: the real architecture where it is small enough to
compile in minutes on 2 cores, else the same class with fewer/narrower
layers (said in ZOO below).  Dropout and stochastic depth are the library's
defaults (ViT: 0.1 where torchvision's default is 0; the GPT: 0.1): their
masks come from the step's rng_state (mpt_import_torch/rng.py), and the
eager reference draws the same masks.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

N_CLASSES = 10


def _tv():
    import torchvision
    return torchvision.models


# ResNet-18, EfficientNet and ShuffleNet at 64x64, batch 8: at 32x32, batch 4
# their last feature maps are 1x1 and BatchNorm normalises over 4 values,
# which turns rounding into the result (one-ulp noise on the initial weights
# moves eager FP32's step-0 loss by 3e-4 and, 2 SGD steps later, by 5.7 for
# EfficientNet, by 3.8e-2 for ResNet-18: the losses are noise and no
# comparison can pass or fail on them).


def resnet18():
    m = _tv().resnet18(num_classes=N_CLASSES)
    m.example_input_shape = (8, 3, 64, 64)
    return m


def mobilenet_v3_small():
    m = _tv().mobilenet_v3_small(num_classes=N_CLASSES)
    m.example_input_shape = (4, 3, 32, 32)
    return m


def efficientnet_b0():
    m = _tv().efficientnet_b0(num_classes=N_CLASSES)
    m.example_input_shape = (8, 3, 64, 64)
    return m


def shufflenet_v2_x0_5():
    m = _tv().shufflenet_v2_x0_5(num_classes=N_CLASSES)
    m.example_input_shape = (8, 3, 64, 64)
    return m


def squeezenet1_0():
    m = _tv().squeezenet1_0(num_classes=N_CLASSES)
    m.example_input_shape = (4, 3, 64, 64)  # ceil-mode max pools: 32x32 would pool to nothing
    return m


def densenet_small():
    """torchvision DenseNet (densenet121's class and layers), growth 8,
    blocks (2, 2), 16 initial features (densenet121: 32, (6, 12, 24, 16), 64)."""
    m = _tv().DenseNet(growth_rate=8, block_config=(2, 2), num_init_features=16, bn_size=2,
                       num_classes=N_CLASSES)
    m.example_input_shape = (4, 3, 32, 32)
    return m


def convnext_small():
    """torchvision ConvNeXt (convnext_tiny's class: 7x7 depthwise conv,
    LayerNorm2d, layer scale), 2 stages of 1 block, widths 16/32
    (convnext_tiny: 4 stages, (3, 3, 9, 3) blocks, 96..768)."""
    from torchvision.models.convnext import CNBlockConfig
    m = _tv().ConvNeXt([CNBlockConfig(16, 32, 1), CNBlockConfig(32, None, 1)],
                       stochastic_depth_prob=0.1, num_classes=N_CLASSES)  # convnext_tiny's
    m.example_input_shape = (4, 3, 32, 32)
    return m


def vit_small():
    """torchvision VisionTransformer (vit_b_16's class), 32x32 images, patch
    8, 2 layers, 2 heads, width 32, MLP 64 (vit_b_16: 224, 16, 12, 12, 768, 3072)."""
    m = _tv().VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32,
                                mlp_dim=64, dropout=0.1, attention_dropout=0.1, num_classes=N_CLASSES)
    m.example_input_shape = (4, 3, 32, 32)
    return m


class TransformerEncoderClassifier(nn.Module):
    """nn.TransformerEncoder (2 layers, d=32, 4 heads, GELU), per-token classes."""
    example_input_shape = (2, 8, 32)

    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(32, 4, 64, activation="gelu", batch_first=True)  # dropout 0.1
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(32, N_CLASSES)

    def forward(self, x):
        return self.head(self.enc(x))


def transformer_encoder():
    return TransformerEncoderClassifier()


class GPTBlock(nn.Module):
    def __init__(self, d, heads, dropout):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"), nn.Linear(4 * d, d),
                                 nn.Dropout(dropout))
        self.dropout = dropout

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                           dropout_p=self.dropout if self.training else 0.0)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    """nanoGPT-style: token + position embeddings, 2 pre-LN blocks with causal
    SDPA, tanh GELU, final LayerNorm, output head tied to the token embedding."""
    example_input_shape = (2, 16)

    def __init__(self, vocab=64, d=32, heads=4, layers=2, seq=16, dropout=0.1):
        super().__init__()
        self.vocab = vocab
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(seq, d)
        self.drop = nn.Dropout(dropout)
        self.blocks = nn.ModuleList(GPTBlock(d, heads, dropout) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.wte.weight  # weight tying
        for p in self.parameters():
            if p.dim() == 2:
                nn.init.normal_(p, std=0.02)
        self.register_buffer("pos", torch.arange(seq), persistent=False)

    def make_example_input(self, shape, generator):
        return torch.randint(0, self.vocab, shape, generator=generator)

    def forward(self, ids):
        x = self.drop(self.wte(ids) + self.wpe(self.pos[: ids.shape[1]]))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln_f(x))


def gpt():
    return GPT()


class RNNClassifier(nn.Module):
    example_input_shape = (4, 8, 16)

    def __init__(self, cell):
        super().__init__()
        self.rnn = cell(16, 32, num_layers=2, batch_first=True)
        self.head = nn.Linear(32, N_CLASSES)

    def forward(self, x):
        out = self.rnn(x)[0]
        return self.head(out[:, -1])


def lstm():
    return RNNClassifier(nn.LSTM)


def gru():
    return RNNClassifier(nn.GRU)


# name -> (factory, optimizer flags, what it is, fast: runs in the lit suite)
ZOO = {
    "resnet18": (resnet18, ["--optimizer", "sgd", "--lr", "0.01"], "torchvision resnet18, 64x64, batch 8", False),
    "mobilenet_v3_small": (mobilenet_v3_small, ["--optimizer", "sgd", "--lr", "0.01"],
                           "torchvision mobilenet_v3_small, 32x32", False),
    "efficientnet_b0": (efficientnet_b0, ["--optimizer", "sgd", "--lr", "0.01"],
                        "torchvision efficientnet_b0, 64x64, batch 8", False),
    "shufflenet_v2_x0_5": (shufflenet_v2_x0_5, ["--optimizer", "sgd", "--lr", "0.01"],
                           "torchvision shufflenet_v2_x0_5, 64x64, batch 8", False),
    "squeezenet1_0": (squeezenet1_0, ["--optimizer", "sgd", "--lr", "0.01"],
                      "torchvision squeezenet1_0, 64x64", False),
    "densenet (small)": (densenet_small, ["--optimizer", "sgd", "--lr", "0.01"],
                         "torchvision DenseNet, growth 8, blocks (2,2)", False),
    "convnext (small)": (convnext_small, ["--optimizer", "adamw", "--lr", "1e-3"],
                         "torchvision ConvNeXt, 2 stages of 1 block, 16/32", False),
    "vit (small)": (vit_small, ["--optimizer", "adamw", "--lr", "1e-3"],
                    "torchvision VisionTransformer 32x32/8, 2 layers, d=32", True),
    "transformer_encoder": (transformer_encoder, ["--optimizer", "adamw", "--lr", "1e-3"],
                            "nn.TransformerEncoder 2x d=32 h=4", True),
    "gpt": (gpt, ["--optimizer", "adamw", "--lr", "1e-3"],
            "GPT: embeddings, causal SDPA, tied head, vocab 64, 2x d=32", True),
    "lstm": (lstm, ["--optimizer", "adam", "--lr", "1e-3"], "nn.LSTM 2 layers, 16->32, T=8", True),
    "gru": (gru, ["--optimizer", "adam", "--lr", "1e-3"], "nn.GRU 2 layers, 16->32, T=8", True),
}
