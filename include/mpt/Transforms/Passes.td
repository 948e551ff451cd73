//===- Passes.td - mpt transformation passes ---------------*- tablegen -*-===//
#ifndef MPT_TRANSFORMS_PASSES_TD
#define MPT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TrainingGraphReport : Pass<"mpt-training-graph-report", "mlir::ModuleOp"> {
  let summary = "Report the regions, parameters, gradients and memory of each training step";
  let description = [{
    Prints, for every function of the module, the number of ops in the
    forward, backward and update regions (from the `TrainingGraph`
    analysis), the loss, the backward seed, the parameters with their
    gradients, and the static memory estimate of the step: bytes of
    parameters, gradients, optimizer state and activations kept for the
    backward pass, by element type. Run it again after a precision change
    to see the savings. The IR is not changed; every analysis is preserved.

    The report goes to stderr, or to the file named by `output`. Nested ops
    of an op with regions that is not control flow (a `linalg.generic` body)
    count with their op; function terminators are not counted.
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"text\"",
           "Report format: text or json">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "File to write the report to ('-' for stderr)">,
  ];
  let dependentDialects = ["mpt::MPTDialect"];
}

def StripTrainingMarkers : Pass<"mpt-strip-training-markers", "mlir::func::FuncOp"> {
  let summary = "Replace mpt.grad_seed by ones and mpt.gradient by its operand";
  let description = [{
    Lowers the two training-graph markers to upstream MLIR so that a step can
    be executed: `mpt.grad_seed` becomes a tensor of ones of the loss's type
    and `mpt.gradient` is forwarded to its operand. Run it after the passes
    that need the markers (autocast, loss scaling).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::linalg::LinalgDialect"];
}

def InsertLossScaling : Pass<"mpt-insert-loss-scaling", "mlir::func::FuncOp"> {
  let summary = "Scale the backward seed, unscale and check the gradients, skip overflowing steps";
  let description = [{
    Loss scaling inside the compiled training step (docs/LossScaling.md),
    with the semantics of PyTorch's GradScaler:

    * the backward seed (`mpt.grad_seed`, or the `loss_grad` argument) is
      multiplied by the loss scale (`mpt.scale`); the backward pass is linear
      in its seed, so this is "multiply the loss before backpropagation";
    * all `mpt.gradient` values go through one `mpt.unscale_and_check`
      (multiplied by 1/scale in FP32, one found-inf flag for all of them)
      before any optimizer op reads them;
    * every result carrying `mpt.updates` is guarded by `mpt.guard_update`:
      when found-inf is set it is its input argument, bit for bit;
    * `mode=dynamic` appends two arguments, `tensor<f32> {mpt.role =
      "loss_scale", mpt.initial_value = <init-scale>}` and `tensor<i32>
      {mpt.role = "loss_scale_growth_tracker", mpt.initial_value = 0}`, and
      two results (`mpt.updates` pointing at them) computed by
      `mpt.update_scale`. `mode=static` uses the constant `init-scale` and
      adds no state; `mode=none` leaves the step unchanged.

    Functions without any part of the training-graph contract (no marker,
    no loss or `mpt.updates` result) are left alone. Run
    `--mpt-lower-loss-scaling` afterwards to lower the inserted ops.
  }];
  let options = [
    Option<"mode", "mode", "std::string", /*default=*/"\"dynamic\"",
           "Loss scaling: none, static (constant init-scale) or dynamic "
           "(GradScaler's growth and backoff)">,
    Option<"initScale", "init-scale", "double", /*default=*/"65536.0",
           "The (initial) loss scale: finite, > 0 and representable in FP32">,
    Option<"growthFactor", "growth-factor", "double", /*default=*/"2.0",
           "Dynamic mode: factor applied after growth-interval clean steps (> 1)">,
    Option<"backoffFactor", "backoff-factor", "double", /*default=*/"0.5",
           "Dynamic mode: factor applied on overflow, in (0, 1)">,
    Option<"growthInterval", "growth-interval", "int64_t", /*default=*/"2000",
           "Dynamic mode: clean steps before the scale grows (1 to 2^31-1)">,
    Option<"minScale", "min-scale", "double", /*default=*/"0.0",
           "Dynamic mode: floor of the scale on backoff (0: none, as "
           "GradScaler; Keras uses 1)">,
  ];
  let dependentDialects = ["mpt::MPTDialect", "mlir::arith::ArithDialect"];
}

def LossScalingReport : Pass<"mpt-loss-scaling-report", "mlir::ModuleOp"> {
  let summary = "Report what loss scaling inserted in each training step";
  let description = [{
    Prints, for every function of the module, the loss-scaling mode (dynamic
    with the state arguments and their initial values, static with the
    constant scale, or none), the update parameters, how the backward seed
    is scaled, the number of gradients unscaled and checked, and the results
    guarded against overflowing steps. Reads the `mpt` loss-scaling ops, so
    run it after `--mpt-insert-loss-scaling` and before
    `--mpt-lower-loss-scaling`. The IR is not changed.

    The report goes to stderr, or to the file named by `output`.
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"text\"",
           "Report format: text or json">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "File to write the report to ('-' for stderr)">,
  ];
  let dependentDialects = ["mpt::MPTDialect"];
}

#endif // MPT_TRANSFORMS_PASSES_TD
