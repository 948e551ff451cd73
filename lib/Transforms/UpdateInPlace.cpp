//===- UpdateInPlace.cpp - --mpt-update-in-place --------------------------===//
//
// New parameters and optimizer state computed into the argument they
// update, so that bufferization can reuse the argument's buffer. See the
// pass description in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "mpt/IR/TrainingContract.h"
#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mpt {
#define GEN_PASS_DEF_UPDATEINPLACE
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;

/// The init of `generic` behind `result` if the op writes every element of
/// it once without reading it: an elementwise op (all loops parallel, the
/// identity map on that init) whose body ignores the init's value.
static OpOperand *getUnreadInit(linalg::GenericOp generic, OpResult result) {
  if (generic.getNumReductionLoops() != 0)
    return nullptr;
  OpOperand *init = generic.getDpsInitOperand(result.getResultNumber());
  if (!generic.getMatchingIndexingMap(init).isIdentity() ||
      generic.payloadUsesValueFromOperand(init))
    return nullptr;
  return init;
}

namespace {
struct UpdateInPlacePass
    : public mpt::impl::UpdateInPlaceBase<UpdateInPlacePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return;
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    for (unsigned index = 0, e = func.getNumResults(); index < e; ++index) {
      std::optional<unsigned> argIndex = mpt::getUpdatedArg(func, index);
      if (!argIndex || *argIndex >= func.getNumArguments())
        continue;
      BlockArgument arg = func.getArgument(*argIndex);
      auto result = dyn_cast<OpResult>(ret.getOperand(index));
      if (!result || result.getType() != arg.getType())
        continue;
      auto generic = dyn_cast<linalg::GenericOp>(result.getOwner());
      if (!generic || !generic.hasPureTensorSemantics())
        continue;
      // An init that is already an argument stays: this argument, or
      // another one an earlier result (the same value returned twice) took.
      OpOperand *init = getUnreadInit(generic, result);
      if (!init || isa<BlockArgument>(init->get()))
        continue;
      init->set(arg);
    }
  }
};
} // namespace
