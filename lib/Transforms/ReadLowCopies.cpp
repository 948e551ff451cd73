//===- ReadLowCopies.cpp - the backward reads 16-bit copies ---------------===//
//
// After autocast a forward value often exists twice: in f32 and as its
// 16-bit copy (the cast a low op reads). When the backward reads the f32
// one, both stay alive from the forward to the backward. PyTorch AMP keeps
// only what the low op saved for its backward, the 16-bit tensor; this
// rewrite does the same: a backward linalg.generic that reads
//   a. `arith.extf` of a 16-bit forward value reads that value, extending
//      it in its body (exact: extension loses nothing), or
//   b. an f32 forward value that also has a 16-bit copy reads the copy,
//      extended in its body, when every backward reader of the f32 value
//      can: the backward then sees the value rounded to 16 bits, as in
//      PyTorch, and the f32 tensor dies in the forward.
//   c. an f32 forward value that an elementwise generic converts exactly
//      from a narrower forward value (a one-hot or dropout mask `uitofp`
//      from i1, an `extf`) reads the narrow value and converts it in its
//      body, when every backward reader can: no numerical change, and the
//      backward keeps 1 byte an element instead of 4 (PyTorch's cross
//      entropy keeps the target indices, not a float one-hot).
// The casts and conversions left unused are erased by cleanupCasts and the
// canonicalizer. Linear in the IR.
//
//===----------------------------------------------------------------------===//
#include "mpt/Analysis/TrainingGraph.h"
#include "mpt/Transforms/Autocast.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mpt;

/// The body argument of input `operand` of a generic, if the op can read it
/// in another element type (its body extends it).
static BlockArgument getRetypableArgument(OpOperand &operand) {
  auto generic = dyn_cast<linalg::GenericOp>(operand.getOwner());
  if (!generic || !generic.isDpsInput(&operand))
    return nullptr;
  return generic.getMatchingBlockArgument(&operand);
}

/// Whether the body compares input `operand`'s elements for equality
/// (torch-mlir's argmax recovery after a max pooling compares the pooled
/// maximum with each input element): read rounded, they would match no
/// element, and the index found would be -1.
static bool comparesForEquality(OpOperand &operand) {
  BlockArgument arg = getRetypableArgument(operand);
  return arg && llvm::any_of(arg.getUsers(), isFloatEqualityCompare);
}

/// Makes `operand` read `lowValue` and its body argument convert it back:
/// a clone of `conversion` (a scalar cast op with one operand), or an
/// `arith.extf` when null.
static void readLow(OpOperand &operand, Value lowValue,
                    Operation *conversion = nullptr) {
  BlockArgument arg = getRetypableArgument(operand);
  Type f32 = arg.getType();
  Type low = cast<TensorType>(lowValue.getType()).getElementType();
  operand.set(lowValue);
  arg.setType(low);
  if (arg.use_empty())
    return;
  OpBuilder builder = OpBuilder::atBlockBegin(arg.getOwner());
  Operation *convert =
      conversion ? builder.clone(*conversion)
                 : arith::ExtFOp::create(builder, arg.getLoc(), f32, arg);
  convert->setOperand(0, arg);
  arg.replaceAllUsesExcept(convert->getResult(0), convert);
}

/// If `value` is the result of an elementwise generic whose body only
/// converts its one input exactly to f32 (`extf`; `uitofp`/`sitofp` of an
/// integer that f32 holds exactly), its input and the conversion.
static std::pair<Value, Operation *> getExactConversion(Value value) {
  auto generic = value.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic->getNumResults() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return {};
  OpOperand *input = generic.getDpsInputOperand(0);
  if (generic.getMatchingIndexingMap(input) !=
          generic.getMatchingIndexingMap(generic.getDpsInitOperand(0)) ||
      !isa<TensorType>(input->get().getType()))
    return {};
  Block *body = generic.getBody();
  if (body->getOperations().size() != 2)
    return {};
  Operation *convert = &body->front();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  if (convert->getNumOperands() != 1 ||
      convert->getOperand(0) != generic.getMatchingBlockArgument(input) ||
      yield.getOperand(0) != convert->getResult(0))
    return {};
  // f32 has a 24-bit significand: integers of up to 24 bits are exact.
  bool exact = TypeSwitch<Operation *, bool>(convert)
                   .Case<arith::ExtFOp>([](auto) { return true; })
                   .Case<arith::UIToFPOp>([](arith::UIToFPOp op) {
                     return op.getIn().getType().getIntOrFloatBitWidth() <= 24;
                   })
                   .Case<arith::SIToFPOp>([](arith::SIToFPOp op) {
                     return op.getIn().getType().getIntOrFloatBitWidth() <= 25;
                   })
                   .Default([](Operation *) { return false; });
  if (!exact)
    return {};
  return {input->get(), convert};
}

unsigned mpt::readLowCopiesInBackward(FunctionOpInterface func,
                                      Type lowType) {
  TrainingGraph graph(func);
  if (failed(graph.emitFindings()) || !graph.isTrainingStep())
    return 0;
  auto isForward = [&](Value value) {
    Operation *def = value.getDefiningOp();
    return def && graph.getRegion(def) == TrainingRegion::Forward;
  };
  auto isBackward = [&](Operation *op) {
    return graph.getRegion(op) == TrainingRegion::Backward;
  };
  auto isF32Tensor = [](Value value) {
    auto tensor = dyn_cast<TensorType>(value.getType());
    return tensor && tensor.getElementType().isF32();
  };

  unsigned switched = 0;
  SmallVector<arith::ExtFOp> extensions;
  SmallVector<Value> candidates;
  func.walk([&](Operation *op) {
    if (auto ext = dyn_cast<arith::ExtFOp>(op)) {
      if (isF32Tensor(ext.getResult()) && isForward(ext.getIn()) &&
          cast<TensorType>(ext.getIn().getType()).getElementType() == lowType)
        extensions.push_back(ext);
      return;
    }
    if (op->getNumResults() == 0 || !isForward(op->getResult(0)))
      return;
    for (Value v : op->getResults())
      if (isF32Tensor(v))
        candidates.push_back(v);
  });
  // a. Backward generics reading the extension of a 16-bit forward value.
  for (arith::ExtFOp ext : extensions)
    for (OpOperand &use : llvm::make_early_inc_range(ext->getUses()))
      if (isBackward(use.getOwner()) && getRetypableArgument(use)) {
        readLow(use, ext.getIn());
        ++switched;
      }
  DominanceInfo dominance(func);
  // Whether every backward reader of `v` is a generic that can switch to a
  // value defined by `def` (`rounded`: a copy rounded to 16 bits, which a
  // reader comparing elements for equality cannot take); and whether there
  // is one.
  auto backwardReadersCanSwitch = [&](Value v, Operation *def, bool rounded) {
    bool allSwitchable = true, anyBackward = false;
    for (OpOperand &use : v.getUses()) {
      if (use.getOwner() == def || !isBackward(use.getOwner()))
        continue;
      anyBackward = true;
      allSwitchable &= getRetypableArgument(use) &&
                       !(rounded && comparesForEquality(use)) &&
                       (!def || dominance.properlyDominates(def, use.getOwner()));
    }
    return anyBackward && allSwitchable;
  };
  for (Value v : candidates) {
    // c. An exact conversion of a narrower forward value.
    auto [narrow, conversion] = getExactConversion(v);
    // (The narrow value dominates v's definition, hence v's readers.)
    if (narrow &&
        cast<TensorType>(narrow.getType()).getElementTypeBitWidth() < 32 &&
        backwardReadersCanSwitch(v, nullptr, /*rounded=*/false)) {
      for (OpOperand &use : llvm::make_early_inc_range(v.getUses()))
        if (isBackward(use.getOwner())) {
          readLow(use, narrow, conversion);
          ++switched;
        }
      continue;
    }
    // b. An f32 value with a 16-bit copy.
    Value copy;
    for (Operation *user : v.getUsers())
      if (auto trunc = dyn_cast<arith::TruncFOp>(user))
        if (cast<TensorType>(trunc.getType()).getElementType() == lowType)
          copy = trunc.getResult();
    if (!copy ||
        !backwardReadersCanSwitch(v, copy.getDefiningOp(), /*rounded=*/true))
      continue;
    for (OpOperand &use : llvm::make_early_inc_range(v.getUses()))
      if (use.getOwner() != copy.getDefiningOp() && isBackward(use.getOwner())) {
        readLow(use, copy);
        ++switched;
      }
  }
  return switched;
}
