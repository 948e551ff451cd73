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
// The casts left unused are erased by cleanupCasts. Linear in the IR.
//
//===----------------------------------------------------------------------===//
#include "mpt/Analysis/TrainingGraph.h"
#include "mpt/Transforms/Autocast.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"

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

/// Makes `operand` read `lowValue` and its body argument extend it.
static void readLow(OpOperand &operand, Value lowValue) {
  BlockArgument arg = getRetypableArgument(operand);
  Type f32 = arg.getType();
  Type low = cast<TensorType>(lowValue.getType()).getElementType();
  operand.set(lowValue);
  arg.setType(low);
  if (arg.use_empty())
    return;
  OpBuilder builder = OpBuilder::atBlockBegin(arg.getOwner());
  Value ext = arith::ExtFOp::create(builder, arg.getLoc(), f32, arg);
  arg.replaceAllUsesExcept(ext, ext.getDefiningOp());
}

unsigned mpt::readLowCopiesInBackward(FunctionOpInterface func,
                                      Type lowType) {
  TrainingGraph graph(func);
  if (!graph.isValid() || !graph.isTrainingStep())
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
  for (Value v : candidates) {
    // b. An f32 value with a 16-bit copy.
    Value copy;
    for (Operation *user : v.getUsers())
      if (auto trunc = dyn_cast<arith::TruncFOp>(user))
        if (cast<TensorType>(trunc.getType()).getElementType() == lowType)
          copy = trunc.getResult();
    if (!copy)
      continue;
    bool allSwitchable = true, anyBackward = false;
    for (OpOperand &use : v.getUses()) {
      if (use.getOwner() == copy.getDefiningOp() || !isBackward(use.getOwner()))
        continue;
      anyBackward = true;
      allSwitchable &= getRetypableArgument(use) &&
                       dominance.properlyDominates(copy.getDefiningOp(),
                                                   use.getOwner());
    }
    if (!anyBackward || !allSwitchable)
      continue;
    for (OpOperand &use : llvm::make_early_inc_range(v.getUses()))
      if (use.getOwner() != copy.getDefiningOp() && isBackward(use.getOwner())) {
        readLow(use, copy);
        ++switched;
      }
  }
  return switched;
}
