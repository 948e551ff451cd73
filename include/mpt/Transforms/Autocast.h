//===- Autocast.h - apply a precision plan, tidy casts ---------*- C++ -*-===//
//
// The C++ API behind `--mpt-autocast`, `--mpt-precision-report` and
// `--mpt-cast-cleanup`, for embedders that build their own pipelines.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_TRANSFORMS_AUTOCAST_H
#define MPT_TRANSFORMS_AUTOCAST_H

#include "mpt/Analysis/PrecisionPlan.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/raw_ostream.h"

namespace mpt {

/// Counts of the casts a rewrite left in the function.
struct CastCounts {
  /// arith.extf / arith.truncf on tensors.
  unsigned tensorCasts = 0;
  /// Scalar casts inside linalg bodies (the f32 "opmath" of low ops).
  unsigned bodyCasts = 0;
};
CastCounts countCasts(mlir::Operation *root);

/// Rewrites `func` as `plan` says: low ops get low-precision operands (and
/// results, for infer/clear ops), with casts placed after each producer
/// and reused; then cleans the casts up (cleanupCasts). Ops of the plan
/// the rewrite leaves unused (a tensor.empty replaced by a low-precision
/// one) are erased, or, when `keptDeadOps` is given, left in place and
/// listed there so the plan can still be printed.
void applyPrecisionPlan(
    mlir::FunctionOpInterface func, const PrecisionPlan &plan,
    llvm::SmallVectorImpl<mlir::Operation *> *keptDeadOps = nullptr);

/// Removes truncf(extf(x)) round trips (exact), merges casts of one value
/// to one type into a single cast placed right after the producer, and
/// erases unused casts. Touches only arith.extf / arith.truncf; idempotent.
void cleanupCasts(mlir::Operation *root);

/// What a report needs about one function: the plan (owned by the caller)
/// and the measurements around the rewrite.
struct AutocastSummary {
  MemoryEstimate memoryBefore, memoryAfter;
  CastCounts castsBefore, castsAfter;
};

/// Prints the precision report of the functions (text or JSON).
void printPrecisionReport(
    llvm::ArrayRef<std::tuple<mlir::FunctionOpInterface, const PrecisionPlan *,
                              AutocastSummary>>
        functions,
    bool json, llvm::raw_ostream &os);

} // namespace mpt

#endif // MPT_TRANSFORMS_AUTOCAST_H
