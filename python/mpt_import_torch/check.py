"""Eager cross-check: the functional step (what gets traced) against
torch.optim on a copy of the model, over a few steps of the same batch."""

import copy

import torch

from . import UserError, losses, optim, step


def check_against_torch_optim(spec, n_steps=3, rtol=1e-4, atol=1e-5):
    params = [a.value.clone() for a in spec.args[:spec.n_params]]
    x, y = spec.values("data")
    state = [s.clone() for s in spec.values("optimizer_state")]
    lr = spec.values("hyperparameter")[0]
    model = copy.deepcopy(spec.model)
    with torch.no_grad():
        for p, v in zip(model.parameters(), params):
            p.copy_(v)
    opt = optim.torch_optimizer(spec.opt, model.parameters())
    lf = losses.get(spec.loss_name)
    # Adam normalises each update by sqrt(v): where a gradient is ~0, float
    # noise in it changes the update by up to lr, so compare at lr scale.
    if spec.opt.name != "sgd":
        atol = max(atol, 0.1 * spec.opt.lr)
    worst = 0.0
    losses_diff = []
    for k in range(n_steps):
        loss, params, state = step.eager_step(spec, params, x, y, state, lr)
        opt.zero_grad()
        ref_loss = lf(model(x), y)
        ref_loss.backward()
        opt.step()
        losses_diff.append(abs(float(loss) - float(ref_loss.detach())))
        if k == 0:
            # Strict after one step.  Later losses are only reported: rounding
            # differences (a few ulp) grow fast in ill-conditioned models; e.g.
            # ResNet-18 with batch 2 has BatchNorm over 2 values at 1x1
            # spatial size, with gradients ~1/sqrt(eps).
            for p, r in zip(params, model.parameters()):
                d = float((p - r.detach()).abs().max())
                if not torch.allclose(p, r.detach(), rtol=rtol, atol=atol):
                    raise UserError(f"functional step differs from torch.optim after step 0: max |diff| {d:.3g}")
                worst = max(worst, d)
    return (f"functional step matches torch.optim.{type(opt).__name__} after one step (params max "
            f"|diff| {worst:.2e}); loss |diff| at steps 0..{n_steps - 1}: "
            + " ".join(f"{d:.1e}" for d in losses_diff))
