//===- Autocast.h - apply a precision plan, tidy casts ---------*- C++ -*-===//
//
// The C++ API behind `--mpt-autocast`, `--mpt-precision-report` and
// `--mpt-cast-cleanup`, for embedders that build their own pipelines.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_TRANSFORMS_AUTOCAST_H
#define MPT_TRANSFORMS_AUTOCAST_H

#include "mpt/Analysis/PrecisionPlan.h"
#include "mpt/Transforms/Passes.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
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
/// one, an input cast merged away) are erased, or, when `keptDeadOps` is
/// given, kept alive and listed there so the plan can still be printed:
/// casts are detached from the function (operands dropped, no parent block)
/// and must be destroyed by the caller; other ops stay in place.
void applyPrecisionPlan(
    mlir::FunctionOpInterface func, const PrecisionPlan &plan,
    llvm::SmallVectorImpl<mlir::Operation *> *keptDeadOps = nullptr);

/// Fails, with one diagnostic, when `func` already computes in the other
/// low-precision type (f16 for a bf16 autocast, or the reverse): the step
/// was autocast before, and a second plan would keep those ops as they are.
mlir::LogicalResult checkNoOtherLowType(mlir::FunctionOpInterface func,
                                        mlir::Type lowType);

/// Policy level promote, after the plan is applied: backward
/// linalg.generic ops read the 16-bit copies of forward values instead of
/// their f32 form (an extension of a 16-bit value: exact; an f32 value
/// with a 16-bit copy, when every backward reader can switch: the backward
/// sees it rounded, as PyTorch AMP saves it; an exact conversion of a
/// narrower value, such as a mask's uitofp from i1: the narrow value), so
/// the f32 tensors die in the forward. Returns the number of operands
/// switched.
unsigned readLowCopiesInBackward(mlir::FunctionOpInterface func,
                                 mlir::Type lowType);

/// Removes truncf(extf(x)) round trips (exact), merges casts of one value
/// to one type into a single cast placed right after the producer, and
/// erases unused casts. Touches only arith.extf / arith.truncf; idempotent.
/// With `detachedOps`, unused casts are detached (operands dropped, removed
/// from their block) and listed there instead of erased; the caller
/// destroys them (Operation::destroy) once it no longer reads them.
/// Returns whether it changed anything.
bool cleanupCasts(
    mlir::Operation *root,
    llvm::SmallVectorImpl<mlir::Operation *> *detachedOps = nullptr);

/// A low-precision working copy of a parameter (master-weights mode).
struct WorkingCopy {
  /// The f32 parameter argument (the master weight).
  unsigned param;
  /// The low-precision working-copy argument (role "optimizer_state").
  unsigned arg;
  /// The result that returns the next step's working copy.
  unsigned result;
};

/// Apex O2-style master weights: each f32 parameter that the step reads in
/// `lowType` (through a cast at function entry) and updates gets a working
/// copy in `lowType`, carried across steps as an extra argument (role
/// "optimizer_state") and an extra result (`mpt.updates` of that argument,
/// the updated master weight truncated). The step reads the working copy
/// instead of casting the master. Parameters without such a cast or update
/// are left alone. Fails (with a diagnostic) on a function with parameters
/// and more than one return. Run it after applyPrecisionPlan.
mlir::LogicalResult
addWorkingCopies(mlir::FunctionOpInterface func, mlir::Type lowType,
                 llvm::SmallVectorImpl<WorkingCopy> &added);

/// The FP8 recipe of `dtype=fp8` (docs/FP8.md).
struct Fp8Options {
  /// E4M3 forward and E5M2 gradients (true), or E4M3 everywhere.
  bool hybrid = true;
  /// Steps of amax history kept per FP8 tensor (>= 1).
  int64_t amaxHistoryLen = 1024;
  /// scale = (fp8_max / amax) / 2^margin.
  int64_t margin = 0;
  /// Scale from the most recent amax instead of the history's maximum.
  bool mostRecent = false;
  /// Current (just-in-time) scaling: each tensor's scale comes from its
  /// own amax in this step, and the step carries no scaling state.
  bool currentScaling = false;

  /// The recipe the pass options ask for; emits one diagnostic (unknown
  /// location) and fails on an amax-history-len or margin out of range.
  static mlir::FailureOr<Fp8Options> get(mlir::MLIRContext *context,
                                         const AutocastOptions &options);
};

/// The linalg contractions and convolutions `plan` puts in low precision
/// that FP8 autocast gives FP8 operands (two float inputs, static shapes),
/// in program order. Call before applyPrecisionPlan.
llvm::SmallVector<mlir::Operation *>
getFp8Contractions(const PrecisionPlan &plan);

/// After applyPrecisionPlan (bf16): gives each op of `contractions` FP8
/// operands with per-tensor delayed scaling, and appends the scaling state
/// (amax history and scales, with their roles, initial values and
/// `mpt.updates` results) to the function's signature; with
/// `options.currentScaling`, per-tensor current scaling and no state
/// (the name is the delayed recipe's, kept for callers). Fails, with a
/// diagnostic, on a function with more than one return or that already
/// has FP8 scaling.
mlir::LogicalResult
applyFp8DelayedScaling(mlir::FunctionOpInterface func,
                       llvm::ArrayRef<mlir::Operation *> contractions,
                       mlir::Value seed, const Fp8Options &options);

/// The MX recipe of `dtype=mxfp8` / `dtype=mxfp4` (docs/MX.md).
inline constexpr int64_t kMxBlockSize = 32;
struct MxOptions {
  /// E2M1 elements for the forward contractions (mxfp4), else E4M3.
  bool fp4 = false;
  /// The backward contractions' operands (mxfp4 is rejected there).
  using Backward = MxBackward;
  Backward backward = Backward::MXFP8;
  /// A reduction dimension not a multiple of 32 ends in a short block
  /// (true) or is an error (false).
  bool pad = true;
  /// The shared exponent rounded up where OCP's floor(log2(amax)) - emax
  /// would saturate the block's largest elements (mx-scale=ceil).
  bool ceilScale = false;

  /// The recipe the pass options ask for (dtype mxfp8 or mxfp4).
  static MxOptions get(const AutocastOptions &options);
};

/// What --mpt-autocast and --mpt-precision-report make of their options
/// (the generated mpt::AutocastOptions, declared once in Passes.td): the
/// policy and the FP8 or MX recipe. Built in a pass's initialize(); the
/// pass's copies share the policy.
struct AutocastConfig {
  std::shared_ptr<const PrecisionPolicy> policy;
  /// dtype=fp8.
  Fp8Options fp8;
  /// dtype=mxfp8 / mxfp4.
  MxOptions mx;
  bool masterWeights = false;

  /// Builds the policy (PrecisionPolicy::build) and the recipe for the
  /// dtype; emits one diagnostic (unknown location) and fails on bad
  /// options: a policy error, an FP8 option out of range, master-weights
  /// with FP8 or MX.
  mlir::LogicalResult initialize(mlir::MLIRContext *context,
                                 const AutocastOptions &options);
};

/// The contractions of `getFp8Contractions(plan)` that MX autocast gives
/// block-scaled operands: those with one reduction loop, which each input
/// indexes with one of its dimensions (convolutions stay bf16).
llvm::SmallVector<mlir::Operation *>
getMxContractions(const PrecisionPlan &plan);

/// After applyPrecisionPlan (bf16): gives each op of `contractions` MX
/// operands (blocks of 32 along the reduction dimension, E8M0 scales,
/// E4M3 or E2M1 elements, read back dequantized), backward contractions
/// (those that read a value depending on `seed`) as options.backward says.
/// Fails, with a diagnostic at the contraction, on mx-backward=mxfp4 with
/// a backward contraction and on a reduction dimension that is not a
/// multiple of 32 with mx-pad=false.
mlir::LogicalResult applyMxScaling(mlir::FunctionOpInterface func,
                                   llvm::ArrayRef<mlir::Operation *> contractions,
                                   mlir::Value seed, const MxOptions &options);

/// Erases each of `transposes` (linalg.transpose of a 16-bit copy that an
/// FP8 or MX operand replaced) that nothing reads any more, and its
/// tensor.empty init when that is then unused.
void eraseUnusedTransposes(llvm::ArrayRef<mlir::Operation *> transposes);

/// The values of `func` that depend on `seed` (the gradients), in program
/// order; empty without a seed.
llvm::DenseSet<mlir::Value> collectSeedDependents(mlir::FunctionOpInterface func,
                                                  mlir::Value seed);

/// The format each contraction of `plan` would get from FP8 or MX autocast
/// (`options.hybrid` / `options` as the pass has them), for the precision
/// report: "fp8 e4m3", "fp8 e4m3 x e5m2", "mxfp8", "mxfp4" (a backward
/// contraction left bf16 by mx-backward=bf16 is not listed). Call before
/// applyPrecisionPlan. `scales`, if given, receives where each FP8
/// contraction's two scales come from: with delayed scaling their indices
/// in the step's fp8_scale vector and fp8_amax_history columns.
llvm::DenseMap<mlir::Operation *, std::string>
describeFp8Contractions(const PrecisionPlan &plan, mlir::Value seed,
                        const Fp8Options &options,
                        llvm::DenseMap<mlir::Operation *, std::string> *scales =
                            nullptr);
llvm::DenseMap<mlir::Operation *, std::string>
describeMxContractions(const PrecisionPlan &plan, mlir::Value seed,
                       const MxOptions &options);

/// What a report needs about one function: the plan (owned by the caller)
/// and the measurements around the rewrite.
struct AutocastSummary {
  /// Whether the function has training markers (else: plain autocast).
  bool trainingStep = false;
  MemoryEstimate memoryBefore, memoryAfter;
  CastCounts castsBefore, castsAfter;
  /// Master-weights mode: the working copies added.
  llvm::SmallVector<WorkingCopy> workingCopies;
  /// dtype=fp8 / mxfp8 / mxfp4: the dtype, and the format of each
  /// contraction that gets FP8 or MX operands (describeFp8Contractions).
  std::string scaledDtype;
  llvm::DenseMap<mlir::Operation *, std::string> contractionFormats;
  /// dtype=fp8: where each FP8 contraction's scales come from.
  llvm::DenseMap<mlir::Operation *, std::string> contractionScales;
  /// dtype=fp8: where the scales come from ("delayed ..." / "current ...").
  std::string fp8Scaling;
};

/// An op's line of the precision report without its location: "name
/// [region] precision: reason", with the FP8/MX operand formats that
/// `summary` names (none in a default summary). The autocast pass's remarks
/// are these lines.
std::string describeDecision(const PrecisionPlan &plan,
                             const AutocastSummary &summary,
                             mlir::Operation *op);

/// Prints the precision report of the functions (text or JSON).
void printPrecisionReport(
    llvm::ArrayRef<std::tuple<mlir::FunctionOpInterface, const PrecisionPlan *,
                              AutocastSummary>>
        functions,
    bool json, llvm::raw_ostream &os);

} // namespace mpt

#endif // MPT_TRANSFORMS_AUTOCAST_H
