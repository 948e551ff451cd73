//===- DecomposeAggregateOps.cpp - --mpt-decompose-aggregate-ops ----------===//
#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mpt {
#define GEN_PASS_DEF_DECOMPOSEAGGREGATEOPS
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {
/// Replaces an aggregate op by its decomposition.
struct DecomposeAggregate
    : OpInterfaceRewritePattern<linalg::AggregatedOpInterface> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::AggregatedOpInterface op,
                                PatternRewriter &rewriter) const override {
    FailureOr<SmallVector<Value>> replacements =
        op.decomposeOperation(rewriter);
    if (failed(replacements))
      return rewriter.notifyMatchFailure(op, "cannot be decomposed");
    rewriter.replaceOp(op, *replacements);
    return success();
  }
};

/// linalg.softmax verifies with an input and output of compatible but
/// different shapes (tensor<4x?xf32> into tensor<4x8xf32>), and its
/// decomposition then builds ops whose result types disagree with their
/// inits: report such a softmax here instead.
static LogicalResult verifyDecomposable(linalg::SoftmaxOp softmax) {
  Type input = softmax.getInput().getType();
  Type output = softmax.getOutput().getType();
  if (input == output)
    return success();
  return softmax.emitOpError()
         << "input type " << input << " and output type " << output
         << " differ: its decomposition needs one type";
}

struct DecomposeAggregateOpsPass
    : public mpt::impl::DecomposeAggregateOpsBase<DecomposeAggregateOpsPass> {
  void runOnOperation() override {
    if (getOperation()
            .walk([](linalg::SoftmaxOp softmax) {
              return failed(verifyDecomposable(softmax))
                         ? WalkResult::interrupt()
                         : WalkResult::advance();
            })
            .wasInterrupted())
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeAggregate>(&getContext());
    // No region simplification: merging a step's blocks is not this pass's
    // job, and a cf.cond_br to one block twice with different tensors (two
    // merged returns) is what one-shot-bufferize then turns into IR that
    // does not verify (MLIR 22).
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      return signalPassFailure();
  }
};
} // namespace
