//===- ConvToIm2Col.cpp - convolutions to im2col + contraction ------------===//
//
// A thin pass around upstream's linalg::rewriteInIm2Col: it chooses which
// convolutions to rewrite (by element type), so that the CPU pipeline can
// send them to its matmul kernels.
//
//===----------------------------------------------------------------------===//
#include "mpt/Conversion/CPUPasses.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

namespace mpt {
#define GEN_PASS_DEF_CONVTOIM2COL
#include "mpt/Conversion/CPUPasses.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

struct ConvToIm2ColPass : mpt::impl::ConvToIm2ColBase<ConvToIm2ColPass> {
  using ConvToIm2ColBase::ConvToIm2ColBase;

  bool wanted(linalg::LinalgOp op) const {
    if (!op.hasPureTensorSemantics())
      return false;
    if (allTypes)
      return true;
    Type a = getElementTypeOrSelf(op.getDpsInputs()[0]);
    Type b = getElementTypeOrSelf(op.getDpsInputs()[1]);
    Type c = getElementTypeOrSelf(op.getDpsInits()[0]);
    if (a != b || !c.isF32())
      return false;
    return a.isBF16() || (avx512 && (a.isF32() || a.isF16()));
  }

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> convs;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::Conv2DNchwFchwOp, linalg::Conv2DNhwcHwcfOp>(
              op.getOperation()) &&
          wanted(op))
        convs.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : convs) {
      rewriter.setInsertionPoint(op);
      // A convolution the rewrite does not support (it says why in its
      // match failure) stays a convolution: loops, as before.
      if (auto nchw = dyn_cast<linalg::Conv2DNchwFchwOp>(op.getOperation()))
        (void)linalg::rewriteInIm2Col(rewriter, nchw);
      else
        (void)linalg::rewriteInIm2Col(
            rewriter, cast<linalg::Conv2DNhwcHwcfOp>(op.getOperation()));
    }
  }
};

} // namespace
