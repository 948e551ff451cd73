//===- StripTrainingMarkers.cpp - --mpt-strip-training-markers ------------===//
#include "mpt/IR/MPTOps.h"
#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mpt {
#define GEN_PASS_DEF_STRIPTRAININGMARKERS
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
/// mpt.grad_seed %loss -> a tensor of ones of the loss's type.
struct LowerGradSeed : OpRewritePattern<GradSeedOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GradSeedOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Location loc = op.getLoc();
    TypedAttr one = rewriter.getFloatAttr(type.getElementType(), 1.0);
    if (type.hasStaticShape()) {
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          op, DenseElementsAttr::get(type, one));
      return success();
    }
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, op.getLoss());
    Value empty = tensor::EmptyOp::create(rewriter, loc, sizes,
                                          type.getElementType());
    Value scalar = arith::ConstantOp::create(rewriter, loc, one);
    rewriter.replaceOpWithNewOp<linalg::FillOp>(op, scalar, empty);
    return success();
  }
};

/// mpt.gradient %g -> %g.
struct LowerGradient : OpRewritePattern<GradientOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GradientOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, op.getInput());
    return success();
  }
};

struct StripTrainingMarkersPass
    : public mpt::impl::StripTrainingMarkersBase<StripTrainingMarkersPass> {
  void runOnOperation() override {
    // Only the markers (and what replaces them) are rewritten, not the
    // whole step.
    SmallVector<Operation *> markers;
    llvm::SetVector<Operation *> seedUsers, seedCasts;
    getOperation().walk([&](Operation *op) {
      if (isa<GradientOp>(op))
        markers.push_back(op);
      if (!isa<GradSeedOp>(op))
        return;
      markers.push_back(op);
      // The ops that will read the seed: through gradient markers (which
      // forward it and are erased) and through casts of it (autocast's
      // truncf of the seed, folded to a constant below, else any later
      // folding would make the constant visible to the reader only then).
      SmallVector<Operation *> readers(op->getUsers());
      while (!readers.empty()) {
        Operation *reader = readers.pop_back_val();
        if (isa<GradientOp>(reader)) {
          readers.append(reader->user_begin(), reader->user_end());
        } else if (isa<CastOpInterface>(reader) &&
                   reader->getNumOperands() == 1 &&
                   reader->getNumResults() == 1) {
          seedCasts.insert(reader);
          readers.append(reader->user_begin(), reader->user_end());
        } else if (!isa<GradSeedOp>(reader)) {
          seedUsers.insert(reader);
        }
      }
    });
    if (markers.empty())
      return;
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerGradSeed, LowerGradient>(&getContext());
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    // The seed's casts are driven too: the driver folds them once the seed
    // is a constant.
    SmallVector<Operation *> driven(markers);
    driven.append(seedCasts.begin(), seedCasts.end());
    if (failed(applyOpPatternsGreedily(driven, std::move(patterns), config)))
      return signalPassFailure();
    // The seed becomes a visible constant of ones; an op that needs a
    // specific constant there (a TOSA zero point must be 0) now fails its
    // verifier: say so here, at that op, rather than emit invalid IR.
    for (Operation *user : seedUsers)
      if (failed(verify(user, /*verifyRecursively=*/false)))
        return signalPassFailure();
  }
};
} // namespace
