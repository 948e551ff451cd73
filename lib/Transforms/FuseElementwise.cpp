//===- FuseElementwise.cpp - --mpt-fuse-elementwise -----------------------===//
//
// Fewer and shorter-lived temporaries before bufferization: elementwise
// producers fused into their only reader, and one fill per reader. See the
// pass description in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mpt {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {
/// Places an op whose result only starts a buffer (`tensor.empty`, a tensor
/// `linalg.fill`) right before each op of its block that uses it: one clone
/// per user when there are several, the op itself moved when there is one.
/// Importers and CSE share one empty tensor or one fill of zeros among the
/// forward and backward ops of a shape, and bufferization allocates where
/// the op is: the buffer then lives from the first forward use to the last
/// backward one (and the other users get copies). A fill costs one pass
/// over memory; a buffer kept from the forward to the backward costs its
/// whole size for that time. Users in nested regions keep the shared op
/// (a clone there would allocate in every iteration).
template <typename OpTy>
struct PlaceBeforeUsers : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (op->getNumResults() != 1 ||
        !isa<RankedTensorType>(op->getResult(0).getType()))
      return failure();
    Block *block = op->getBlock();
    SmallVector<OpOperand *> local;
    bool nested = false;
    for (OpOperand &use : op->getResult(0).getUses()) {
      if (use.getOwner()->getBlock() == block)
        local.push_back(&use);
      else
        nested = true;
    }
    if (local.empty())
      return failure();
    if (local.size() == 1 && !nested) {
      Operation *user = local.front()->getOwner();
      if (op->getNextNode() == user)
        return failure();
      rewriter.moveOpBefore(op, user);
      return success();
    }
    for (OpOperand *use : local) {
      rewriter.setInsertionPoint(use->getOwner());
      Operation *clone = rewriter.clone(*op);
      rewriter.modifyOpInPlace(use->getOwner(),
                               [&] { use->set(clone->getResult(0)); });
    }
    if (!nested)
      rewriter.eraseOp(op);
    return success();
  }
};

struct FuseElementwisePass
    : public mpt::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Fuse a producer only into its single reader: with several readers
    // fusion would recompute it in each and keep it anyway.
    linalg::ControlFusionFn onlyReader = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse();
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, onlyReader);
    patterns.add<PlaceBeforeUsers<tensor::EmptyOp>,
                 PlaceBeforeUsers<linalg::FillOp>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
