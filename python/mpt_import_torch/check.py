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


def check_imported_step(spec, text, func_name="step", rtol=1e-4, atol=1e-5):
    """Runs the imported MLIR (markers stripped) with torch-mlir's
    ExecutionEngine on the step's initial arguments and compares the loss
    and every updated value with the eager functional step."""
    from . import execute
    res = execute.run_step(text, [a.value.numpy() for a in spec.args], func_name)
    loss, params, state = step.eager_step(spec, spec.values("param"), *spec.values("data"),
                                          spec.values("optimizer_state"), spec.values("hyperparameter")[0])
    if spec.opt.name != "sgd":
        atol = max(atol, 0.1 * spec.opt.lr)
    want = [loss] + list(params) + list(state)
    if len(res) != len(want):
        raise UserError(f"imported step returns {len(res)} results, expected {len(want)}")
    worst = 0.0
    for i, (r, w) in enumerate(zip(res, want)):
        w = w.detach().numpy()
        d = float(abs(r.astype("float64") - w).max()) if r.size else 0.0
        if not torch.allclose(torch.from_numpy(r), torch.from_numpy(w), rtol=rtol, atol=atol):
            raise UserError(f"imported step result #{i} differs from eager PyTorch: max |diff| {d:.3g}")
        worst = max(worst, d)
    return f"imported MLIR step matches eager PyTorch (loss {float(res[0]):.6f}, max |diff| {worst:.2e})"
