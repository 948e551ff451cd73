//===- ReturnArgumentBuffers.cpp - --mpt-return-argument-buffers ----------===//
//
// A returned clone of an argument buffer becomes the argument itself. See
// the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"

namespace mpt {
#define GEN_PASS_DEF_RETURNARGUMENTBUFFERS
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {
struct ReturnArgumentBuffersPass
    : public mpt::impl::ReturnArgumentBuffersBase<ReturnArgumentBuffersPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    func.walk([&](func::ReturnOp ret) {
      for (OpOperand &operand : ret->getOpOperands()) {
        auto clone = operand.get().getDefiningOp<bufferization::CloneOp>();
        if (!clone || !clone->hasOneUse())
          continue;
        auto arg = dyn_cast<BlockArgument>(clone.getInput());
        if (!arg || arg.getOwner() != &func.getBody().front() ||
            arg.getType() != clone.getType())
          continue;
        operand.set(arg);
        clone->erase();
      }
    });
  }
};
} // namespace
