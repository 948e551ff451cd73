"""Models for bench/cpu/survey.py beyond torchvision's classifiers, each a
factory for mpt-import-torch --model bench/cpu/survey_models.py:NAME:
transformers, recurrent networks and a small U-Net, at sizes one CPU core
trains in tens of milliseconds. Input shapes are in each docstring.

  .venv/bin/python bench/cpu/survey.py bench/cpu/survey_models.py:lstm@8,32,64@adamw
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def vit_tiny64():
    """A DeiT-tiny-like ViT on 64x64 images (8x8 patches, 6 layers, width
    192, 3 heads): input N,3,64,64."""
    from torchvision.models.vision_transformer import VisionTransformer
    return VisionTransformer(image_size=64, patch_size=8, num_layers=6, num_heads=3,
                             hidden_dim=192, mlp_dim=768, num_classes=100)


def swin_tiny64():
    """A three-stage Swin transformer (width 48, 4x4 windows): input N,3,64,64."""
    from torchvision.models.swin_transformer import SwinTransformer
    return SwinTransformer(patch_size=[4, 4], embed_dim=48, depths=[2, 2, 2], num_heads=[3, 6, 12],
                           window_size=[4, 4], stochastic_depth_prob=0.0, num_classes=100)


class _Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(32, 256)
        layer = nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.1, batch_first=True,
                                           activation="gelu", norm_first=True)
        self.enc = nn.TransformerEncoder(layer, 4)
        self.head = nn.Linear(256, 10)

    def forward(self, x):
        return self.head(self.enc(self.proj(x)).mean(1))


def transformer_encoder():
    """nn.TransformerEncoder, 4 pre-norm layers of width 256 with dropout,
    mean-pooled: input N,T,32."""
    return _Encoder()


class _Recurrent(nn.Module):
    def __init__(self, cell):
        super().__init__()
        self.rnn = cell(64, 256, num_layers=2, batch_first=True)
        self.head = nn.Linear(256, 10)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.head(y[:, -1])


def lstm():
    """A 2-layer nn.LSTM of width 256 classifying its last output: input N,T,64."""
    return _Recurrent(nn.LSTM)


def gru():
    """A 2-layer nn.GRU of width 256 classifying its last output: input N,T,64."""
    return _Recurrent(nn.GRU)


class _UNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.down1 = nn.Conv2d(3, 32, 3, padding=1)
        self.down2 = nn.Conv2d(32, 64, 3, stride=2, padding=1)
        self.norm = nn.GroupNorm(8, 64)
        self.up = nn.ConvTranspose2d(64, 32, 2, stride=2)
        self.fuse = nn.Conv2d(64, 32, 3, padding=1)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        d1 = F.silu(self.down1(x))
        d2 = F.silu(self.norm(self.down2(d1)))
        u = torch.cat([self.up(d2), d1], 1)
        return self.head(F.silu(self.fuse(u)).mean((2, 3)))


def unet_small():
    """Two levels of a U-Net (a strided convolution down, a transposed one
    up, a skip connection by concatenation), pooled: input N,3,H,W, H and W
    even."""
    return _UNet()


class _AudioEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv1d(1, 64, 10, stride=5), nn.Conv1d(64, 128, 3, stride=2),
                                    nn.Conv1d(128, 128, 3, stride=2), nn.Conv1d(128, 128, 2, stride=2)])
        self.head = nn.Linear(128, 10)

    def forward(self, x):
        for conv in self.convs:
            x = F.gelu(conv(x))
        return self.head(x.mean(2))


def audio_encoder():
    """A speech model's convolutional feature encoder (wav2vec-like, four
    Conv1d of 64-128 channels, strides 5/2/2/2): input N,1,T (raw audio)."""
    return _AudioEncoder()


class _UNet3D(nn.Module):
    def __init__(self):
        super().__init__()
        self.c0 = nn.Conv3d(2, 16, 3, padding=1)
        self.c1 = nn.Conv3d(16, 32, 3, stride=2, padding=1)
        self.c2 = nn.Conv3d(32, 32, 3, padding=1)
        self.up = nn.ConvTranspose3d(32, 16, 2, stride=2)
        self.c3 = nn.Conv3d(32, 16, 3, padding=1)
        self.out = nn.Conv3d(16, 4, 1)

    def forward(self, x):
        a = F.relu(self.c0(x))
        b = F.relu(self.c2(F.relu(self.c1(a))))
        u = F.relu(self.up(b))
        return self.out(F.relu(self.c3(torch.cat([a, u], 1)))).mean((2, 3, 4))


def unet3d_small():
    """A 3-D U-Net (16 and 32 channels, one strided convolution down, one
    transposed convolution up, a skip connection): input N,2,D,H,W."""
    return _UNet3D()
