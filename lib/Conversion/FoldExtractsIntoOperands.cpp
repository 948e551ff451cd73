//===- FoldExtractsIntoOperands.cpp - extracts at loop indices as operands ===//
//
// torch-mlir lowers torch.flip (and the filter flip of a convolution's input
// gradient) to a linalg.generic that reads its source with tensor.extract at
// indices computed from linalg.index. Where those indices are the loop
// indices themselves (or 0: a flip of a 1x1 filter is a transpose), the read
// is an indexing map: as an input operand it is a transpose that fusion and
// the vectorizer handle, where the extract becomes one scalar load per
// element after bufferization.
//
//===----------------------------------------------------------------------===//
#include "mpt/Conversion/CPUPasses.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mpt {
#define GEN_PASS_DEF_FOLDEXTRACTSINTOOPERANDS
#include "mpt/Conversion/CPUPasses.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// The indexing map under which `extract` (in `op`'s body) reads its tensor:
/// each index a linalg.index of `op` or the constant 0, and the map a
/// projected permutation (no loop twice); nothing otherwise, or when the
/// tensor is not defined outside `op`, or when its shape is not the loops'
/// (static) ranges: an operand must be as large as the loops it is indexed
/// by (a larger tensor read at the loop indices is a valid extract but an
/// invalid operand).
static std::optional<AffineMap> getExtractMap(linalg::GenericOp op,
                                              ArrayRef<int64_t> loopRanges,
                                              tensor::ExtractOp extract) {
  if (extract->getParentOp() != op.getOperation() ||
      op->isAncestor(extract.getTensor().getParentRegion()->getParentOp()))
    return std::nullopt;
  MLIRContext *context = op.getContext();
  SmallVector<AffineExpr> results;
  auto tensorType = cast<RankedTensorType>(extract.getTensor().getType());
  for (auto [position, index] : llvm::enumerate(extract.getIndices())) {
    int64_t size = tensorType.getDimSize(position);
    if (auto loop = index.getDefiningOp<linalg::IndexOp>()) {
      if (loop->getParentOp() != op.getOperation() ||
          loop.getDim() >= loopRanges.size() ||
          ShapedType::isDynamic(size) || size != loopRanges[loop.getDim()])
        return std::nullopt;
      results.push_back(getAffineDimExpr(loop.getDim(), context));
      continue;
    }
    if (!matchPattern(index, m_Zero()) || ShapedType::isDynamic(size) ||
        size < 1)
      return std::nullopt;
    results.push_back(getAffineConstantExpr(0, context));
  }
  auto map = AffineMap::get(op.getNumLoops(), 0, results, context);
  if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
    return std::nullopt;
  return map;
}

struct FoldExtractIntoOperand : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    SmallVector<std::pair<tensor::ExtractOp, AffineMap>> folded;
    SmallVector<int64_t> loopRanges = op.getStaticLoopRanges();
    for (auto extract : op.getBody()->getOps<tensor::ExtractOp>())
      if (std::optional<AffineMap> map = getExtractMap(op, loopRanges, extract))
        folded.emplace_back(extract, *map);
    if (folded.empty())
      return failure();

    SmallVector<Value> inputs = op.getDpsInputs();
    SmallVector<AffineMap> maps;
    for (OpOperand *input : op.getDpsInputOperands())
      maps.push_back(op.getMatchingIndexingMap(input));
    for (auto [extract, map] : folded) {
      inputs.push_back(extract.getTensor());
      maps.push_back(map);
    }
    for (OpOperand &init : op.getDpsInitsMutable())
      maps.push_back(op.getMatchingIndexingMap(&init));
    auto fused = linalg::GenericOp::create(
        rewriter, op.getLoc(), op.getResultTypes(), inputs, op.getDpsInits(),
        maps, op.getIteratorTypesArray());
    rewriter.inlineRegionBefore(op.getRegion(), fused.getRegion(),
                                fused.getRegion().end());
    Block *body = fused.getBody();
    unsigned position = op.getNumDpsInputs();
    for (auto [extract, map] : folded) {
      BlockArgument element =
          body->insertArgument(position++, extract.getType(), extract.getLoc());
      rewriter.replaceOp(extract, element);
    }
    rewriter.replaceOp(op, fused.getResults());
    return success();
  }
};

struct FoldExtractsIntoOperandsPass
    : mpt::impl::FoldExtractsIntoOperandsBase<FoldExtractsIntoOperandsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldExtractIntoOperand>(&getContext());
    // Only the generics change: merging the step's blocks (two returns of
    // different tensors) would leave IR that one-shot-bufferize breaks
    // (test/Pipelines/lower-to-cpu-branches.mlir).
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
