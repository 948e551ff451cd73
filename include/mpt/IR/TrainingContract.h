//===- TrainingContract.h - roles of the training-graph contract -*- C++ -*-===//
//
// The vocabulary of docs/TrainingGraphContract.md: the `mpt.role` values of
// arguments and results, shared by the dialect verifier, the analysis and the
// passes that add state (loss scaling).
//
//===----------------------------------------------------------------------===//
#ifndef MPT_IR_TRAININGCONTRACT_H
#define MPT_IR_TRAININGCONTRACT_H

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringRef.h"
#include <optional>

namespace mpt {

enum class ArgRole {
  Param,
  Data,
  OptimizerState,
  Hyperparameter,
  LossGrad,
  LossScale,
  LossScaleGrowthTracker,
  /// State the step updates that is neither a parameter nor optimizer state
  /// (BatchNorm running statistics).
  Buffer,
  /// A counter-based random generator's state: tensor<2xi64> = [seed, offset].
  RngState,
  /// Added by FP8 autocast: the amax history of the FP8 tensors,
  /// tensor<LxNxf32> (L steps, N tensors; Transformer Engine's layout).
  Fp8AmaxHistory,
  /// Added by FP8 autocast: the scale of each FP8 tensor, tensor<Nxf32>.
  Fp8Scale,
};

/// Parses an `mpt.role` value of a function argument.
std::optional<ArgRole> parseArgRole(llvm::StringRef role);
llvm::StringRef stringifyArgRole(ArgRole role);
/// The accepted argument roles, for diagnostics.
llvm::StringRef getArgRoleList();

/// The role of argument `index` of `func`, if it has one.
std::optional<ArgRole> getArgRole(mlir::FunctionOpInterface func,
                                  unsigned index);
/// The argument that result `index` of `func` updates (`mpt.updates`).
std::optional<unsigned> getUpdatedArg(mlir::FunctionOpInterface func,
                                      unsigned index);
/// Whether result `index` of `func` is the loss (`mpt.role = "loss"`).
bool isLossResult(mlir::FunctionOpInterface func, unsigned index);
/// Whether `func` is a training step of the contract: an `mpt.role` on an
/// argument or result, an `mpt.updates` on a result, or a training marker
/// (`mpt.grad_seed`, `mpt.gradient`) in its body. The reports list these and
/// leave out the helpers a module holds beside them.
bool isContractStep(mlir::FunctionOpInterface func);

/// Marks a step that --mpt-insert-loss-scaling rewrote (its mode); survives
/// --mpt-lower-loss-scaling, so that scaling twice is an error.
inline constexpr llvm::StringLiteral kLossScalingAttrName = "mpt.loss_scaling";
/// Marks a step that --mpt-data-parallel rewrote (its reduce-dtype), so that
/// a second run is an error even after the all-reduces were lowered.
inline constexpr llvm::StringLiteral kDataParallelAttrName =
    "mpt.data_parallel";

/// Marks a step that FP8 autocast rewrote (its format, "hybrid" or
/// "e4m3"), so that a second FP8 rewrite is an error.
inline constexpr llvm::StringLiteral kFp8AttrName = "mpt.fp8";
/// Next to kFp8AttrName on a step FP8 autocast rewrote with current
/// (just-in-time) scaling: "current" (absent: delayed scaling).
inline constexpr llvm::StringLiteral kFp8ScalingAttrName = "mpt.fp8_scaling";

/// Marks a step that MX autocast rewrote (its dtype, "mxfp8" or "mxfp4"),
/// so that a second MX rewrite is an error.
inline constexpr llvm::StringLiteral kMxAttrName = "mpt.mx";

/// Marks an op that mpt-recompute-in-backward copied into the backward
/// (so that CSE does not merge it back into the forward op).
inline constexpr llvm::StringLiteral kRecomputedAttrName = "mpt.recomputed";

/// Whether an mpt pass reads the discardable attribute `name` ("mpt.*") on
/// an op or function: the loss-scaling mark, the recomputation mark and the
/// Tensor Core lowering's annotations. Others are mistakes the contract
/// lint reports.
bool isKnownMptAttribute(llvm::StringRef name);

} // namespace mpt

#endif // MPT_IR_TRAININGCONTRACT_H
