"""Eager cross-check: the functional step (what gets traced) against
torch.optim on a copy of the model, over a few steps of the same batch."""

import contextlib
import copy
import dataclasses

import torch

from . import UserError, losses, optim, rng, step


def check_against_torch_optim(spec, n_steps=3, rtol=1e-4, atol=1e-5):
    """Runs the functional step and torch.optim on a copy of the model for
    n_steps on the same batch; the parameters must agree after the first.

    In float32 Adam's update g / (sqrt(v) + eps) is ill-conditioned where a
    gradient is zero up to rounding (a convolution's bias before BatchNorm
    or GroupNorm): its sign is noise, so the update differs by up to 2 lr.
    A step that differs in float32 is therefore compared again in float64,
    where such noise (~1e-16) is far below eps and the update is ~0: the
    two must then agree to rtol/atol, which a wrong formula cannot."""
    opt_name, worst, losses_diff, d = _compare_with_torch_optim(spec, n_steps, rtol, atol, torch.float32)
    diff = f"{worst:.2e}"
    if d is not None:
        _, worst64, _, d64 = _compare_with_torch_optim(spec, 1, rtol, atol, torch.float64)
        if d64 is not None:
            raise UserError(f"functional step differs from torch.optim after step 0: max |diff| {d:.3g} "
                            f"(float64: {d64:.3g})")
        diff = f"{worst64:.2e} in float64; {d:.2e} in float32, where gradients are zero up to rounding"
    return (f"functional step matches torch.optim.{opt_name} after one step (params max |diff| {diff}); "
            f"loss |diff| at steps 0..{n_steps - 1}: " + " ".join(f"{x:.1e}" for x in losses_diff))


def _compare_with_torch_optim(spec, n_steps, rtol, atol, dtype):
    """(torch.optim class name, params max |diff| after step 0, loss |diff|
    per step, max |diff| if step 0 is not allclose else None), everything
    computed in dtype."""
    def cast(t):
        return t.to(dtype) if t.is_floating_point() else t
    if dtype != torch.float32:
        spec = dataclasses.replace(spec, model=copy.deepcopy(spec.model).to(dtype))
    params = [cast(a.value.clone()) for a in spec.args[:spec.n_params]]
    x, y = (cast(t) for t in spec.values("data"))
    state = [cast(s.clone()) for s in _state(spec)]
    hparams = [cast(h) for h in spec.values("hyperparameter")]
    model = copy.deepcopy(spec.model)
    with torch.no_grad():
        for p, v in zip(model.parameters(), params):
            p.copy_(v)
    opt = optim.torch_optimizer(spec.opt, model.parameters())
    lf = losses.get(spec.loss_name)
    if spec.opt.name != "sgd" and dtype == torch.float32:
        # Adam's normalised update moves noise-level gradients by ~lr; the
        # float64 comparison above decides whether that is all there is.
        atol = max(atol, 0.1 * spec.opt.lr)
    worst, mismatch = 0.0, None
    losses_diff = []
    # torch.optim's model draws the same masks (same stream, same calls).
    ref_mode = rng.PhiloxMode(spec.values("rng_state")[0]) if spec.n_rng else contextlib.nullcontext()
    for k in range(n_steps):
        loss, params, state = step.eager_step(spec, params, x, y, state, hparams)
        opt.zero_grad()
        with ref_mode:
            ref_loss = lf(step.output_tensor(model(x)), y)
        ref_loss.backward()
        optim.clip_reference(spec.opt, list(model.parameters()))
        opt.step()
        losses_diff.append(abs(float(loss) - float(ref_loss.detach())))
        if k == 0:
            # Strict after one step.  Later losses are only reported: rounding
            # differences (a few ulp) grow fast in ill-conditioned models; e.g.
            # ResNet-18 with batch 2 has BatchNorm over 2 values at 1x1
            # spatial size, with gradients ~1/sqrt(eps).
            for p, r in zip(params, model.parameters()):
                d = float((p - r.detach()).abs().max()) if p.numel() else 0.0
                if not torch.allclose(p, r.detach(), rtol=rtol, atol=atol):
                    mismatch = max(mismatch or 0.0, d)
                worst = max(worst, d)
    return type(opt).__name__, worst, losses_diff, mismatch


def _state_args(spec):
    """Every state argument in step order: rng_state, buffers, optimizer state."""
    return [a for a in spec.args if a.role in ("rng_state", "buffer", "optimizer_state")]


def _state(spec):
    return [a.value for a in _state_args(spec)]


def _float64_spec(spec):
    """The step with the model, and every floating-point argument, in float64."""
    args = [dataclasses.replace(a, value=a.value.double() if a.value.is_floating_point() else a.value)
            for a in spec.args]
    return dataclasses.replace(spec, model=copy.deepcopy(spec.model).double(), args=args, guards=[])


def _eager_results(spec):
    """The eager step's results in the imported step's order: loss, new
    parameters, new state."""
    loss, params, state = step.eager_step(spec, spec.values("param"), *spec.values("data"), _state(spec),
                                          spec.values("hyperparameter"))
    return [loss] + list(params) + list(state)


def _adam_distance_off_noise(spec, k, r, w64, ref64):
    """Adam's first update is lr * sign(g) wherever |g| >> eps: an element
    whose gradient is zero up to float32 rounding (|g| below 1e-5 of the
    largest, a sum of cancelling terms) gets +-lr with a sign that any
    summation order may flip (the float64 rerun of --check says the same).
    The distance of parameter k's result to float64 over its other elements,
    the gradient read from the float64 step's first moment exp_avg."""
    name = "exp_avg." + spec.param_names[k]
    state_names = [a.name for a in _state_args(spec)]
    if name not in state_names:
        return float((r - w64).abs().max())
    m64 = ref64[1 + spec.n_params + state_names.index(name)].detach().abs()
    keep = m64 > 1e-5 * float(m64.max())
    return float(((r - w64).abs() * keep).max())


# How much further from float64 than eager float32 an imported result may be
# before run-check imports the step in float64 to decide (_check_in_float64).
NOISE_FACTOR = 2
# The float64 step's rounding is 2^-29 of float32's; a result whose float32
# distance was beyond the noise passes if the float64 import is within this
# fraction of the float32 distances (500x margin for summation orders): of
# eager's or of the imported step's, whichever is larger.  A wrong import
# stays as far off in float64 as in float32; rounding, however amplified,
# shrinks by 2^-29.  (Eager's alone was no bound for a gradient that is
# exactly zero, which eager float32 may hit exactly: MNASNet's BatchNorm
# bias before a 1x1 convolution and a second BatchNorm.)
F64_FRACTION = 1e-6


def _check_in_float64(spec64, func_name, suspects, ref64, names):
    """Each suspect (index, distance to float64 of the imported float32
    step, of eager float32) is a result further from eager float64 than
    float32 rounding explains.  In a deep network that is also what rounding
    does where a ReLU's input or a max pool's runner-up lies within float32
    noise of the kink: one element on the other side moves every gradient
    below it (torchvision GoogLeNet, RegNetX, ResNeXt, Inception v3 at
    batch 4-8).  The step imported and run in float64 has no such flips: a
    correct import matches eager float64 to float64 rounding, a wrong one
    stays as far off as in float32.  spec64 is the step in float64
    (_float64_spec), ref64 eager's float64 results.  Raises UserError for the
    first suspect that the float64 step does not clear."""
    from . import execute, stitch
    i0, d0, e0 = suspects[0]
    try:
        mod = stitch.import_step(spec64, func_name=func_name)
        res = execute.run_step(mod.operation.get_asm(), [a.value.numpy() for a in spec64.args], func_name)
    except Exception as err:  # noqa: BLE001 - any failure of the second import is reported, not raised
        err = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise UserError(f"imported step result #{i0} ({names[i0]}) differs from eager PyTorch (vs float64: "
                        f"imported {d0:.3g}, eager float32 {e0:.3g}), and importing the step in float64 to tell "
                        f"rounding from error failed: {err}")
    for i, d_mlir, d_eager in suspects:
        w64 = ref64[i].detach().double()
        d64 = float((torch.from_numpy(res[i]).double() - w64).abs().max())
        if d64 > F64_FRACTION * max(d_eager, d_mlir) + 1e-12 * float(w64.abs().max()):
            raise UserError(f"imported step result #{i} ({names[i]}) differs from eager PyTorch: vs float64, "
                            f"imported {d_mlir:.3g}, eager float32 {d_eager:.3g}; imported in float64 "
                            f"{d64:.3g}, so not float32 rounding")


def check_imported_step(spec, text, func_name="step", rtol=1e-4, atol=1e-5):
    """Runs the imported MLIR (markers stripped) with torch-mlir's
    ExecutionEngine on the step's initial arguments and compares the loss
    and every updated value with the eager functional step.

    A result passes if it is allclose(rtol, atol) to eager float32, or if its
    distance to eager float64 is at most NOISE_FACTOR times float32's own
    distance to float64 (+atol): ill-conditioned steps (ResNet-18 with batch
    2) move by more than rounding under any change of summation order.
    Float32's distance is the larger of two float32 implementations' (eager
    with oneDNN's convolutions and with ATen's own: on RegNetX-400MF they
    differ by up to 3300x).  The results left are decided by the step
    imported in float64 (_check_in_float64)."""
    from . import execute
    res = execute.run_step(text, [a.value.numpy() for a in spec.args], func_name)
    want = _eager_results(spec)
    if spec.opt.name != "sgd":
        atol = max(atol, 0.1 * spec.opt.lr)
    if len(res) != len(want) + len(spec.guards):
        raise UserError(f"imported step returns {len(res)} results, expected {len(want) + len(spec.guards)}")
    for g, msg in zip(res[len(want):], spec.guards):
        if not bool(g):
            raise UserError(f"guard false on the traced batch: {msg}")
    res = res[:len(want)]
    spec64 = ref64 = ref32 = None
    names = ["loss"] + list(spec.param_names) + [a.name for a in _state_args(spec)]
    worst, n_f64, suspects = 0.0, 0, []
    for i, (r, w) in enumerate(zip(res, want)):
        r, w = torch.from_numpy(r), w.detach()
        d = float((r.double() - w.double()).abs().max()) if r.numel() else 0.0
        if not torch.allclose(r, w, rtol=rtol, atol=atol):
            if ref64 is None:
                spec64 = _float64_spec(spec)
                ref64 = _eager_results(spec64)
            w64 = ref64[i].detach()
            d_mlir = float((r.double() - w64).abs().max())
            d_eager = float((w.double() - w64).abs().max())
            if d_mlir > NOISE_FACTOR * d_eager + atol:
                if ref32 is None:
                    with torch.backends.mkldnn.flags(enabled=False):
                        ref32 = _eager_results(spec)
                d_eager = max(d_eager, float((ref32[i].detach().double() - w64).abs().max()))
            if d_mlir > NOISE_FACTOR * d_eager + atol and 1 <= i <= spec.n_params and spec.opt.name in ("adam", "adamw"):
                d_mlir = _adam_distance_off_noise(spec, i - 1, r.double(), w64, ref64)
            if d_mlir > NOISE_FACTOR * d_eager + atol:
                suspects.append((i, d_mlir, d_eager))
            else:
                n_f64 += 1
        worst = max(worst, d)
    if suspects:
        _check_in_float64(spec64, func_name, suspects, ref64, names)
    extra = (f"; {n_f64} results differ from eager f32 by more than rounding but are as close to the "
             f"float64 step as eager f32 is (ill-conditioned)") if n_f64 else ""
    if suspects:
        i, d_mlir, d_eager = max(suspects, key=lambda s: s[1] / max(s[2], 1e-300))
        extra += (f"; {len(suspects)} further from float64 than eager float32 (worst #{i} ({names[i]}): "
                  f"{d_mlir:.3g} vs {d_eager:.3g}), but the step imported in float64 matches eager float64: "
                  f"float32 rounding, amplified by the model or summed less accurately than eager")
    return (f"imported MLIR step matches eager PyTorch (loss {float(res[0]):.6f}, "
            f"max |diff| {worst:.2e}{extra})")
