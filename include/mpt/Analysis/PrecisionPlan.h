//===- PrecisionPlan.h - the precision autocast gives each op --*- C++ -*-===//
//
// The decision of `--mpt-autocast`, op by op, with its reason: which list
// (or structural class) the op is on, how painting coloured it, which
// training-region rule or range fact kept it in FP32. The autocast pass
// applies a plan; `--mpt-precision-report` prints the plan it applied, so
// the report and the rewrite come from the same object.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_ANALYSIS_PRECISIONPLAN_H
#define MPT_ANALYSIS_PRECISIONPLAN_H

#include "mpt/Analysis/PrecisionPolicy.h"
#include "mpt/Analysis/RegionFlow.h"
#include "mpt/Analysis/TrainingGraph.h"

#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"
#include <string>

namespace mpt {

/// What an op is, before painting.
enum class OpClass {
  Allow,
  Deny,
  Infer,
  Clear,
  /// A reduction that is not a contraction: accumulates in FP32.
  Reduction,
  /// A training marker (`mpt.gradient`, `mpt.grad_seed`): stays FP32.
  Marker,
  /// On no list: stays FP32 and is a painting boundary.
  Unlisted,
  /// Control flow (scf.for/if/while, func.call): carried values keep
  /// their types; the ops inside are painted one by one.
  ControlFlow,
  /// No f32 tensor data (index math, tensor.empty, constants, integer or
  /// f64 tensors): left alone.
  NoF32Data,
};
llvm::StringRef stringifyOpClass(OpClass opClass);

/// The precision an op computes in after autocast.
enum class OpPrecision { Low, FP32, Unchanged };

/// Why an op got its precision.
enum class DecisionReason {
  /// Low: on the allow list (or a contraction/convolution).
  AllowOp,
  /// Low: an infer/clear op downstream and upstream of allow ops.
  BetweenAllowOps,
  /// Low: a clear op next to a low-precision op.
  ClearFollowsLow,
  /// FP32: on the deny list or its body uses a deny op.
  DenyOp,
  /// FP32: a reduction accumulates in FP32.
  ReductionOp,
  /// FP32: infer/clear op on a path from a deny op to a deny/infer op.
  DenyTaint,
  /// FP32: infer/clear op not between allow ops.
  NotBetweenAllowOps,
  /// FP32: the op is in the update region of the training step.
  UpdateRegion,
  /// FP32: the op is in the loss region (after the last forward
  /// contraction, or from the seed to the first backward contraction).
  LossRegion,
  /// FP32: a training marker.
  TrainingMarker,
  /// FP32: a value it reads or computes does not fit the low type.
  RangeUnsafe,
  /// FP32 (infer/clear op): it reads a tensor whose elements another op's
  /// body compares for equality with its result (an argmax after a max
  /// pooling); rounded, the result would equal none of them.
  ComparedExactly,
  /// FP32: mpt cannot rewrite this op to low precision.
  NoLowPrecisionRewrite,
  /// FP32: on no list.
  Unlisted,
  /// Unchanged: control flow; carried values keep their types.
  ControlFlow,
  /// Unchanged: no f32 tensor data.
  NoF32Data,
  /// Low (policy level promote): every full-size input is low.
  FollowsLowInputs,
  /// FP32 (policy level promote): a full-size input is f32.
  FollowsF32Input,
  /// FP32 (policy level promote): no full-size input to follow.
  NoInputToFollow,
  /// As painted (policy level promote): a backward op is not promoted.
  BackwardNotPromoted,
};

struct OpDecision {
  OpClass opClass = OpClass::NoF32Data;
  OpPrecision precision = OpPrecision::Unchanged;
  DecisionReason reason = DecisionReason::NoF32Data;
  TrainingRegion region = TrainingRegion::Forward;
  /// Why the op is in its class: "default allow list", "policy file p.json
  /// (deny)", "structure: contraction", "body uses math.exp (deny list)".
  std::string classDetail;
  /// A fact behind the reason: the range fact, the tensor types left alone.
  std::string detail;
  /// The op that caused the colour (the deny op that tainted it, the
  /// low-precision neighbour a clear op follows); null when none.
  mlir::Operation *cause = nullptr;
};

/// A value carried across a control-flow boundary (RegionFlow.h): an scf.for
/// iter_arg with its init, yield operand and result, an scf.if result with
/// both yield operands, an scf.while `before` argument or `after` argument
/// and result. Painted as one clear node, so it has one precision on every
/// side of the boundary.
struct CarriedValue {
  /// The region-branch op (scf.for, scf.if, scf.while, ...).
  mlir::Operation *owner = nullptr;
  /// The number that names it in reports (CarriedGroup::getNumber): the
  /// result number, else the region argument's.
  unsigned index = 0;
  /// Its members (region arguments, results) and the operands flowing in.
  CarriedGroup group;
  OpPrecision precision = OpPrecision::FP32;
  DecisionReason reason = DecisionReason::NotBetweenAllowOps;
  /// The op that caused the colour; null when none.
  mlir::Operation *cause = nullptr;
  /// The range fact, for RangeUnsafe.
  std::string detail;
};

/// How an allow op of TOSA runs in low precision, after TOSA's f16/bf16
/// profiles: its first `numLowOperands` operands take the low type and the
/// `numZeroPoints` after them become zero-point constants of it. With
/// `lowResult` (the convolutions) it returns the low type and accumulates in
/// f32 (acc_type); without (tosa.matmul), it returns f32.
struct TosaLowPrecisionRule {
  unsigned numLowOperands;
  unsigned numZeroPoints;
  bool lowResult;
};
/// The rule of `op`, or null when it is no TOSA op mpt can run in low
/// precision as an allow op.
const TosaLowPrecisionRule *getTosaLowPrecisionRule(mlir::Operation *op);

/// Whether `op` is an `arith.cmpf` for equality or inequality (oeq, ueq,
/// one, une): its answer changes when an operand is rounded.
bool isFloatEqualityCompare(mlir::Operation *op);

class PrecisionPlan {
public:
  /// Classifies and paints every op of `func` (not the ops inside linalg
  /// bodies: they belong to their op). Linear in the size of the function.
  PrecisionPlan(mlir::FunctionOpInterface func, const PrecisionPolicy &policy,
                const TrainingGraph &graph);

  /// The ops of the plan, in program order.
  llvm::ArrayRef<mlir::Operation *> getOps() const { return ops; }
  const OpDecision &getDecision(mlir::Operation *op) const;
  bool isLow(mlir::Operation *op) const;
  const PrecisionPolicy &getPolicy() const { return policy; }

  /// One line saying why `op` got its precision.
  std::string describe(mlir::Operation *op) const;

  /// The carried values (f32 or low-precision float tensors), in program
  /// order of their owners.
  llvm::ArrayRef<CarriedValue> getCarriedValues() const { return carried; }
  /// One line saying why a carried value got its precision.
  std::string describe(const CarriedValue &value) const;

  /// Whether `operand` of a low op keeps its f32 type (policy level
  /// promote: a broadcast input of an elementwise op, such as the mean
  /// and 1/std of a normalisation or a per-channel scale).
  bool keepsF32(mlir::OpOperand &operand) const;

  /// Whether `operand` is a broadcast input of an elementwise linalg op:
  /// it has fewer elements than the iteration domain.
  static bool isBroadcastInput(mlir::OpOperand &operand);

  /// The f32 tensor operands whose type follows `op`'s precision: the
  /// inputs of an allow op, every f32 tensor operand of an infer/clear op.
  /// Inits of a linalg op whose body never reads them are not included.
  static void getPrecisionOperands(mlir::Operation *op, OpClass opClass,
                                   llvm::SmallVectorImpl<mlir::OpOperand *> &out);

private:
  /// Policy level promote: infer/clear ops that painting left f32 follow
  /// the precision of their full-size inputs, in program order.
  void promoteFollowers();
  /// The reason text of a decision promoteFollowers made.
  void describePromotion(mlir::Operation *op, const OpDecision &decision,
                         llvm::raw_ostream &os) const;

  const PrecisionPolicy &policy;
  llvm::SmallVector<mlir::Operation *> ops;
  llvm::DenseMap<mlir::Operation *, OpDecision> decisions;
  llvm::SmallVector<CarriedValue> carried;
};

} // namespace mpt

#endif // MPT_ANALYSIS_PRECISIONPLAN_H
