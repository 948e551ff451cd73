#!/usr/bin/env python3
"""The draw of the model zoo's held-out list (docs/ModelZoo.md, models.py's
held-out entries), kept to show how it was chosen; rerunning it prints the
same draw with the pinned torchvision, timm and transformers (about 2
minutes: it builds every torchvision classifier to count parameters).
  .venv/bin/python bench/zoo/draw_held_out.py
"""
import warnings

warnings.filterwarnings("ignore")
import random, torch, torchvision, timm, transformers
from transformers.models.auto import modeling_auto as ma
rng = random.Random(12)
# torchvision: one builder (the smallest by parameters) per architecture class not in the zoo
zoo_classes = {"ResNet", "MobileNetV3", "EfficientNet", "ShuffleNetV2", "SqueezeNet", "DenseNet", "ConvNeXt", "VisionTransformer"}
fams = {}
for n in torchvision.models.list_models(module=torchvision.models):
    m = torchvision.models.get_model(n)
    c = type(m).__name__
    p = sum(x.numel() for x in m.parameters())
    if c not in zoo_classes and (c not in fams or p < fams[c][1]):
        fams[c] = (n, p)
print("tv families", sorted(fams.items()))
tv = rng.sample(sorted(fams), 4)
print("tv draw", [(c, fams[c]) for c in tv])
# timm: names from list_models(), excluding families in the zoo here; <= 30M params
names = timm.list_models()


def draw_timm(rng, count, excluded):
    """`count` timm names of at most 30M parameters whose family (the name's
    first part without digits) is not in `excluded`; (picked, tried)."""
    picked, tried = [], []
    while len(picked) < count:
        n = rng.choice(names)
        if n.split("_")[0].rstrip("0123456789") in excluded or n in tried:
            tried.append(n); continue
        tried.append(n)
        try:
            with torch.device("meta"):
                m = timm.create_model(n, pretrained=False)
            p = sum(x.numel() for x in m.parameters())
        except Exception as e:
            print("timm skip", n, type(e).__name__); continue
        if p > 30e6:
            print("timm skip", n, f"{p/1e6:.0f}M"); continue
        picked.append((n, p))
    return picked, tried


picked, tried = draw_timm(rng, 3, ("resnet", "vit"))
print("timm draw", picked, "tried", tried)
types = sorted(set(ma.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES) | set(ma.MODEL_FOR_MASKED_LM_MAPPING_NAMES))
types = [t for t in types if t not in ("bert", "gpt2", "t5")]
print(len(types))
print("hf order", rng.sample(types, 12))

# The second draw (docs/ModelZoo.md, "Second held-out draw"), after the first
# list had run: timm and transformers names outside the zoo's and the first
# draw's families.
rng = random.Random(13)
picked, _ = draw_timm(rng, 4, {"xcit", "efficientvim", "repghostnet", "resnet", "vit"})
print("second timm draw", picked)
types = [t for t in types if t not in ("longformer", "openai-gpt", "xlm")]
print("second hf draw", rng.sample(types, 6))
