//===- WidenBoolTensors.cpp - keep i1 tensors as bytes --------------------===//
//
// A mask that one op computes and others read (a max pool's argmax mask in
// the backward, a one-hot target) is an i1 tensor. Its buffer holds a byte
// per element, but a vector<16xi1> is 16 packed bits to LLVM, so
// --mpt-vectorize-cpu-loops leaves every op that touches an i1 buffer as
// scalar loops. Here, on tensors, such an i1 intermediate becomes an i8 one:
// its producer stores its value widened (arith.extui, 0 or 1) and each
// reader narrows it back (arith.trunci) in its body. The same bits are
// computed; the ops around the mask vectorize.
//
//===----------------------------------------------------------------------===//
#include "mpt/Conversion/CPUPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mpt {
#define GEN_PASS_DEF_WIDENBOOLTENSORS
#include "mpt/Conversion/CPUPasses.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// Whether `result`, an i1 tensor result of `producer`, can become i8: its
/// init is a tensor.empty its body does not read, and only linalg.generic
/// inputs read it.
static bool isWidenable(linalg::GenericOp producer, OpResult result) {
  OpOperand *init = producer.getDpsInitOperand(result.getResultNumber());
  if (!init->get().getDefiningOp<tensor::EmptyOp>() ||
      !producer.getMatchingBlockArgument(init).use_empty())
    return false;
  return !result.use_empty() &&
         llvm::all_of(result.getUses(), [](OpOperand &use) {
           auto reader = dyn_cast<linalg::GenericOp>(use.getOwner());
           return reader && reader.isDpsInput(&use);
         });
}

struct WidenBoolTensorsPass
    : mpt::impl::WidenBoolTensorsBase<WidenBoolTensorsPass> {
  void runOnOperation() override {
    SmallVector<OpResult> masks;
    getOperation().walk([&](linalg::GenericOp op) {
      if (!op.hasPureTensorSemantics())
        return;
      for (OpResult result : op->getResults()) {
        auto type = dyn_cast<RankedTensorType>(result.getType());
        if (type && type.getElementType().isInteger(1) &&
            isWidenable(op, result))
          masks.push_back(result);
      }
    });
    OpBuilder b(&getContext());
    Type i8 = b.getI8Type();
    for (OpResult result : masks) {
      auto producer = cast<linalg::GenericOp>(result.getOwner());
      auto type = cast<RankedTensorType>(result.getType());
      auto wide = type.clone(i8);
      // The producer: an i8 init, its yielded value widened.
      OpOperand *init = producer.getDpsInitOperand(result.getResultNumber());
      auto empty = init->get().getDefiningOp<tensor::EmptyOp>();
      b.setInsertionPoint(producer);
      init->set(tensor::EmptyOp::create(b, empty.getLoc(), wide,
                                        empty.getDynamicSizes()));
      if (empty->use_empty())
        empty->erase();
      producer.getMatchingBlockArgument(init).setType(i8);
      Operation *yield = producer.getBody()->getTerminator();
      OpOperand &yielded = yield->getOpOperand(result.getResultNumber());
      b.setInsertionPoint(yield);
      yielded.set(arith::ExtUIOp::create(b, yield->getLoc(), i8,
                                         yielded.get()));
      result.setType(wide);
      // Each reader: its block argument narrowed back at the body's start.
      for (OpOperand &use : result.getUses()) {
        auto reader = cast<linalg::GenericOp>(use.getOwner());
        BlockArgument arg = reader.getMatchingBlockArgument(&use);
        if (arg.getType() == i8)
          continue; // the same mask read twice: done already
        arg.setType(i8);
        b.setInsertionPointToStart(reader.getBody());
        auto narrow = arith::TruncIOp::create(b, reader.getLoc(),
                                              b.getI1Type(), arg);
        arg.replaceAllUsesExcept(narrow.getResult(), narrow.getOperation());
      }
    }
  }
};

} // namespace
