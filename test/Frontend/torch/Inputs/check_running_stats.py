"""Compares the BatchNorm running statistics mpt-run saved after N steps of
bn_net (batchnorm_models.py) with eager PyTorch's own (BatchNorm modules that
track running statistics, F.cross_entropy, torch.optim.SGD lr 0.05 momentum
0.9, the importer's initial weights and batch, repeated):
usage check_running_stats.py STEP.npz SAVED.npz STEPS RTOL ATOL."""

import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import batchnorm_models  # noqa: E402

init, saved = np.load(sys.argv[1]), np.load(sys.argv[2])
steps, rtol, atol = int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
model = batchnorm_models.bn_net().train()
params = list(model.parameters())
with torch.no_grad():
    for i, p in enumerate(params):
        p.copy_(torch.from_numpy(init[f"arg{i}"]))
n = len(params)
x, y = torch.from_numpy(init[f"arg{n}"]), torch.from_numpy(init[f"arg{n + 1}"])
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for _ in range(steps):
    opt.zero_grad()
    F.cross_entropy(model(x), y).backward()
    opt.step()
stats = [model.bn2d.running_mean, model.bn2d.running_var, model.bn1d.running_mean, model.bn1d.running_var]
worst = 0.0
for k, ref in enumerate(stats):
    got = saved[f"arg{n + 2 + k}"]
    ref = ref.detach().numpy()
    assert not np.allclose(ref, init[f"arg{n + 2 + k}"]), "the statistics did not move"
    worst = max(worst, float(np.abs(got - ref).max()))
    assert np.allclose(got, ref, rtol=rtol, atol=atol), f"buffer {k}: {got} vs eager {ref}"
print(f"running statistics after {steps} steps match eager PyTorch within rtol {rtol} atol {atol} "
      f"(max |diff| {worst:.1e})")
