//===- Passes.h - mpt transformation passes -------------------*- C++ -*-===//
#ifndef MPT_TRANSFORMS_PASSES_H
#define MPT_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mpt/Analysis/PrecisionPolicy.h"
#include "mpt/IR/MPTDialect.h"
#include "mpt/Support/Report.h"

namespace mpt {

// The values of the fixed-value options of mpt's transform passes
// (Passes.td lists their spellings with clEnumValN; llvm::cl rejects any
// other value with one error before a pass is built). Autocast's dtype and
// policy level are in mpt/Analysis/PrecisionPolicy.h: the policy reads them.

/// The precision in which --mpt-data-parallel sends gradients.
enum class ReduceDtype { F32, BF16, F16 };

/// --mpt-insert-loss-scaling's mode (docs/LossScaling.md).
enum class LossScaleMode { None, Static, Dynamic };
/// The option's spelling ("none", "static", "dynamic"), also the value of
/// the step's `mpt.loss_scaling` attribute.
llvm::StringRef stringifyLossScaleMode(LossScaleMode mode);

/// dtype=fp8 (docs/FP8.md): which FP8 formats the contractions take.
enum class Fp8Format {
  /// E4M3 forward, E5M2 gradients (Transformer Engine's HYBRID).
  Hybrid,
  /// E4M3 everywhere.
  E4M3,
};
/// dtype=fp8: the amax a delayed scale is computed from.
enum class AmaxCompute { Max, MostRecent };
/// dtype=fp8: where the scales come from.
enum class Fp8Scaling {
  /// The amax history carried by the step.
  Delayed,
  /// This step's amax of each tensor (no state).
  Current,
};
/// dtype=mxfp8/mxfp4 (docs/MX.md): the backward contractions' operands.
/// MXFP4 is accepted here and rejected at the first backward contraction,
/// so that a function without a backward can use it.
enum class MxBackward { MXFP8, BF16, MXFP4 };
/// dtype=mxfp8/mxfp4: how the shared exponent is rounded.
enum class MxScale {
  /// OCP MX: floor(log2(amax)) - emax.
  Floor,
  /// The smallest power of two that does not saturate the block.
  Ceil,
};

#define GEN_PASS_DECL
#include "mpt/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mpt/Transforms/Passes.h.inc"

// Every pass is created by the generated create<Def>() (createAutocast,
// createInsertLossScaling, ...). The names the autocast passes had while
// their TableGen definitions carried an Mpt prefix remain for embedders
// that used them; they will be removed.
using MptAutocastOptions [[deprecated("use mpt::AutocastOptions")]] =
    AutocastOptions;
using MptPrecisionReportOptions
    [[deprecated("use mpt::PrecisionReportOptions")]] = PrecisionReportOptions;
[[deprecated("use mpt::createAutocast")]] inline std::unique_ptr<mlir::Pass>
createMptAutocast(AutocastOptions options = {}) {
  return createAutocast(std::move(options));
}
[[deprecated("use mpt::createCastCleanup")]] inline std::unique_ptr<mlir::Pass>
createMptCastCleanup() {
  return createCastCleanup();
}
[[deprecated("use mpt::createPrecisionReport")]] inline std::unique_ptr<mlir::Pass>
createMptPrecisionReport(PrecisionReportOptions options = {}) {
  return createPrecisionReport(std::move(options));
}

} // namespace mpt

#endif // MPT_TRANSFORMS_PASSES_H
