//===- Passes.td - mpt conversion passes -------------------*- tablegen -*-===//
#ifndef MPT_CONVERSION_PASSES_TD
#define MPT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerLossScaling : Pass<"mpt-lower-loss-scaling", "mlir::func::FuncOp"> {
  let summary = "Lower the mpt loss-scaling ops to linalg, arith and tensor";
  let description = [{
    Lowers `mpt.scale`, `mpt.unscale_and_check`, `mpt.update_scale` and
    `mpt.guard_update` (docs/LossScaling.md) to upstream MLIR:

    * `mpt.scale` and the unscaling: one elementwise `linalg.generic` per
      tensor, computing in FP32 (in the element type when it is wider) and
      rounding to the element type. The reciprocal of the scale is computed
      in FP64 and rounded to FP32, as PyTorch's GradScaler does.
    * found-inf: a `linalg.generic` reduction per unscaled gradient into one
      `tensor<i1>` (an element is non-finite when it is unordered-or-equal
      to +inf, or equal to -inf: NaN, +inf, -inf).
    * `mpt.update_scale`: scalar `arith` on the extracted values, with
      `arith.select` choosing backoff, growth (skipped when it would
      overflow FP32) or neither.
    * `mpt.guard_update`: `arith.select` on the extracted flag between the
      two tensors, so a skipped step returns its input bit for bit.

    A compiler with a fused "unscale and check" kernel can lower the ops
    its own way instead. The `mpt.grad_seed` / `mpt.gradient` markers are
    not touched (see `--mpt-strip-training-markers`).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

#endif // MPT_CONVERSION_PASSES_TD
