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

/// The precision in which --mpt-data-parallel sends gradients.
enum class ReduceDtype { F32, BF16, F16 };

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
