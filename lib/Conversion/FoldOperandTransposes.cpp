//===- FoldOperandTransposes.cpp - read contraction inputs transposed -----===//
//
// A linear layer's forward reads its weight transposed (x W^T) and its weight
// gradient reads the output gradient transposed (dY^T x); attention reads K
// transposed. The importer materializes each as a linalg.transpose, a pass
// over the whole tensor before the contraction. The AMX kernel packs its
// inputs into tiles anyway and can pack from either layout
// (--mpt-matmul-to-cpu-kernels), so the transpose folds into the
// contraction's indexing map and the kernel reads the untransposed tensor.
//
//===----------------------------------------------------------------------===//
#include "mpt/Conversion/CPUPasses.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mpt {
#define GEN_PASS_DEF_FOLDOPERANDTRANSPOSES
#include "mpt/Conversion/CPUPasses.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// The transpose that defines `value` when it swaps the two innermost
/// dimensions and keeps the others (a matrix, or a batch of matrices).
static linalg::TransposeOp getInnerTranspose(Value value) {
  auto transpose = value.getDefiningOp<linalg::TransposeOp>();
  if (!transpose)
    return {};
  ArrayRef<int64_t> perm = transpose.getPermutation();
  int64_t rank = perm.size();
  if (rank < 2)
    return {};
  for (int64_t d = 0; d + 2 < rank; ++d)
    if (perm[d] != d)
      return {};
  if (perm[rank - 2] != rank - 1 || perm[rank - 1] != rank - 2)
    return {};
  return transpose;
}

/// A bf16 x bf16 contraction on tensors (what the AMX kernel takes) reading
/// an input through an inner transpose reads the transpose's input instead,
/// with the last two results of that input's indexing map swapped. A named
/// op is generalized first (the kernels take generic contractions too).
struct FoldTransposeIntoContraction
    : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
        !linalg::isaContractionOpInterface(op))
      return failure();
    if (!llvm::all_of(op.getDpsInputs(), [](Value input) {
          return getElementTypeOrSelf(input.getType()).isBF16();
        }))
      return failure();
    if (!llvm::any_of(op.getDpsInputs(),
                      [](Value input) { return getInnerTranspose(input); }))
      return failure();
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic) {
      FailureOr<linalg::GenericOp> generalized =
          linalg::generalizeNamedOp(rewriter, op);
      if (failed(generalized))
        return failure();
      generic = *generalized;
    }
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    rewriter.modifyOpInPlace(generic, [&] {
      for (OpOperand *input : generic.getDpsInputOperands()) {
        linalg::TransposeOp transpose = getInnerTranspose(input->get());
        if (!transpose)
          continue;
        AffineMap &map = maps[input->getOperandNumber()];
        SmallVector<AffineExpr> results(map.getResults());
        std::swap(results[results.size() - 2], results.back());
        map = AffineMap::get(map.getNumDims(), map.getNumSymbols(), results,
                             map.getContext());
        input->set(transpose.getInput());
      }
      generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    return success();
  }
};

struct FoldOperandTransposesPass
    : mpt::impl::FoldOperandTransposesBase<FoldOperandTransposesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldTransposeIntoContraction>(&getContext());
    // Transposes left without users are erased by the driver (they are
    // pure).
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
