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


def densenet121():
    """torchvision densenet121 itself (growth 32, blocks (6, 12, 24, 16)) at
    32x32: its four blocks run at 8, 4, 2 and 1 pixels."""
    m = _tv().densenet121(num_classes=N_CLASSES)
    m.example_input_shape = (2, 3, 32, 32)
    return m


def convnext_tiny():
    """torchvision convnext_tiny itself (4 stages, (3, 3, 9, 3) blocks,
    96..768, stochastic depth 0.1) at 32x32."""
    m = _tv().convnext_tiny(num_classes=N_CLASSES)
    m.example_input_shape = (2, 3, 32, 32)
    return m


def vit_b_16():
    """torchvision vit_b_16's architecture (12 layers, 12 heads, width 768,
    MLP 3072, patch 16) at 32x32: 4 patches and the class token."""
    m = _tv().VisionTransformer(image_size=32, patch_size=16, num_layers=12, num_heads=12, hidden_dim=768,
                                mlp_dim=3072, num_classes=N_CLASSES)
    m.example_input_shape = (2, 3, 32, 32)
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


class Logits(nn.Module):
    """An HF `transformers` model as a model of token ids -> logits: the
    library's model called as its model card does, its ModelOutput's
    .logits (the loss is the importer's cross-entropy on them; HF's own
    loss goes through F.cross_entropy with ignore_index).  `decoder`: the
    ids are also the decoder's input (T5, an encoder-decoder)."""

    def __init__(self, model, vocab, seq, decoder=False):
        super().__init__()
        self.model = model
        self.vocab = vocab
        self.decoder = decoder
        self.example_input_shape = (2, seq)

    def make_example_input(self, shape, generator):
        return torch.randint(0, self.vocab, shape, generator=generator)

    def forward(self, ids):
        if self.decoder:
            return self.model(input_ids=ids, decoder_input_ids=ids).logits
        return self.model(input_ids=ids).logits


# Tiny random-weight configurations of HF transformers (no weights are
# downloaded: the configs are written here): the library's classes at
# vocabulary 128, width 32, 2 layers, 4 heads, sequence 16, with their
# default dropout (0.1, hidden and attention) and attention implementation.
HF_TINY = dict(vocab=128, d=32, layers=2, heads=4, ff=64, seq=16)


def hf_bert():
    from transformers import BertConfig, BertForMaskedLM
    t = HF_TINY
    cfg = BertConfig(vocab_size=t["vocab"], hidden_size=t["d"], num_hidden_layers=t["layers"],
                     num_attention_heads=t["heads"], intermediate_size=t["ff"], max_position_embeddings=2 * t["seq"])
    return Logits(BertForMaskedLM(cfg), t["vocab"], t["seq"])


def hf_gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel
    t = HF_TINY
    cfg = GPT2Config(vocab_size=t["vocab"], n_positions=2 * t["seq"], n_embd=t["d"], n_layer=t["layers"],
                     n_head=t["heads"], bos_token_id=0, eos_token_id=0)
    return Logits(GPT2LMHeadModel(cfg), t["vocab"], t["seq"])


def hf_t5():
    from transformers import T5Config, T5ForConditionalGeneration
    t = HF_TINY
    cfg = T5Config(vocab_size=t["vocab"], d_model=t["d"], d_kv=t["d"] // t["heads"], d_ff=t["ff"],
                   num_layers=t["layers"], num_decoder_layers=t["layers"], num_heads=t["heads"],
                   relative_attention_num_buckets=8, decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)
    return Logits(T5ForConditionalGeneration(cfg), t["vocab"], t["seq"], decoder=True)


def _timm():
    import timm
    return timm


def timm_resnet10t():
    """timm resnet10t: ResNet-D (3-conv stem, average-pool downsampling with
    ceil_mode and count_include_pad=False), 64x64, batch 8."""
    m = _timm().create_model("resnet10t", num_classes=N_CLASSES)
    m.example_input_shape = (8, 3, 64, 64)
    return m


def timm_vit_tiny():
    """timm vit_tiny_patch16_224's configuration (width 192, 3 heads, MLP 768,
    class token, pre-LN) at 32x32 with patch 8 and depth 2 (vit_tiny: 224,
    16, 12)."""
    m = _timm().create_model("vit_tiny_patch16_224", img_size=32, patch_size=8, depth=2,
                             num_classes=N_CLASSES, drop_rate=0.1, attn_drop_rate=0.1)
    m.example_input_shape = (4, 3, 32, 32)
    return m


# The held-out list (docs/ModelZoo.md): models nobody here had tried,
# drawn with random.Random(12) before any was run (the draw is
# bench/zoo/draw_held_out.py): 4 torchvision architecture classes not in the
# zoo (the smallest builder of each), 3 timm names of list_models() outside
# the zoo's families with <= 30M parameters, 3 HF model types of the
# causal/masked LM auto mappings other than BERT, GPT-2 and T5.  Each is
# the library's builder with its defaults, at the zoo's small sizes: 10
# classes, 64x64 images, batch 4 (a size the architecture needs is said),
# HF configs shrunk as HF_TINY.


def _tv_model(name, shape=(4, 3, 64, 64), **kw):
    m = _tv().get_model(name, num_classes=N_CLASSES, **kw)
    m.example_input_shape = shape
    return m


def tv_swin_t():
    return _tv_model("swin_t")


def tv_maxvit_t():
    # Its windows (partition 7) need 224x224; at 64x64 the feature maps are
    # 32..2, so partition 2 (the architecture otherwise maxvit_t's).
    from torchvision.models.maxvit import MaxVit
    m = MaxVit(input_size=(64, 64), stem_channels=64, partition_size=2, block_channels=[64, 128, 256, 512],
               block_layers=[2, 2, 5, 2], head_dim=32, stochastic_depth_prob=0.2, num_classes=N_CLASSES)
    m.example_input_shape = (4, 3, 64, 64)
    return m


def tv_mobilenet_v2():
    return _tv_model("mobilenet_v2")


def tv_vgg11():
    return _tv_model("vgg11", shape=(2, 3, 32, 32))


def _timm_model(name, shape=(4, 3, 64, 64), **kw):
    m = _timm().create_model(name, num_classes=N_CLASSES, **kw)
    m.example_input_shape = shape
    return m


def timm_xcit_tiny():
    return _timm_model("xcit_tiny_12_p8_384", img_size=64)


def timm_efficientvim_m2():
    return _timm_model("efficientvim_m2")


def timm_repghostnet_111():
    return _timm_model("repghostnet_111")


def _hf_tiny(model_type, auto, **extra):
    """model_type's config with the HF_TINY sizes under whichever names it
    uses, and the model class `auto` (AutoModelForCausalLM / ForMaskedLM)
    maps it to."""
    import transformers
    t = HF_TINY
    sizes = dict(vocab_size=t["vocab"], hidden_size=t["d"], n_embd=t["d"], emb_dim=t["d"],
                 num_hidden_layers=t["layers"], n_layer=t["layers"], n_layers=t["layers"],
                 num_attention_heads=t["heads"], n_head=t["heads"], n_heads=t["heads"],
                 intermediate_size=t["ff"], max_position_embeddings=4 * t["seq"], n_positions=4 * t["seq"],
                 # Grouped-query attention where the family has it (2 key/value
                 # heads for 4 query heads), and the head size that follows
                 # from d (families that fix head_dim default to 64 or 128).
                 num_key_value_heads=t["heads"] // 2, head_dim=t["d"] // t["heads"])
    cfg = transformers.AutoConfig.for_model(model_type)
    for k, v in {**sizes, **extra}.items():
        if hasattr(cfg, k):
            try:
                setattr(cfg, k, v)
            except AttributeError:  # derived (a property: Falcon's head_dim)
                pass
    for k in ("pad_token_id", "bos_token_id", "eos_token_id"):
        if getattr(cfg, k, None) is not None and getattr(cfg, k) >= t["vocab"]:
            setattr(cfg, k, 0)
    return Logits(getattr(transformers, auto).from_config(cfg), t["vocab"], t["seq"])


def hf_llama():
    return _hf_tiny("llama", "AutoModelForCausalLM")


def hf_mixtral():
    """4 experts, top-2, with transformers' default experts (grouped_mm: a
    sort of the expert ids, histc counts, F.grouped_mm)."""
    return _hf_tiny("mixtral", "AutoModelForCausalLM", num_local_experts=4, num_experts_per_tok=2)


def hf_longformer():
    return _hf_tiny("longformer", "AutoModelForMaskedLM", attention_window=8)


def hf_openai_gpt():
    return _hf_tiny("openai-gpt", "AutoModelForCausalLM")


def hf_xlm():
    return _hf_tiny("xlm", "AutoModelForCausalLM")


# The second held-out draw (bench/zoo/draw_held_out.py, random.Random(13),
# after the first list's models ran): 4 timm names outside the zoo's and the
# first draw's families (<= 30M parameters) and 5 transformers LM types other
# than the zoo's and the first draw's, at the same small sizes.
def timm_mobilenetv4():
    return _timm_model("mobilenetv4_conv_aa_medium")


def timm_gcvit_tiny():
    return _timm_model("gcvit_tiny", img_size=64)


def timm_lcnetv2():
    return _timm_model("lcnetv2_large")


def timm_efficientnet_cc():
    return _timm_model("efficientnet_cc_b0_4e")


def hf_bloom():
    return _hf_tiny("bloom", "AutoModelForCausalLM")


def hf_ministral3():
    return _hf_tiny("ministral3", "AutoModelForCausalLM")


def hf_falcon():
    return _hf_tiny("falcon", "AutoModelForCausalLM")


def hf_roformer():
    return _hf_tiny("roformer", "AutoModelForMaskedLM")


def hf_git():
    return _hf_tiny("git", "AutoModelForCausalLM")


# 1-D and 3-D convolutions, dilated convolutions and upsampling (December
# 2026): a video model, a segmentation model and a speech model.
def tv_r3d_18():
    """torchvision r3d_18 (a 3-D ResNet-18 for video), 4 frames of 32x32."""
    m = _tv().video.r3d_18(num_classes=N_CLASSES)
    m.example_input_shape = (2, 3, 4, 32, 32)
    return m


class PixelLogits(nn.Module):
    """A torchvision segmentation model's output["out"] [N, C, H, W] as
    per-pixel logits [N, H, W, C] (the importer's cross-entropy is over the
    last dimension, one target class per pixel)."""

    def __init__(self, model, shape):
        super().__init__()
        self.model = model
        self.example_input_shape = shape

    def forward(self, x):
        return self.model(x)["out"].permute(0, 2, 3, 1)


def tv_deeplabv3():
    # Dilated (atrous) convolutions in the backbone's last stage and ASPP,
    # bilinear upsampling of the logits to the input size.
    m = _tv().segmentation.deeplabv3_mobilenet_v3_large(num_classes=N_CLASSES, weights=None,
                                                        weights_backbone=None, aux_loss=False)
    return PixelLogits(m, (4, 3, 64, 64))


class AudioLogits(nn.Module):
    """An HF audio model as a model of raw audio [N, T] -> logits."""

    def __init__(self, model, samples):
        super().__init__()
        self.model = model
        self.example_input_shape = (2, samples)

    def forward(self, audio):
        return self.model(input_values=audio).logits


def hf_wav2vec2():
    """transformers Wav2Vec2ForSequenceClassification, tiny: its
    convolutional feature encoder (Conv1d, kernels 10/3/3, strides 5/2/2)
    and grouped convolutional position embedding (Conv1d, 4 groups, kernel
    16), 2 transformer layers of width 32. SpecAugment masking and layer drop
    are off: both draw with numpy / Python randomness outside the traced
    step."""
    from transformers import Wav2Vec2Config, Wav2Vec2ForSequenceClassification
    cfg = Wav2Vec2Config(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                         conv_dim=(16, 16, 16), conv_stride=(5, 2, 2), conv_kernel=(10, 3, 3),
                         num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4, num_labels=N_CLASSES,
                         classifier_proj_size=16, apply_spec_augment=False, mask_time_prob=0.0, layerdrop=0.0)
    return AudioLogits(Wav2Vec2ForSequenceClassification(cfg), 1600)


class Entry:
    """A zoo model: factory, optimizer flags, what it is, `fast` (runs in
    the lit suite), and `requires`: optional packages
    (python/requirements-zoo.txt) without which it is skipped."""

    def __init__(self, factory, flags, desc, fast=False, requires=(), held_out=False):
        self.factory, self.flags, self.desc, self.fast, self.requires = factory, flags, desc, fast, requires
        self.held_out = held_out

    def missing(self):
        """The required packages that do not import, or []."""
        import importlib
        out = []
        for r in self.requires:
            try:
                importlib.import_module(r)
            except ImportError:
                out.append(r)
        return out


SGD = ["--optimizer", "sgd", "--lr", "0.01"]
ADAMW = ["--optimizer", "adamw", "--lr", "1e-3"]
ADAM = ["--optimizer", "adam", "--lr", "1e-3"]
ZOO = {
    "resnet18": Entry(resnet18, SGD, "torchvision resnet18, 64x64, batch 8"),
    "mobilenet_v3_small": Entry(mobilenet_v3_small, SGD, "torchvision mobilenet_v3_small, 32x32"),
    "efficientnet_b0": Entry(efficientnet_b0, SGD, "torchvision efficientnet_b0, 64x64, batch 8"),
    "shufflenet_v2_x0_5": Entry(shufflenet_v2_x0_5, SGD, "torchvision shufflenet_v2_x0_5, 64x64, batch 8"),
    "squeezenet1_0": Entry(squeezenet1_0, SGD, "torchvision squeezenet1_0, 64x64"),
    "densenet (small)": Entry(densenet_small, SGD, "torchvision DenseNet, growth 8, blocks (2,2)"),
    "convnext (small)": Entry(convnext_small, ADAMW, "torchvision ConvNeXt, 2 stages of 1 block, 16/32"),
    "vit (small)": Entry(vit_small, ADAMW, "torchvision VisionTransformer 32x32/8, 2 layers, d=32", fast=True),
    "densenet121": Entry(densenet121, SGD, "torchvision densenet121, 32x32, batch 2"),
    "convnext_tiny": Entry(convnext_tiny, ADAMW, "torchvision convnext_tiny, 32x32, batch 2"),
    "vit_b_16": Entry(vit_b_16, ADAMW, "torchvision VisionTransformer, vit_b_16's architecture, 32x32/16, batch 2"),
    "transformer_encoder": Entry(transformer_encoder, ADAMW, "nn.TransformerEncoder 2x d=32 h=4", fast=True),
    "gpt": Entry(gpt, ADAMW, "GPT: embeddings, causal SDPA, tied head, vocab 64, 2x d=32", fast=True),
    "lstm": Entry(lstm, ADAM, "nn.LSTM 2 layers, 16->32, T=8", fast=True),
    "gru": Entry(gru, ADAM, "nn.GRU 2 layers, 16->32, T=8", fast=True),
    "hf bert (tiny)": Entry(hf_bert, ADAMW, "transformers BertForMaskedLM, vocab 128, 2x d=32 h=4, T=16",
                            requires=("transformers",)),
    "hf gpt2 (tiny)": Entry(hf_gpt2, ADAMW, "transformers GPT2LMHeadModel, vocab 128, 2x d=32 h=4, T=16",
                            requires=("transformers",)),
    "hf t5 (tiny)": Entry(hf_t5, ADAMW, "transformers T5ForConditionalGeneration, vocab 128, 2+2x d=32 h=4, "
                          "T=16 (decoder input = input)", requires=("transformers",)),
    "timm resnet10t": Entry(timm_resnet10t, SGD, "timm resnet10t (ResNet-D), 64x64, batch 8", requires=("timm",)),
    "timm vit_tiny (small)": Entry(timm_vit_tiny, ADAMW, "timm vit_tiny_patch16_224 config at 32x32/8, depth 2",
                                   requires=("timm",)),
    "r3d_18": Entry(tv_r3d_18, SGD, "torchvision r3d_18 (video, 3-D convolutions), 4x32x32, batch 2"),
    "deeplabv3_mobilenet_v3_large": Entry(tv_deeplabv3, SGD, "torchvision DeepLabV3 (MobileNetV3-large, dilated "
                                          "convolutions, bilinear upsampling), 64x64, batch 4, per-pixel classes"),
    "hf llama (tiny)": Entry(hf_llama, ADAMW, "transformers LlamaForCausalLM, tiny, 2 KV heads",
                             requires=("transformers",)),
    "hf mixtral (tiny)": Entry(hf_mixtral, ADAMW, "transformers MixtralForCausalLM, tiny, 2 KV heads, 4 experts, "
                               "top-2 (grouped_mm experts)", requires=("transformers",)),
    "hf wav2vec2 (tiny)": Entry(hf_wav2vec2, ADAMW, "transformers Wav2Vec2ForSequenceClassification, tiny, "
                                "1600 samples (Conv1d encoder)", requires=("transformers",)),
    # The held-out list (above): run as drawn, never tuned to pass.
    "swin_t": Entry(tv_swin_t, ADAMW, "torchvision swin_t, 64x64", held_out=True),
    "maxvit_t": Entry(tv_maxvit_t, ADAMW, "torchvision MaxVit (maxvit_t's), 64x64, partition 2", held_out=True),
    "mobilenet_v2": Entry(tv_mobilenet_v2, SGD, "torchvision mobilenet_v2, 64x64", held_out=True),
    "vgg11": Entry(tv_vgg11, SGD, "torchvision vgg11, 32x32, batch 2", held_out=True),
    "timm xcit_tiny_12_p8": Entry(timm_xcit_tiny, ADAMW, "timm xcit_tiny_12_p8_384 at 64x64", requires=("timm",),
                                  held_out=True),
    "timm efficientvim_m2": Entry(timm_efficientvim_m2, ADAMW, "timm efficientvim_m2, 64x64", requires=("timm",),
                                  held_out=True),
    "timm repghostnet_111": Entry(timm_repghostnet_111, SGD, "timm repghostnet_111, 64x64", requires=("timm",),
                                  held_out=True),
    "hf longformer (tiny)": Entry(hf_longformer, ADAMW, "transformers Longformer masked LM, tiny, window 8",
                                  requires=("transformers",), held_out=True),
    "hf openai-gpt (tiny)": Entry(hf_openai_gpt, ADAMW, "transformers OpenAIGPTLMHeadModel, tiny",
                                  requires=("transformers",), held_out=True),
    "hf xlm (tiny)": Entry(hf_xlm, ADAMW, "transformers XLMWithLMHeadModel, tiny", requires=("transformers",),
                           held_out=True),
    # The second held-out draw (above).
    "timm mobilenetv4_conv_aa_medium": Entry(timm_mobilenetv4, SGD, "timm mobilenetv4_conv_aa_medium, 64x64",
                                             requires=("timm",), held_out=2),
    "timm gcvit_tiny": Entry(timm_gcvit_tiny, ADAMW, "timm gcvit_tiny at 64x64", requires=("timm",), held_out=2),
    "timm lcnetv2_large": Entry(timm_lcnetv2, SGD, "timm lcnetv2_large, 64x64", requires=("timm",), held_out=2),
    "timm efficientnet_cc_b0_4e": Entry(timm_efficientnet_cc, SGD, "timm efficientnet_cc_b0_4e (CondConv), 64x64",
                                        requires=("timm",), held_out=2),
    "hf bloom (tiny)": Entry(hf_bloom, ADAMW, "transformers BloomForCausalLM, tiny (ALiBi, custom GeLU Function)",
                             requires=("transformers",), held_out=2),
    "hf ministral3 (tiny)": Entry(hf_ministral3, ADAMW, "transformers Ministral3 causal LM, tiny, 2 KV heads",
                                  requires=("transformers",), held_out=2),
    "hf falcon (tiny)": Entry(hf_falcon, ADAMW, "transformers FalconForCausalLM, tiny", requires=("transformers",),
                              held_out=2),
    "hf roformer (tiny)": Entry(hf_roformer, ADAMW, "transformers RoFormerForMaskedLM, tiny",
                                requires=("transformers",), held_out=2),
    "hf git (tiny)": Entry(hf_git, ADAMW, "transformers GitForCausalLM, tiny (text only)",
                           requires=("transformers",), held_out=2),
}
