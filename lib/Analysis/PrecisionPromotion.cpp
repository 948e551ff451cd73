//===- PrecisionPromotion.cpp - policy level promote ----------------------===//
//
// PyTorch autocast runs an op that is on neither of its lists in the type of
// its inputs (type promotion: the widest one), so batch norm, ReLU, pooling
// and residual adds after a low-precision convolution run in low precision.
// Policy level promote does the same on top of the grappler painting: an
// infer or clear op that painting left f32 becomes low when its full-size
// inputs all come from low ops (an allow op's f32 accumulator counts as low:
// PyTorch's convolution returns the low type), and stays f32 when one of
// them is f32 (a reduction, a deny op, a function argument, an op kept f32).
// Broadcast inputs (a normalisation's mean and 1/std, per-channel scale and
// shift) do not take part: they stay f32 and the body computes in f32, as
// cuDNN's and oneDNN's mixed-precision batch norm do. Ops are visited in
// program order, so a producer is decided before its users: linear.
//
// A backward op is promoted only when it reads a low forward value (it is
// the backward of a low forward op: ReLU's mask, a low batch norm's
// normalised input). PyTorch runs an op's backward in the type of its
// forward, not in the type of the incoming gradient; promoting by the
// gradient alone put the backward of the GPT block's f32 layer norms and
// loss in f16 behind every low matmul gradient, which skipped steps
// GradScaler does not skip and ended 2.3% from FP32 in f16. The rule is
// f16's: bf16 has f32's range, and promoting the gradient chains there too
// keeps the backward's temporaries 16-bit (ResNet-18's step peak 0.63 of
// FP32's instead of 0.95). Clear ops (transposes, reshapes, slices, max)
// move or pick values and cannot overflow: they follow their inputs in f16
// too, as do ops that only add or pick gradients (the gradient of a value
// used twice). An op that reads what a promoted backward op computed is
// part of that low forward op's backward (a decomposed batch norm's
// backward is a chain of them) and is promoted too. Painting still makes
// backward ops between low ops low.
//
// A backward op that reads a gradient kept f32 for range (or computed from
// one, however many f32 ops later) together with low ones stays f32 in f16:
// rounding the kept gradient to f16 would undo the rule where it matters
// (a pre-norm transformer's residual gradient: the layer norm's backward,
// kept f32, scaled by 1/std = 316 on a zero padding embedding, added to the
// attention's f16 gradient overflowed at a loss scale GradScaler keeps;
// PyTorch sums a tensor's gradients in its f32 type).
//
//===----------------------------------------------------------------------===//
#include "mpt/Analysis/PrecisionPlan.h"
#include "mpt/Support/Report.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mpt;

bool PrecisionPlan::isBroadcastInput(OpOperand &operand) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(operand.getOwner());
  if (!linalgOp || !linalgOp.isDpsInput(&operand) ||
      linalgOp.getNumReductionLoops() != 0)
    return false;
  AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
  if (map.isPermutation())
    return false;
  auto type = dyn_cast<RankedTensorType>(operand.get().getType());
  if (!type || !type.hasStaticShape())
    return true;
  int64_t domain = 1;
  for (int64_t range : linalgOp.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(range))
      return true;
    domain *= range;
  }
  return type.getNumElements() < domain;
}

bool PrecisionPlan::keepsF32(OpOperand &operand) const {
  if (policy.getLevel() != PolicyLevel::Promote)
    return false;
  Operation *op = operand.getOwner();
  auto it = decisions.find(op);
  if (it == decisions.end() || it->second.precision != OpPrecision::Low ||
      it->second.opClass == OpClass::Allow)
    return false;
  // Only a generic's body can read an f32 input and write low precision;
  // named ops (linalg.broadcast) need one element type (found by mpt-fuzz).
  return isa<linalg::GenericOp>(op) && isBroadcastInput(operand);
}

/// Whether `op` only adds, subtracts, negates or picks its float inputs (a
/// gradient accumulation, a residual's gradient): its result is at most the
/// sum of its inputs' magnitudes, so it needs no more range than they have.
static bool onlyAddsOrPicks(Operation *op) {
  auto isAdditive = [](Operation &scalar) {
    return isa<arith::AddFOp, arith::SubFOp, arith::NegFOp, arith::SelectOp,
               arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
               arith::MinNumFOp, arith::CmpFOp, arith::ExtFOp,
               arith::TruncFOp, arith::ConstantOp>(scalar);
  };
  if (auto generic = dyn_cast<linalg::GenericOp>(op))
    return llvm::all_of(generic.getBody()->without_terminator(), isAdditive);
  return op->getNumRegions() == 0 && isAdditive(*op);
}

namespace {
/// What a full-size input says about its user's precision.
enum class Vote { Low, F32, Neutral };
} // namespace

void PrecisionPlan::promoteFollowers() {
  // The carried values, by the values that stand for them.
  llvm::DenseMap<Value, const CarriedValue *> carriedOf;
  for (const CarriedValue &value : carried)
    for (Value member : value.group.members)
      carriedOf[member] = &value;
  // The vote of `value` (looked through casts); `cause` is the op behind it
  // (null for an argument).
  auto voteOf = [&](Value &value, Operation *&cause) -> Vote {
    // Casts are transparent: they are autocast's own, from an earlier run.
    while (auto def = value.getDefiningOp())
      if (isa<arith::ExtFOp, arith::TruncFOp>(def) &&
          isa<TensorType>(value.getType()))
        value = def->getOperand(0);
      else
        break;
    if (const CarriedValue *c = carriedOf.lookup(value)) {
      cause = c->owner;
      return c->precision == OpPrecision::Low ? Vote::Low : Vote::F32;
    }
    Operation *def = value.getDefiningOp();
    cause = def;
    if (!def)
      return Vote::F32; // a function argument: data and parameters are f32
    auto it = decisions.find(def);
    if (it == decisions.end())
      return Vote::F32;
    const OpDecision &d = it->second;
    if (d.precision == OpPrecision::Low)
      return Vote::Low;
    if (d.opClass == OpClass::NoF32Data)
      return def->hasTrait<OpTrait::ConstantLike>() || isa<tensor::EmptyOp>(def)
                 ? Vote::Neutral
                 : Vote::F32;
    // An f32 infer/clear op without full-size inputs (a fill, the broadcast
    // of a parameter) takes its user's precision through a cast.
    if ((d.opClass == OpClass::Infer || d.opClass == OpClass::Clear) &&
        d.reason == DecisionReason::NoInputToFollow)
      return Vote::Neutral;
    // A gradient kept f32 for range does not make the backward of a low
    // op f32: that op reads it rounded, as PyTorch's low backward reads
    // the incoming gradient in its own type.
    if (d.reason == DecisionReason::BackwardNotPromoted)
      return Vote::Neutral;
    return Vote::F32;
  };

  // The backward rule below is about range: bf16 has f32's exponents, so a
  // bf16 gradient chain cannot overflow where the f32 one does not.
  bool backwardNeedsRange = policy.getLowType().isF16();
  auto regionOf = [&](Operation *op) {
    auto it = decisions.find(op);
    return it == decisions.end() ? TrainingRegion::Forward
                                 : it->second.region;
  };
  // Backward ops promoted because they are (part of) the backward of a low
  // forward op: they read a low forward value, or a value such an op
  // computed. A decomposed batch norm's backward subtracts and scales
  // gradient terms that one of its ops computed from the low normalised
  // value; those ops run in the forward's type too, as PyTorch's one batch
  // norm backward kernel does. An allow op's gradient does not count: a
  // contraction is low for its own reasons, whatever the op before it.
  llvm::DenseSet<Operation *> lowForwardBackward;
  // Backward ops kept f32 for range, and the f32 ops computed from them.
  llvm::DenseSet<Operation *> rangeKept;
  for (Operation *op : ops) {
    OpDecision &decision = decisions[op];
    if (decision.reason != DecisionReason::DenyTaint &&
        decision.reason != DecisionReason::NotBetweenAllowOps)
      continue;
    SmallVector<OpOperand *> operands;
    getPrecisionOperands(op, decision.opClass, operands);
    Operation *lowCause = nullptr, *f32Cause = nullptr, *rangeCause = nullptr;
    bool anyLow = false, anyF32 = false, readsLowForward = false;
    std::string f32Detail;
    for (OpOperand *operand : operands) {
      if (isBroadcastInput(*operand))
        continue;
      Operation *cause = nullptr;
      Value source = operand->get();
      switch (voteOf(source, cause)) {
      case Vote::Low:
        if (!anyLow)
          lowCause = cause;
        anyLow = true;
        if (cause && (regionOf(cause) == TrainingRegion::Forward ||
                      lowForwardBackward.contains(cause)))
          readsLowForward = true;
        break;
      case Vote::F32:
        if (!anyF32) {
          f32Cause = cause;
          if (auto arg = dyn_cast<BlockArgument>(source))
            f32Detail = (isa<FunctionOpInterface>(arg.getOwner()->getParentOp())
                             ? "function argument #"
                             : "block argument #") +
                        std::to_string(arg.getArgNumber());
        }
        anyF32 = true;
        break;
      case Vote::Neutral:
        if (!rangeCause && cause && rangeKept.contains(cause))
          rangeCause = cause;
        break;
      }
    }
    if (anyLow && !anyF32 && rangeCause && backwardNeedsRange &&
        decision.region == TrainingRegion::Backward) {
      decision.reason = DecisionReason::BackwardNotPromoted;
      decision.cause = rangeCause;
      rangeKept.insert(op);
      continue;
    }
    if (anyLow && !anyF32) {
      // Only gradients to follow (not the backward of a low forward op),
      // and an f16 result could overflow: the range rule above.
      if (backwardNeedsRange && decision.region == TrainingRegion::Backward &&
          decision.opClass == OpClass::Infer && !readsLowForward &&
          !onlyAddsOrPicks(op)) {
        decision.reason = DecisionReason::BackwardNotPromoted;
        decision.cause = nullptr;
        rangeKept.insert(op);
        continue;
      }
      decision.precision = OpPrecision::Low;
      decision.reason = DecisionReason::FollowsLowInputs;
      decision.cause = lowCause;
      if (decision.region == TrainingRegion::Backward && readsLowForward)
        lowForwardBackward.insert(op);
    } else if (anyF32) {
      decision.reason = DecisionReason::FollowsF32Input;
      decision.cause = f32Cause;
      decision.detail = f32Detail;
    } else {
      // No full-size input, or only constants and fills.
      decision.reason = DecisionReason::NoInputToFollow;
      if (rangeCause)
        rangeKept.insert(op);
    }
  }
}

void PrecisionPlan::describePromotion(Operation *op, const OpDecision &d,
                                      llvm::raw_ostream &os) const {
  StringRef low = policy.getLowTypeName();
  os << stringifyOpClass(d.opClass) << " (" << d.classDetail << ") ";
  auto causeText = [&]() {
    return (d.cause->getName().getStringRef() + " at " +
            formatLocation(d.cause->getLoc()))
        .str();
  };
  bool broadcasts = false;
  for (OpOperand &operand : op->getOpOperands())
    broadcasts |= keepsF32(operand);
  switch (d.reason) {
  case DecisionReason::FollowsLowInputs:
    os << "promote: its full-size inputs are " << low << " (" << causeText()
       << "): painted " << low;
    if (broadcasts)
      os << ", broadcast inputs stay f32";
    break;
  case DecisionReason::FollowsF32Input:
    os << "promote: reads f32 "
       << (d.cause ? "op " + causeText() : d.detail) << ": stays f32";
    break;
  case DecisionReason::BackwardNotPromoted:
    if (d.cause)
      os << "promote: reads a gradient kept f32 for range (" << causeText()
         << ") with f16 ones: stays f32";
    else
      os << "promote: an f16 backward op that reads no low forward value "
            "runs in f32 (range), not in its gradient's type: stays f32";
    break;
  default:
    os << "promote: no full-size input to follow: stays f32";
    break;
  }
}
