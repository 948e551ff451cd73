//===- TrainingGraph.h - what is forward, backward, update ---*- C++ -*-===//
//
// An MLIR analysis of one training step (a function written to the
// training-graph contract, docs/TrainingGraphContract.md). Passes query it
// with getAnalysis<TrainingGraph>() on a function (or getChildAnalysis from a
// module pass) and preserve it when they change nothing, or when they add its
// regions for the ops they insert (addOp, --mpt-insert-loss-scaling).
//
//===----------------------------------------------------------------------===//
#ifndef MPT_ANALYSIS_TRAININGGRAPH_H
#define MPT_ANALYSIS_TRAININGGRAPH_H

#include "mpt/IR/MPTOps.h"
#include "mpt/IR/TrainingContract.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/AnalysisManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"
#include <map>
#include <string>

namespace mpt {

/// The part of a training step an operation belongs to.
enum class TrainingRegion {
  /// Computes the loss, or values the backward pass reads (activations).
  Forward,
  /// Starts at the backward seed and ends at the `mpt.gradient` markers, or
  /// is only needed by such ops.
  Backward,
  /// Computes the `mpt.updates` results from gradients, parameters,
  /// optimizer state and hyperparameters (the optimizer).
  Update,
  /// Contributes to no result of the step (dead code).
  Unused,
};
llvm::StringRef stringifyTrainingRegion(TrainingRegion region);

/// Bytes of static-shaped tensors, keyed by element type name ("f32", ...).
struct ByteCounts {
  std::map<std::string, uint64_t> bytesByType;
  /// Tensors with dynamic shapes, whose size is not known statically.
  unsigned numDynamic = 0;
  void add(mlir::Type type);
  uint64_t total() const;
};

/// Byte counts saturate: a count above this (the largest int64, what JSON
/// and the reports can print) is reported as "too large".
constexpr uint64_t kLargestByteCount = INT64_MAX;
inline bool isTooLarge(uint64_t bytes) { return bytes > kLargestByteCount; }

/// The static memory of one step: what lives across it (parameters, their
/// gradients, optimizer state) and the activations the forward pass keeps
/// for the backward pass.
struct MemoryEstimate {
  ByteCounts params, gradients, optimizerState, activations;
  /// Low-precision copies of parameters that the backward pass reads
  /// (autocast's cast weights): kept like activations, but per step, not
  /// per sample.
  ByteCounts paramCopies;
  /// FP8 delayed scaling's state (docs/FP8.md): the amax history and the
  /// scales the step carries (`fp8_amax_history`, `fp8_scale` arguments).
  ByteCounts scalingState;
  uint64_t total() const;
};

class TrainingGraph {
public:
  /// Analyses `op`, a FunctionOpInterface. Nothing is emitted: contract
  /// violations (isValid() is false) and lint warnings are recorded as
  /// findings, which the pass that queries the analysis emits with
  /// emitFindings().
  explicit TrainingGraph(mlir::Operation *op);

  /// False when the step violates the contract (an error finding).
  bool isValid() const { return valid; }

  /// A contract error or lint warning, as the diagnostic it becomes.
  struct Finding {
    mlir::DiagnosticSeverity severity;
    mlir::Location loc;
    /// The op an error is about (the diagnostic is emitted on it, as
    /// Operation::emitError does), or null for a bare location.
    mlir::Operation *op = nullptr;
    std::string message;
    llvm::SmallVector<std::pair<mlir::Location, std::string>, 1> notes;
  };
  /// What building the graph found, in the order it was found.
  llvm::ArrayRef<Finding> getFindings() const { return findings; }
  /// Emits the findings as diagnostics, once per TrainingGraph: a cached
  /// analysis that several passes query reports once, a rebuilt one again.
  /// Lint warnings are also given once per process (the analysis is built by
  /// every pass that reads the contract, and on the copies report passes
  /// make). Every user calls it right after querying the analysis. Returns
  /// failure when the step violates the contract. Without `warnings` only
  /// the errors are emitted (a step already checked before passes lowered
  /// some of its markers).
  mlir::LogicalResult emitFindings(bool warnings = true) const;
  /// Whether the function carries any training marker (seed, gradient,
  /// loss_grad argument). Without markers every op is Forward.
  bool isTrainingStep() const { return trainingStep; }

  mlir::FunctionOpInterface getFunction() const { return func; }

  /// The region of `op`, or of its ancestor in the function body.
  TrainingRegion getRegion(mlir::Operation *op) const;

  /// The seed op, if the backward pass starts from `mpt.grad_seed`.
  GradSeedOp getSeedOp() const { return seedOp; }
  /// The seed value: the result of `mpt.grad_seed` or the `loss_grad`
  /// argument; null when there is none.
  mlir::Value getSeed() const { return seed; }
  /// The result index marked `mpt.role = "loss"`, if any.
  std::optional<unsigned> getLossResultIndex() const { return lossResult; }
  /// The `mpt.gradient` markers, in program order.
  llvm::ArrayRef<GradientOp> getGradients() const { return gradients; }
  /// Arguments with `mpt.role = "param"`, in order.
  llvm::ArrayRef<unsigned> getParams() const { return params; }
  /// The parameter argument whose update a gradient feeds, if unique.
  std::optional<unsigned> getParamOfGradient(GradientOp grad) const;

  /// Number of ops (nested ones included) per region.
  unsigned getNumOps(TrainingRegion region) const;

  /// The static memory estimate of the step as it is now.
  MemoryEstimate estimateMemory() const;

  /// Records the region of `op`, an op a pass added to the top level of the
  /// function body. A pass that knows the region a new analysis of the step
  /// would give each op it adds, and that its rewrite leaves the other ops'
  /// regions, the markers and the findings as they were, records them and
  /// keeps the analysis (markAnalysesPreserved<TrainingGraph>()) instead of
  /// having the next pass build it again: --mpt-insert-loss-scaling.
  void addOp(mlir::Operation *op, TrainingRegion region);

private:
  mlir::Operation *getTopLevelOp(mlir::Operation *op) const;
  mlir::LogicalResult collectMarkers();
  mlir::LogicalResult classify();
  /// The contract lint: legal steps that are almost certainly not meant
  /// (docs/TrainingGraphContract.md, "Warnings"). Warnings, or errors with
  /// --mpt-contract-strict.
  mlir::LogicalResult lint();
  /// "the gradient 'NAME.grad' of parameter argument #N" for diagnostics:
  /// the name a location gives it (mpt-import-torch --debug-info's
  /// loc("NAME.grad"(model line)) on the marker, or a named argument) and
  /// the parameter it updates, each if known.
  std::string describeGradient(GradientOp grad) const;

  // MLIR op handles have no const methods.
  mutable mlir::FunctionOpInterface func;
  bool valid = true;
  llvm::SmallVector<Finding, 0> findings;
  mutable bool findingsEmitted = false;
  bool trainingStep = false;
  mutable GradSeedOp seedOp;
  mlir::Value seed;
  std::optional<unsigned> lossResult;
  llvm::SmallVector<GradientOp> gradients;
  /// Gradients that are zero tensors independent of the seed: parameters
  /// that do not reach the loss (a lint warning).
  llvm::SmallVector<GradientOp> zeroGradients;
  llvm::SmallVector<unsigned> params;
  /// Discardable `mpt.` attributes no rule reads, in program order: found
  /// by collectMarkers' walk, reported by the lint.
  llvm::SmallVector<std::pair<mlir::Operation *, mlir::StringAttr>, 0>
      unknownMptAttributes;
  llvm::DenseMap<mlir::Operation *, TrainingRegion> regions;
  llvm::DenseMap<mlir::Operation *, unsigned> gradientParam;
};

} // namespace mpt

#endif // MPT_ANALYSIS_TRAININGGRAPH_H
