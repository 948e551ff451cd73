//===- VectorizeCPULoops.cpp - vectorize the non-contraction linalg ops ---===//
//
// Once the contractions run in the AMX / AVX-512 kernels, a step's time goes
// to its elementwise ops, reductions, copies and transposes, which
// convert-linalg-to-loops makes scalar loops. This pass tiles each of them to
// one vector along its innermost loop and hands the tile to upstream's
// linalg vectorizer; everything else (the loop order, each lane's
// arithmetic, the order of a reduction) stays as in the scalar loops.
//
//===----------------------------------------------------------------------===//
#include "mpt/Conversion/CPUPasses.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mpt {
#define GEN_PASS_DEF_VECTORIZECPULOOPS
#include "mpt/Conversion/CPUPasses.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// Whether `op` is one this pass vectorizes: on buffers, static, with an
/// innermost loop of more than one iteration, not a contraction or
/// convolution (the kernels' work, or loops by choice).
static bool isCandidate(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
      op.hasDynamicShape())
    return false;
  // Unit loops are dropped before the op is tiled (dropUnitLoops): what
  // counts is the innermost loop of more than one iteration.
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto nonUnit = llvm::find_if(llvm::reverse(ranges),
                               [](int64_t range) { return range != 1; });
  if (nonUnit == ranges.rend() || *nonUnit < 2)
    return false;
  unsigned innermost = std::distance(nonUnit, ranges.rend()) - 1;
  // A contraction or convolution whose innermost loop is a reduction would
  // be a dot product per output element; one whose innermost loop is
  // parallel (a bias or LayerNorm weight gradient: reduction loops over the
  // rows outside, one column per lane) vectorizes like an elementwise op.
  // A contraction whose every input reads all of its output's loops (no M
  // or N dimension: BatchNorm's backward sums dy * x per channel) is a
  // reduction of elementwise products like any other, not a kernel's work.
  auto readsOutputLoops = [&](OpOperand *input) {
    if (!isa<ShapedType>(input->get().getType()))
      return true;
    AffineMap inMap = op.getMatchingIndexingMap(input);
    AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    return llvm::all_of(outMap.getResults(), [&](AffineExpr e) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      return dim && (ranges[dim.getPosition()] == 1 ||
                     inMap.isFunctionOfDim(dim.getPosition()));
    });
  };
  if ((linalg::isaContractionOpInterface(op) ||
       linalg::isaConvolutionOpInterface(op)) &&
      op.getIteratorTypesArray()[innermost] == utils::IteratorType::reduction &&
      !(linalg::isaContractionOpInterface(op) && op.getNumDpsInits() == 1 &&
        llvm::all_of(op.getDpsInputOperands(), readsOutputLoops)))
    return false;
  // A window (pooling: (oh + kh, ow + kw)) tiles to dynamic slices the
  // vectorizer rejects; such ops stay loops (in parallel, see
  // tileScalarInParallel).
  if (!llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
        return map.isProjectedPermutation(/*allowZeroInResults=*/true);
      }))
    return false;
  // math.fpowi on vectors takes a vector exponent, which LLVM's powi
  // (one scalar exponent) cannot lower.
  bool powi = false;
  op->walk([&](Operation *inner) {
    powi |= isa<math::FPowIOp, math::IPowIOp>(inner);
  });
  if (powi)
    return false;
  // An i1 buffer holds a byte per element, but LLVM loads and stores a
  // vector<16xi1> as 16 packed bits: a mask read from memory (a one-hot
  // kept for the backward) would come out wrong. Such ops stay loops.
  for (OpOperand &operand : op->getOpOperands())
    if (auto memref = dyn_cast<MemRefType>(operand.get().getType()))
      if (memref.getElementType().isInteger(1))
        return false;
  return true;
}

/// The iterations of `op`'s loop nest (static ranges).
static int64_t getIterations(linalg::LinalgOp op) {
  int64_t iterations = 1;
  for (int64_t range : op.getStaticLoopRanges())
    iterations *= range;
  return iterations;
}

/// A transfer_read that reads one element for every lane (a scalar operand
/// broadcast over the loop, such as a learning rate in a memref<f32>): one
/// load and a broadcast, where the strided-transfer lowering below would
/// load the same element once per lane.
struct BroadcastReadToLoad : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    if (!isa<MemRefType>(read.getBase().getType()) || read.getMask() ||
        !llvm::all_of(read.getPermutationMap().getResults(), [](AffineExpr e) {
          auto constant = dyn_cast<AffineConstantExpr>(e);
          return constant && constant.getValue() == 0;
        }))
      return failure();
    Value element = memref::LoadOp::create(rewriter, read.getLoc(),
                                           read.getBase(), read.getIndices());
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(read, read.getVectorType(),
                                                     element);
    return success();
  }
};

/// A 1-d read of 16- or 32-bit elements two apart (a stride-2
/// convolution's taps, a strided weight gradient's windows), which LLVM
/// conversion would read one lane at a time: one masked load of the
/// contiguous run of 2 x lanes elements, read as lanes elements of twice
/// the width whose low halves are the wanted ones (a truncation: vpmovdw /
/// vpmovqd). The run's last element is not wanted and may lie past the
/// buffer: its lane is masked off. The same values.
struct StridedReadToTruncation : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<MemRefType>(read.getBase().getType());
    VectorType vectorType = read.getVectorType();
    if (!type || read.getMask() || vectorType.getRank() != 1 ||
        vectorType.isScalable() ||
        !read.getPermutationMap().isMinorIdentity() ||
        !read.getInBoundsValues()[0])
      return failure();
    Type element = type.getElementType();
    if (!element.isIntOrFloat() || (element.getIntOrFloatBitWidth() != 16 &&
                                    element.getIntOrFloatBitWidth() != 32))
      return failure();
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 2)
      return failure();
    Location loc = read.getLoc();
    int64_t lanes = vectorType.getNumElements();
    unsigned bits = element.getIntOrFloatBitWidth();
    auto metadata =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, read.getBase());
    // The element's position in the buffer: offset + sum(index * stride).
    Value position = metadata.getOffset();
    for (auto [i, index] : llvm::enumerate(read.getIndices())) {
      Value stride = metadata.getStrides()[i];
      position = arith::AddIOp::create(
          rewriter, loc, position,
          arith::MulIOp::create(rewriter, loc, index, stride));
    }
    auto runType =
        MemRefType::get({2 * lanes}, element,
                        StridedLayoutAttr::get(rewriter.getContext(),
                                               ShapedType::kDynamic, {1}));
    Value run = memref::ReinterpretCastOp::create(
        rewriter, loc, runType, metadata.getBaseBuffer(),
        OpFoldResult(position),
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(2 * lanes)},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
    SmallVector<bool> lastOff(2 * lanes, true);
    lastOff.back() = false;
    auto maskType = VectorType::get({2 * lanes}, rewriter.getI1Type());
    Value mask = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(maskType, lastOff));
    auto pairType = VectorType::get({2 * lanes}, element);
    Value zeros = arith::ConstantOp::create(rewriter, loc,
                                            rewriter.getZeroAttr(pairType));
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value loaded = vector::MaskedLoadOp::create(rewriter, loc, pairType, run,
                                                ValueRange{zero}, mask, zeros);
    Value pairs = vector::BitCastOp::create(
        rewriter, loc,
        VectorType::get({lanes}, rewriter.getIntegerType(2 * bits)), loaded);
    Value low = arith::TruncIOp::create(
        rewriter, loc, VectorType::get({lanes}, rewriter.getIntegerType(bits)),
        pairs);
    rewriter.replaceOpWithNewOp<vector::BitCastOp>(read, vectorType, low);
    return success();
  }
};

/// The trailing loops of `op` that can become one loop: all of `kind`
/// (parallel by default; the reductions over a feature map's [H, W]), and each
/// operand reads them as one run of its own dimensions that is contiguous in
/// memory (so the run is one memref.collapse_shape away). Empty when fewer
/// than two. Elementwise ops on weights ([F, C, 3, 3]) otherwise vectorize
/// along their last dimension of 3; collapsed, along all F*C*9 elements, each
/// lane computing what its scalar loop computed.
static ReassociationIndices getCollapsibleTrailingLoops(
    linalg::LinalgOp op,
    utils::IteratorType kind = utils::IteratorType::parallel) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  unsigned numLoops = op.getNumLoops();
  // Upstream's collapseOpIterationDims (MLIR 22) crashes on a map with a
  // constant result (a broadcast unit dimension, (0, d1, 0, 0)).
  if (!llvm::all_of(maps, [](AffineMap map) {
        return map.isProjectedPermutation(/*allowZeroInResults=*/false);
      }))
    return {};
  auto contiguousRun = [&](unsigned first) {
    ReassociationIndices run;
    for (unsigned d = first; d < numLoops; ++d)
      run.push_back(d);
    if (!linalg::areDimSequencesPreserved(maps, {run}))
      return false;
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<ShapedType>(operand.get().getType()))
        continue; // a scalar (a fill's value)
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      if (!type)
        return false;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      // The operand's dimensions that read the run, in order.
      SmallVector<unsigned> dims;
      for (auto [i, expr] : llvm::enumerate(map.getResults()))
        if (auto dim = dyn_cast<AffineDimExpr>(expr))
          if (dim.getPosition() >= first)
            dims.push_back(i);
      SmallVector<int64_t> strides;
      int64_t offset;
      if (failed(type.getStridesAndOffset(strides, offset)))
        return false;
      for (size_t i = 0; i + 1 < dims.size(); ++i)
        if (dims[i + 1] != dims[i] + 1 || ShapedType::isDynamic(strides[dims[i]]) ||
            strides[dims[i]] != strides[dims[i + 1]] * type.getDimSize(dims[i + 1]))
          return false;
    }
    return true;
  };
  unsigned first = numLoops;
  while (first > 0 && iterators[first - 1] == kind &&
         contiguousRun(first - 1))
    --first;
  ReassociationIndices run;
  for (unsigned d = first; d < numLoops; ++d)
    run.push_back(d);
  if (run.size() < 2)
    run.clear();
  return run;
}

/// The loops of a pure transpose that moves data between two different
/// contiguous dimensions: `rowLoop` is the input's innermost (unit stride)
/// dimension, `colLoop` the output's. Static, both ranges at least `block`
/// (a power of two, for the shuffle network; the part of a range past its
/// last multiple of `block` is split off, see vectorize); the body yields the
/// input as it is or through elementwise ops of it alone (a cast: a 1x1
/// filter transposed and cast to bf16 for a convolution's input gradient),
/// which are applied to the transposed vectors.
struct TransposePlan {
  unsigned rowLoop, colLoop;
};

/// Whether `body` computes what it yields from its first block argument
/// alone: every op but the yield elementwise, of one scalar result, and
/// every operand (the yield's too) that argument or a result of an op of
/// `body` (not the output's argument, nothing from outside).
static bool isElementwiseOfFirstArgument(Block *body) {
  auto fromInput = [&](Value value) {
    Operation *def = value.getDefiningOp();
    return value == body->getArgument(0) || (def && def->getBlock() == body);
  };
  for (Operation &op : body->without_terminator())
    if (!OpTrait::hasElementwiseMappableTraits(&op) ||
        op.getNumRegions() != 0 || op.getNumResults() != 1 ||
        !llvm::all_of(op.getOperands(), fromInput))
      return false;
  return llvm::all_of(body->getTerminator()->getOperands(), fromInput);
}

static std::optional<TransposePlan> getTransposePlan(linalg::LinalgOp op,
                                                     int64_t block) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 0 || op.getNumLoops() < 2)
    return std::nullopt;
  Block *body = op.getBlock();
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!yield || yield.getNumOperands() != 1 ||
      !isElementwiseOfFirstArgument(body))
    return std::nullopt;
  OpOperand *in = op.getDpsInputOperand(0);
  OpOperand *out = op.getDpsInitOperand(0);
  AffineMap inMap = op.getMatchingIndexingMap(in);
  AffineMap outMap = op.getMatchingIndexingMap(out);
  if (!llvm::isPowerOf2_64(block) || !inMap.isPermutation() ||
      !outMap.isPermutation() ||
      !cast<MemRefType>(in->get().getType()).isLastDimUnitStride() ||
      !cast<MemRefType>(out->get().getType()).isLastDimUnitStride())
    return std::nullopt;
  TransposePlan plan{inMap.getDimPosition(inMap.getNumResults() - 1),
                     outMap.getDimPosition(outMap.getNumResults() - 1)};
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (plan.rowLoop == plan.colLoop || ranges[plan.rowLoop] < block ||
      ranges[plan.colLoop] < block)
    return std::nullopt;
  return plan;
}

/// Transposes `rows` (n vectors of n elements, n a power of two) with
/// 2 n log2(n) two-source vector.shuffles: at distance d = n/2, ..., 1, rows
/// i and i + d swap the off-diagonal d x d blocks of each 2d x 2d block.
static SmallVector<Value> transposeRows(OpBuilder &b, Location loc,
                                        SmallVector<Value> rows) {
  int64_t n = rows.size();
  for (int64_t d = n / 2; d >= 1; d /= 2) {
    SmallVector<int64_t> low, high;
    for (int64_t c = 0; c < n; ++c) {
      bool right = c & d;
      low.push_back(right ? n + c - d : c);
      high.push_back(right ? n + c : c + d);
    }
    for (int64_t i = 0; i < n; ++i) {
      if (i & d)
        continue;
      Value r0 = rows[i], r1 = rows[i + d];
      rows[i] = vector::ShuffleOp::create(b, loc, r0, r1, low);
      rows[i + d] = vector::ShuffleOp::create(b, loc, r0, r1, high);
    }
  }
  return rows;
}

/// The side of a row reduction's square tile for an innermost (reduction)
/// range `columns` over `rows` rows: `lanes` when it divides both, else a
/// shorter power of two down to 4 that is the whole innermost range and
/// divides the rows (the per-channel sums over 2x2, 4x4 or 8x8 maps, whose
/// rows would otherwise be ordered reductions of 4 to 8 dependent adds);
/// 0 when none.
static int64_t getRowBlock(int64_t rows, int64_t columns, int64_t lanes) {
  if (rows % lanes == 0 && columns % lanes == 0)
    return lanes;
  if (columns < 4 || columns > lanes || !llvm::isPowerOf2_64(columns) ||
      rows % columns != 0)
    return 0;
  return columns;
}

/// Whether `op` reduces along its innermost loop over rows that its next
/// loop (parallel) indexes, both ranges multiples of a row block
/// (getRowBlock, returned; 0 if not), and every operand that reads the
/// innermost loop reads it contiguously: one tile of block x block elements
/// (1 along every other loop) then has one output element per row, which
/// RowBlockReductionToShuffles below accumulates one lane per row.
/// Reduction loops further out (BatchNorm's batch loop) step from tile to
/// tile in their order.
static int64_t getRowBlockReduction(linalg::LinalgOp op, int64_t lanes) {
  unsigned numLoops = op.getNumLoops();
  if (numLoops < 2)
    return 0;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t block =
      getRowBlock(ranges[numLoops - 2], ranges[numLoops - 1], lanes);
  if (iterators[numLoops - 1] != utils::IteratorType::reduction ||
      iterators[numLoops - 2] != utils::IteratorType::parallel || !block)
    return 0;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
      return 0;
    if (!map.isFunctionOfDim(numLoops - 1))
      continue;
    auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!last || last.getPosition() != numLoops - 1 ||
        !type.isLastDimUnitStride())
      return 0;
  }
  return block;
}

/// vector.multi_reduction of a square tile along its rows (the tile of
/// getRowBlockReduction, unit dimensions dropped) as the scalar loops
/// do it, one lane per row: the rows are transposed into columns by a
/// shuffle network (transposeRows) and the columns combined into the
/// accumulator in order, so each row's elements are added in the scalar
/// loops' order, bit for bit. Upstream's lowering makes one ordered
/// vector.reduction per row, a chain of `lanes` dependent scalar adds each.
struct RowBlockReductionToShuffles
    : OpRewritePattern<vector::MultiDimReductionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::MultiDimReductionOp reduction,
                                PatternRewriter &rewriter) const override {
    VectorType source = reduction.getSourceVectorType();
    int64_t rank = source.getRank();
    if (rank < 2 || source.isScalable() ||
        source.getDimSize(rank - 2) != source.getDimSize(rank - 1) ||
        !llvm::isPowerOf2_64(source.getDimSize(rank - 1)) ||
        reduction.isReducedDim(rank - 2) || !reduction.isReducedDim(rank - 1) ||
        !isa<VectorType>(reduction.getAcc().getType()) ||
        cast<VectorType>(reduction.getAcc().getType()).getRank() != 1)
      return failure();
    // Outer reduction loops of the tile (BatchNorm's batch loop) are unit
    // dimensions in front: one tile per iteration.
    for (int64_t d = 0; d + 2 < rank; ++d)
      if (source.getDimSize(d) != 1 || !reduction.isReducedDim(d))
        return failure();
    Location loc = reduction.getLoc();
    Value tile = reduction.getSource();
    int64_t n = source.getDimSize(rank - 1);
    if (rank > 2)
      tile = vector::ShapeCastOp::create(
          rewriter, loc, VectorType::get({n, n}, source.getElementType()),
          tile);
    SmallVector<Value> rows;
    for (int64_t r = 0; r < n; ++r)
      rows.push_back(vector::ExtractOp::create(rewriter, loc, tile, r));
    Value result = reduction.getAcc();
    for (Value column : transposeRows(rewriter, loc, rows))
      result = vector::makeArithReduction(rewriter, loc, reduction.getKind(),
                                          column, result);
    rewriter.replaceOp(reduction, result);
    return success();
  }
};

/// A parallel loop nest with fewer outer iterations than this keeps its
/// next loop parallel too.
constexpr int64_t kMinParallelIterations = 128;

/// Runs only the outer loops of a multi-dimensional scf.parallel in
/// parallel (as few as make kMinParallelIterations iterations) and the
/// others as scf.for loops inside them. convert-scf-to-openmp makes every
/// dimension of an scf.parallel one collapsed OpenMP loop, which recomputes
/// each index by division on every iteration: a tiled transpose ([C, N, H,
/// W] loops over 16-element rows) spent more time on that than on its copy
/// and was slower on two threads than on one. The same iterations, each
/// still on one thread: the same results.
static void keepOuterLoopsParallel(IRRewriter &rewriter, scf::ParallelOp op) {
  if (op.getNumLoops() < 2 || op.getNumReductions() != 0)
    return;
  unsigned outer = 0;
  int64_t iterations = 1;
  for (unsigned d = 0; d < op.getNumLoops(); ++d) {
    std::optional<int64_t> lb = getConstantIntValue(op.getLowerBound()[d]);
    std::optional<int64_t> ub = getConstantIntValue(op.getUpperBound()[d]);
    std::optional<int64_t> step = getConstantIntValue(op.getStep()[d]);
    if (!lb || !ub || !step || *step <= 0)
      return;
    if (iterations < kMinParallelIterations) {
      iterations *= llvm::divideCeil(std::max<int64_t>(*ub - *lb, 0), *step);
      outer = d + 1;
    }
  }
  if (outer == op.getNumLoops())
    return;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto outerLoop = scf::ParallelOp::create(
      rewriter, loc, op.getLowerBound().take_front(outer),
      op.getUpperBound().take_front(outer), op.getStep().take_front(outer));
  rewriter.setInsertionPointToStart(outerLoop.getBody());
  scf::LoopNest inner = scf::buildLoopNest(
      rewriter, loc, op.getLowerBound().drop_front(outer),
      op.getUpperBound().drop_front(outer), op.getStep().drop_front(outer));
  SmallVector<Value> ivs(outerLoop.getInductionVars());
  for (scf::ForOp loop : inner.loops)
    ivs.push_back(loop.getInductionVar());
  Block *innermost = inner.loops.back().getBody();
  Operation *yield = innermost->getTerminator();
  Block *body = op.getBody();
  Operation *reduce = body->getTerminator();
  rewriter.inlineBlockBefore(body, yield, ivs);
  rewriter.eraseOp(reduce);
  rewriter.eraseOp(op);
}

struct VectorizeCPULoopsPass
    : mpt::impl::VectorizeCPULoopsBase<VectorizeCPULoopsPass> {
  using VectorizeCPULoopsBase::VectorizeCPULoopsBase;

  void runOnOperation() override {
    // The transposes and row reductions work on lanes x lanes squares
    // through a shuffle network that halves them.
    if (lanes < 2 || lanes > 64 || !llvm::isPowerOf2_64(lanes)) {
      getOperation().emitError()
          << "mpt-vectorize-cpu-loops: lanes must be a power of two from 2 "
             "to 64, got "
          << int64_t(lanes);
      return signalPassFailure();
    }
    // A memref.copy between buffers that are not both contiguous (a slice
    // of a concatenation) becomes a call of the runtime's memrefCopy, which
    // moves one element at a time: as a linalg.copy it is vectorized below.
    // Contiguous ones stay memref.copy (LLVM's memcpy).
    IRRewriter rewriter(&getContext());
    getOperation().walk([&](memref::CopyOp copy) {
      auto source = cast<MemRefType>(copy.getSource().getType());
      auto target = cast<MemRefType>(copy.getTarget().getType());
      if (!source.hasStaticShape() ||
          (source.getLayout().isIdentity() && target.getLayout().isIdentity()))
        return;
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    });
    // A square in an op's body (a variance's (x - mean)^2) is math.fpowi by
    // 2, which keeps the op from being vectorized (isCandidate): x * x, what
    // a scalar powi by 2 computes, exactly.
    getOperation().walk([&](math::FPowIOp powi) {
      APInt exponent;
      if (!powi->getParentOfType<linalg::LinalgOp>() ||
          !matchPattern(powi.getRhs(), m_ConstantInt(&exponent)) ||
          exponent != 2)
        return;
      rewriter.setInsertionPoint(powi);
      rewriter.replaceOpWithNewOp<arith::MulFOp>(powi, powi.getLhs(),
                                                 powi.getLhs());
    });
    // One walk: the window ops (which isCandidate rejects) and the
    // candidates, which vectorize replaces without touching the windows.
    SmallVector<linalg::LinalgOp> candidates, windows;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::PoolingNchwMaxOp, linalg::DepthwiseConv2DNchwChwOp,
              linalg::Conv2DNgchwGfchwOp>(op.getOperation()))
        windows.push_back(op);
      else if (isCandidate(op))
        candidates.push_back(op);
    });
    for (linalg::LinalgOp op : candidates)
      vectorize(rewriter, op);
    for (linalg::LinalgOp op : windows)
      vectorizeWindow(rewriter, op);
    // What stays scalar loops (i1 operands, pooling windows, a contraction
    // no kernel took, a body the vectorizer rejects) still runs in parallel.
    if (parallel) {
      SmallVector<linalg::LinalgOp> scalar;
      getOperation().walk([&](linalg::LinalgOp op) {
        if (!op->getParentOfType<scf::ParallelOp>() &&
            op.hasPureBufferSemantics() && op.getNumLoops() > 0 &&
            !op.hasDynamicShape())
          scalar.push_back(op);
      });
      for (linalg::LinalgOp op : scalar)
        tileScalarInParallel(rewriter, op);
      // The outermost loops only (a loop nested in one is not forked).
      SmallVector<scf::ParallelOp> nests;
      getOperation().walk<WalkOrder::PreOrder>([&](scf::ParallelOp op) {
        nests.push_back(op);
        return WalkResult::skip();
      });
      for (scf::ParallelOp op : nests)
        keepOuterLoopsParallel(rewriter, op);
    }

    // The tiles' vectors keep the ops' unit dimensions (vector<1x1x16xf32>);
    // LLVM conversion takes 1-d transfers only. (Upstream's permutation-map
    // lowering is left out: together with the leading-unit-dim patterns it
    // grew the GPT block's IR past 3 GB.)
    RewritePatternSet patterns(&getContext());
    patterns.add<BroadcastReadToLoad>(&getContext());
    vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
    vector::populateVectorTransferDropUnitDimsPatterns(patterns);
    vector::populateDropUnitDimWithShapeCastPatterns(patterns);
    // A reduction over a unit dimension (an outer reduction loop: one tile
    // per iteration) is one elementwise combine.
    vector::MultiDimReductionOp::getCanonicalizationPatterns(patterns,
                                                            &getContext());
    // Before upstream's lowering (benefit 1), which would take the tile too.
    patterns.add<RowBlockReductionToShuffles>(&getContext(), /*benefit=*/2);
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerReduction);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // A read of every other element is one load and a truncation; what is
    // left of a transposed access, a transfer along a strided dimension,
    // becomes one scalar load or store per lane (LLVM conversion takes
    // contiguous transfers only).
    if (stridedLoads) {
      RewritePatternSet everyOther(&getContext());
      everyOther.add<StridedReadToTruncation>(&getContext());
      if (failed(applyPatternsGreedily(getOperation(), std::move(everyOther))))
        return signalPassFailure();
    }
    RewritePatternSet strided(&getContext());
    populateVectorToSCFConversionPatterns(
        strided, VectorTransferToSCFOptions().enableFullUnroll());
    if (failed(applyPatternsGreedily(getOperation(), std::move(strided))))
      return signalPassFailure();

    // libm per lane (the x86 backend scalarizes a vector exp) costs more
    // than the rest of a GELU. Only the vectors: scalar loops keep libm.
    if (!approximateMath)
      return;
    SmallVector<Operation *> mathOps;
    getOperation().walk([&](Operation *op) {
      if (isa<math::ExpOp, math::ErfOp, math::TanhOp>(op) &&
          isa<VectorType>(op->getResult(0).getType()))
        mathOps.push_back(op);
    });
    RewritePatternSet approximations(&getContext());
    populateMathPolynomialApproximationPatterns(
        approximations, [](StringRef name) {
          return name.ends_with("exp") || name.ends_with("erf") ||
                 name.ends_with("tanh");
        });
    if (failed(applyOpPatternsGreedily(mathOps, std::move(approximations))))
      return signalPassFailure();
  }

  void vectorize(IRRewriter &rewriter, linalg::LinalgOp op) {
    // The whole op must be vectorizable (its body's ops, its reductions)
    // before it is tiled: a tile that fails stays loops, but needlessly
    // tiled ones.
    if (failed(linalg::vectorizeOpPrecondition(op)))
      return;
    if (std::optional<linalg::GenericOp> dropped = dropUnitLoops(rewriter, op))
      op = *dropped;
    if (std::optional<TransposePlan> plan = getTransposePlan(op, lanes)) {
      // A range that is not a multiple of `lanes` (a classifier's 1000
      // classes): the whole blocks go through the shuffle network, the
      // rest (fewer than `lanes` along that loop) the strided way below.
      for (unsigned loop : {plan->rowLoop, plan->colLoop}) {
        int64_t range = op.getStaticLoopRanges()[loop];
        if (range % lanes == 0)
          continue;
        rewriter.setInsertionPoint(op);
        auto [whole, rest] =
            linalg::splitOp(rewriter, cast<TilingInterface>(op.getOperation()),
                            loop, rewriter.getIndexAttr(range / lanes * lanes));
        if (!whole || !rest)
          return;
        op = cast<linalg::LinalgOp>(whole.getOperation());
        vectorize(rewriter, cast<linalg::LinalgOp>(rest.getOperation()));
      }
      vectorizeTranspose(rewriter, op, *plan);
      return;
    }
    std::optional<linalg::GenericOp> asGeneric = generalize(rewriter, op);
    if (!asGeneric)
      return;
    linalg::GenericOp generic = *asGeneric;
    if (std::optional<linalg::GenericOp> rows =
            prepareRowBlockReduction(rewriter, generic))
      generic = *rows;
    else
      generic = hoistParallelLoops(rewriter, generic);
    collapseTrailingLoops(rewriter, generic, utils::IteratorType::parallel);
    if (std::optional<linalg::GenericOp> block = blockOuterLoops(rewriter, generic))
      generic = *block;
    if (std::optional<linalg::GenericOp> block =
            tileColumnsInParallel(rewriter, generic))
      generic = *block;
    // A ragged innermost loop (not a multiple of `lanes`) is split into a
    // part of whole vectors and a remainder of shorter vectors whose lengths
    // are powers of two (9 = 8 + 1), all static: no masks. (LLVM 22's x86
    // backend aborts on a load or store of vector<9xbf16>.)
    int64_t innermost = generic.getStaticLoopRanges().back();
    int64_t done = innermost / lanes * lanes;
    if (done == 0)
      done = llvm::bit_floor(static_cast<uint64_t>(innermost));
    // Each part of a split runs over all the op's other loops: with a
    // reduction loop outside the innermost one (a sum over [N, H, W]) an
    // output would add its terms in another order than the loops did. The
    // outer loops are tiled first, so that the parts run per iteration.
    SmallVector<utils::IteratorType> iterators =
        generic.getIteratorTypesArray();
    if (done != innermost &&
        iterators.back() == utils::IteratorType::reduction &&
        llvm::count(iterators, utils::IteratorType::reduction) > 1) {
      SmallVector<int64_t> outer(iterators.size(), 1);
      outer.back() = 0;
      std::optional<linalg::GenericOp> row = tile(rewriter, generic, outer);
      if (!row)
        return;
      generic = *row;
    }
    while (done != innermost) {
      rewriter.setInsertionPoint(generic);
      auto [head, rest] = linalg::splitOp(
          rewriter, cast<TilingInterface>(generic.getOperation()),
          generic.getNumLoops() - 1, rewriter.getIndexAttr(done));
      if (!head || !rest)
        return;
      vectorizeStatic(rewriter, cast<linalg::GenericOp>(head.getOperation()));
      generic = cast<linalg::GenericOp>(rest.getOperation());
      innermost -= done;
      done = llvm::bit_floor(static_cast<uint64_t>(innermost));
    }
    vectorizeStatic(rewriter, generic);
  }

  /// `op` as a linalg.generic (a named op generalized in its place), or
  /// nothing when it cannot be; the rewriter left before it.
  static std::optional<linalg::GenericOp> generalize(IRRewriter &rewriter,
                                                     linalg::LinalgOp op) {
    rewriter.setInsertionPoint(op);
    if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
      return generic;
    FailureOr<linalg::GenericOp> generalized =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generalized))
      return std::nullopt;
    return *generalized;
  }

  /// `op` without its unit loops, or nothing when it has none. A unit loop
  /// would otherwise be the innermost one (an SE block's [N, C, 1, 1]
  /// tensors; a batch of dot products, batch_matmul B x 1 x 1 x K, which the
  /// kernels leave here; a 1x1 filter's transpose [F, C, 1, 1] -> [C, F, 1,
  /// 1]) or stand between the parallel and the reduction loop of a row
  /// reduction. Each operand is viewed by a rank-reducing subview without
  /// the dimensions that a unit loop or a constant 0 indexes. (Upstream's
  /// linalg::dropUnitDims leaves memrefs with a layout as they are, and the
  /// outlined ops' operands all have one, so none of their unit loops could
  /// be dropped.) One iteration each: the same order of operations, the same
  /// results.
  std::optional<linalg::GenericOp> dropUnitLoops(IRRewriter &rewriter,
                                                 linalg::LinalgOp op) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    unsigned numLoops = ranges.size();
    if (!llvm::is_contained(ranges, 1) ||
        llvm::all_of(ranges, [](int64_t range) { return range == 1; }))
      return std::nullopt;
    std::optional<linalg::GenericOp> asGeneric = generalize(rewriter, op);
    if (!asGeneric)
      return std::nullopt;
    linalg::GenericOp generic = *asGeneric;
    MLIRContext *context = generic.getContext();
    // The new position of each kept loop.
    SmallVector<int64_t> newLoop(numLoops, -1);
    SmallVector<utils::IteratorType> iterators;
    for (auto [d, iterator] :
         llvm::enumerate(generic.getIteratorTypesArray())) {
      if (ranges[d] == 1)
        continue;
      newLoop[d] = iterators.size();
      iterators.push_back(iterator);
    }
    // Each operand's map and shape without the unit loops' dimensions.
    SmallVector<AffineMap> maps;
    SmallVector<SmallVector<int64_t>> shapes;
    for (OpOperand &operand : generic->getOpOperands()) {
      AffineMap map = generic.getMatchingIndexingMap(&operand);
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      SmallVector<AffineExpr> results;
      SmallVector<int64_t> &shape = shapes.emplace_back();
      for (auto [j, expr] : llvm::enumerate(map.getResults())) {
        auto dim = dyn_cast<AffineDimExpr>(expr);
        if (dim && newLoop[dim.getPosition()] >= 0) {
          results.push_back(
              getAffineDimExpr(newLoop[dim.getPosition()], context));
          shape.push_back(type.getDimSize(j));
        } else if (!dim && type.getDimSize(j) != 1) {
          // isCandidate admits projected permutations: a constant here is a
          // 0 that indexes a dimension of 1 (the verifier's shape check).
          return generic;
        }
      }
      maps.push_back(AffineMap::get(iterators.size(), 0, results, context));
    }
    Location loc = generic.getLoc();
    rewriter.setInsertionPoint(generic);
    SmallVector<Value> operands;
    for (auto [operand, shape] : llvm::zip(generic->getOpOperands(), shapes)) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      operands.push_back(
          !type || shape.size() == static_cast<size_t>(type.getRank())
              ? operand.get()
              : rankReducingSubview(rewriter, loc, operand.get(), shape));
    }
    unsigned numInputs = generic.getNumDpsInputs();
    auto dropped = linalg::GenericOp::create(
        rewriter, loc, TypeRange(),
        ArrayRef<Value>(operands).take_front(numInputs),
        ArrayRef<Value>(operands).drop_front(numInputs), maps, iterators);
    rewriter.inlineRegionBefore(generic.getRegion(), dropped.getRegion(),
                                dropped.getRegion().end());
    for (linalg::IndexOp index :
         llvm::to_vector(dropped.getBody()->getOps<linalg::IndexOp>())) {
      rewriter.setInsertionPoint(index);
      if (newLoop[index.getDim()] < 0)
        rewriter.replaceOpWithNewOp<arith::ConstantIndexOp>(index, 0);
      else
        rewriter.modifyOpInPlace(
            index, [&] { index.setDim(newLoop[index.getDim()]); });
    }
    rewriter.eraseOp(generic);
    return dropped;
  }

  /// `source` (static shape) viewed without its dimensions of 1 that are not
  /// in `shape`: a rank-reducing subview of the whole memref.
  static Value rankReducingSubview(OpBuilder &b, Location loc, Value source,
                                   ArrayRef<int64_t> shape) {
    auto type = cast<MemRefType>(source.getType());
    SmallVector<int64_t> offsets(type.getRank(), 0), strides(type.getRank(), 1);
    auto viewType = memref::SubViewOp::inferRankReducedResultType(
        shape, type, offsets, type.getShape(), strides);
    SmallVector<OpFoldResult> offsetAttrs, sizeAttrs, strideAttrs;
    for (int64_t size : type.getShape()) {
      offsetAttrs.push_back(b.getIndexAttr(0));
      sizeAttrs.push_back(b.getIndexAttr(size));
      strideAttrs.push_back(b.getIndexAttr(1));
    }
    return memref::SubViewOp::create(b, loc, cast<MemRefType>(viewType), source,
                                     offsetAttrs, sizeAttrs, strideAttrs);
  }

  /// An op that permutes outer dimensions but keeps its innermost loop the
  /// innermost dimension of every operand ([F, C, 9] -> [C, F, 9], a filter's
  /// channel swap) reads one operand at a large stride along its second
  /// loop: at 18 KiB (a 512x512x3x3 f32 filter) every row falls in the same
  /// two L1 sets and the copy runs at a few ns per element. Tiling its outer
  /// loops into blocks of `lanes` (those whose range it divides) keeps a
  /// block's rows in cache. Returns the op on one block, or nothing.
  std::optional<linalg::GenericOp> blockOuterLoops(IRRewriter &rewriter,
                                                   linalg::GenericOp op) {
    unsigned numLoops = op.getNumLoops();
    if (numLoops < 3 || op.getNumParallelLoops() != numLoops)
      return std::nullopt;
    bool permuted = false;
    for (AffineMap map : op.getIndexingMapsArray()) {
      if (map.getNumResults() == 0)
        continue;
      if (!map.isPermutation())
        return std::nullopt;
      if (map.getDimPosition(map.getNumResults() - 1) != numLoops - 1)
        return std::nullopt; // the transpose plan's case, or none
      permuted |= !map.isIdentity();
    }
    if (!permuted)
      return std::nullopt;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<int64_t> tileSizes(numLoops, 0);
    unsigned blocked = 0;
    for (unsigned d = 0; d + 1 < numLoops; ++d) {
      tileSizes[d] = ranges[d] % lanes == 0 ? lanes : 1;
      blocked += ranges[d] % lanes == 0 && ranges[d] > lanes;
    }
    if (blocked < 2)
      return std::nullopt;
    return tile(rewriter, op, tileSizes);
  }

  /// Tiles `op` by `tileSizes` (scf.parallel loops when it runs in
  /// parallel) and erases it; returns the op on one tile.
  std::optional<linalg::GenericOp> tile(IRRewriter &rewriter,
                                        linalg::GenericOp op,
                                        ArrayRef<int64_t> tileSizes) {
    FailureOr<linalg::LinalgOp> tiled =
        tileLoops(rewriter, op, tileSizes, runsInParallel(op));
    if (failed(tiled))
      return std::nullopt;
    return cast<linalg::GenericOp>(tiled->getOperation());
  }

  /// Tiles `op` by `tileSizes` (0: not tiled), its tile loops one
  /// scf.parallel when `inParallel`, and erases it; returns the op on one
  /// tile.
  static FailureOr<linalg::LinalgOp> tileLoops(IRRewriter &rewriter,
                                               linalg::LinalgOp op,
                                               ArrayRef<int64_t> tileSizes,
                                               bool inParallel) {
    linalg::LinalgTilingOptions tiling;
    tiling.setTileSizes(tileSizes);
    if (inParallel)
      tiling.setLoopType(linalg::LinalgTilingLoopType::ParallelLoops);
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::TiledLinalgOp> tiled =
        linalg::tileLinalgOp(rewriter, op, tiling);
    if (failed(tiled))
      return failure();
    rewriter.eraseOp(op);
    return tiled->op;
  }

  /// Makes `op`'s trailing loops of `kind` that every operand reads as one
  /// contiguous run one loop (getCollapsibleTrailingLoops); returns whether
  /// `op` was replaced.
  static bool collapseTrailingLoops(IRRewriter &rewriter, linalg::GenericOp &op,
                                    utils::IteratorType kind) {
    ReassociationIndices run = getCollapsibleTrailingLoops(op, kind);
    if (run.empty())
      return false;
    SmallVector<ReassociationIndices> groups;
    for (unsigned d = 0; d < run.front(); ++d)
      groups.push_back({d});
    groups.push_back(run);
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::CollapseResult> collapsed =
        linalg::collapseOpIterationDims(op, groups, rewriter);
    if (failed(collapsed))
      return false;
    rewriter.eraseOp(op);
    op = cast<linalg::GenericOp>(collapsed->collapsedOp.getOperation());
    return true;
  }

  /// A reduction along its innermost loop that is not a row reduction as it
  /// stands (BatchNorm's per-channel sums over [N, C, H, W]: the next loop,
  /// H, reduces too) made one, when it can be: its trailing reduction loops
  /// that every operand reads contiguously become one loop ([N, C, H*W]),
  /// and its parallel loops move just inside its other reductions ([N, H,
  /// C, W] where H and W do not collapse). Each output element still adds
  /// its terms in the same order: the reductions keep theirs, and a
  /// parallel loop only picks the element. With `parallel`, the op on one
  /// block of `lanes` rows (and one iteration of its other parallel loops)
  /// per iteration of an scf.parallel. Returns the op (or its block), or
  /// nothing when it is no row reduction either way; `op` may then be
  /// collapsed and its loops moved (interchangeGenericOp works in place),
  /// each output's order of terms kept.
  std::optional<linalg::GenericOp>
  prepareRowBlockReduction(IRRewriter &rewriter, linalg::GenericOp &op) {
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    if (iterators.size() < 2 ||
        iterators.back() != utils::IteratorType::reduction ||
        !llvm::is_contained(iterators, utils::IteratorType::parallel))
      return std::nullopt;
    if (collapseTrailingLoops(rewriter, op, utils::IteratorType::reduction))
      iterators = op.getIteratorTypesArray();
    // [outer reductions, parallel loops, innermost reduction].
    unsigned numLoops = iterators.size();
    SmallVector<unsigned> order;
    for (unsigned d = 0; d + 1 < numLoops; ++d)
      if (iterators[d] == utils::IteratorType::reduction)
        order.push_back(d);
    for (unsigned d = 0; d + 1 < numLoops; ++d)
      if (iterators[d] == utils::IteratorType::parallel)
        order.push_back(d);
    order.push_back(numLoops - 1);
    // Checked on the op as it would be after the move, before moving it.
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t block =
        getRowBlock(ranges[order[numLoops - 2]], ranges.back(), lanes);
    if (!block)
      return std::nullopt;
    if (!llvm::equal(order, llvm::seq<unsigned>(0, numLoops)) &&
        failed(linalg::interchangeGenericOp(rewriter, op, order)))
      return std::nullopt;
    if (!getRowBlockReduction(op, lanes))
      return std::nullopt;
    if (!parallel || op->getParentOfType<scf::ParallelOp>() ||
        getIterations(op) < parallelMin ||
        ranges[order[numLoops - 2]] / block < 2)
      return op;
    SmallVector<utils::IteratorType> moved = op.getIteratorTypesArray();
    SmallVector<int64_t> tileSizes(numLoops, 0);
    for (unsigned d = 0; d + 1 < numLoops; ++d)
      if (moved[d] == utils::IteratorType::parallel)
        tileSizes[d] = d + 2 == numLoops ? block : 1;
    FailureOr<linalg::LinalgOp> tiled =
        tileLoops(rewriter, op, tileSizes, /*inParallel=*/true);
    if (failed(tiled))
      return std::nullopt;
    return cast<linalg::GenericOp>(tiled->getOperation());
  }

  /// With `parallel`, `op` with its parallel loops moved outside its
  /// reductions (BatchNorm's per-channel sums over [N, C, H, W]: the channel
  /// loop outermost), so that runsInParallel can take it. Each output
  /// element still adds its terms in the same order (the reductions keep
  /// theirs), and the innermost loop, a reduction, stays innermost. `op`
  /// itself when there is nothing to move or its innermost loop is parallel
  /// (moving the loops would change what the vectors run along).
  linalg::GenericOp hoistParallelLoops(IRRewriter &rewriter,
                                       linalg::GenericOp op) {
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    if (!parallel || iterators.back() != utils::IteratorType::reduction)
      return op;
    SmallVector<unsigned> order;
    for (auto [d, iterator] : llvm::enumerate(iterators))
      if (iterator == utils::IteratorType::parallel)
        order.push_back(d);
    if (order.empty() || order.back() + 1 == order.size())
      return op; // no parallel loop, or they are outermost already
    for (auto [d, iterator] : llvm::enumerate(iterators))
      if (iterator == utils::IteratorType::reduction)
        order.push_back(d);
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::GenericOp> moved =
        linalg::interchangeGenericOp(rewriter, op, order);
    return succeeded(moved) ? *moved : op;
  }

  /// A column sum (reductions outside its innermost loop, which is
  /// parallel: a bias gradient summing [B, T, D] over B and T) with
  /// `parallel`: its columns in blocks of `lanes` as one scf.parallel, each
  /// block summing all rows in the loops' order. Returns the op on one
  /// block, or nothing.
  std::optional<linalg::GenericOp>
  tileColumnsInParallel(IRRewriter &rewriter, linalg::GenericOp op) {
    if (!parallel || op->getParentOfType<scf::ParallelOp>())
      return std::nullopt;
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    if (iterators.back() != utils::IteratorType::parallel ||
        !llvm::is_contained(iterators, utils::IteratorType::reduction))
      return std::nullopt;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (ranges.back() % lanes != 0 || ranges.back() / lanes < 2 ||
        getIterations(op) < parallelMin)
      return std::nullopt;
    SmallVector<int64_t> tileSizes(ranges.size(), 0);
    tileSizes.back() = lanes;
    FailureOr<linalg::LinalgOp> tiled =
        tileLoops(rewriter, op, tileSizes, /*inParallel=*/true);
    if (failed(tiled))
      return std::nullopt;
    return cast<linalg::GenericOp>(tiled->getOperation());
  }

  /// Runs an op that stays scalar loops (not vectorized) in parallel when it
  /// has the work: its outer parallel loops, enough of them for a few
  /// hundred chunks, become one scf.parallel around the rest of the op.
  void tileScalarInParallel(IRRewriter &rewriter, linalg::LinalgOp op) {
    if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
      op = hoistParallelLoops(rewriter, generic);
    if (!runsInParallel(op))
      return;
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<int64_t> tileSizes(ranges.size(), 0);
    // A loop that an operand reads through a sum (a pooling window's
    // oh + kh) would tile to dynamic slices: tiling stops before it.
    auto readPlainly = [&](unsigned d) {
      return llvm::all_of(op.getIndexingMapsArray(), [&](AffineMap map) {
        return llvm::all_of(map.getResults(), [&](AffineExpr e) {
          return isa<AffineDimExpr>(e) || !e.isFunctionOfDim(d);
        });
      });
    };
    int64_t chunks = 1;
    for (unsigned d = 0; d < ranges.size() && chunks < 256 &&
                         iterators[d] == utils::IteratorType::parallel &&
                         readPlainly(d);
         ++d) {
      tileSizes[d] = 1;
      chunks *= ranges[d];
    }
    if (chunks > 1)
      (void)tileLoops(rewriter, op, tileSizes, /*inParallel=*/true);
  }

  /// Whether `op`'s tile loops are to be one scf.parallel: with `parallel`,
  /// enough iterations to pay for a fork and join, and its parallel loops
  /// all outside its reductions (so that the tiled op is one parallel loop
  /// around serial ones, not a parallel loop per reduction step).
  bool runsInParallel(linalg::LinalgOp op) {
    if (!parallel || op->getParentOfType<scf::ParallelOp>())
      return false;
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    if (iterators.front() != utils::IteratorType::parallel ||
        !llvm::is_sorted(iterators, [](auto a, auto b) {
          return a == utils::IteratorType::parallel &&
                 b == utils::IteratorType::reduction;
        }))
      return false;
    return getIterations(op) >= parallelMin;
  }

  /// The max of a max pooling's body when the body is nothing else:
  /// max(out, in), or the same in f32 of the two widened and narrowed back
  /// (the body autocast gives a bf16 pooling).
  static Operation *getPoolingMax(linalg::LinalgOp op) {
    Block *body = op.getBlock();
    Value result = body->getTerminator()->getOperand(0);
    auto truncf = result.getDefiningOp<arith::TruncFOp>();
    if (truncf)
      result = truncf.getIn();
    Operation *max = result.getDefiningOp();
    if (!max || max->getBlock() != body ||
        !isa<arith::MaximumFOp, arith::MaxNumFOp>(max))
      return nullptr;
    auto reads = [&](Value v, unsigned arg) {
      if (auto extf = v.getDefiningOp<arith::ExtFOp>())
        v = extf.getIn();
      return v == body->getArgument(arg);
    };
    if (!reads(max->getOperand(0), 2) || !reads(max->getOperand(1), 0))
      return nullptr;
    for (Operation &inner : body->without_terminator())
      if (&inner != max && &inner != truncf.getOperation() &&
          !(isa<arith::ExtFOp>(inner) &&
            llvm::is_contained(max->getOperands(), inner.getResult(0))))
        return nullptr;
    return max;
  }

  /// The multiply-add of a (depthwise or grouped) convolution's body
  /// computed in f32 (out + ext(in) * ext(filter), out f32; its addf), or
  /// nullptr.
  static Operation *getConvMulAdd(linalg::LinalgOp op) {
    Block *body = op.getBlock();
    if (!body->getArgument(2).getType().isF32())
      return nullptr;
    auto add =
        body->getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
    if (!add || add->getBlock() != body)
      return nullptr;
    Value product = add.getLhs() == body->getArgument(2)   ? add.getRhs()
                    : add.getRhs() == body->getArgument(2) ? add.getLhs()
                                                           : Value();
    auto mul = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
    if (!mul || mul->getBlock() != body ||
        add.getFastmath() != arith::FastMathFlags::none ||
        mul.getFastmath() != arith::FastMathFlags::none)
      return nullptr;
    auto reads = [&](Value v, unsigned arg) {
      if (auto extf = v.getDefiningOp<arith::ExtFOp>())
        v = extf.getIn();
      return v == body->getArgument(arg);
    };
    if (!reads(mul.getLhs(), 0) || !reads(mul.getRhs(), 1))
      return nullptr;
    // Nothing else in the body (the two widenings at most).
    if (body->getOperations().size() > 5)
      return nullptr;
    return add;
  }

  /// Max pooling and depthwise convolution over [N, C, H, W], and grouped
  /// convolution over [N, G, C, H, W] (static, unit dilations, stride 1 or
  /// 2 along W; their window loops are sums of loops, which isCandidate
  /// rejects): `lanes` outputs along OW at a time (fewer when OW is not a
  /// multiple), one vector per window tap combined into them in the
  /// window's order, as the scalar loops combine each output's taps: a
  /// maximum, or for a convolution a product with the tap's weight (one
  /// scalar of the filter, broadcast) added to the f32 accumulator, no
  /// contraction into an FMA; a grouped convolution's taps run over the
  /// group's input channels (a loop) outside each channel's window, the
  /// loops' order. A tap
  /// at stride 2 is one load of a contiguous run of 2 x lanes elements,
  /// read as lanes elements of twice the width whose low halves are the
  /// taps (a truncation, vpmovdw: no shuffle). bf16 is compared in f32,
  /// widened and narrowed as bits (a shift): LLVM 22's InstCombine folds
  /// fpext / fptrunc around a maximum back to bf16, whose vectors the x86
  /// backend then takes apart lane by lane, and narrows a run's load whose
  /// last element is unused to an odd-sized one. The result is the loops'
  /// bit for bit (the max is one of the inputs; NaNs stay NaNs, their
  /// payloads aside; the convolution's products and sums are the loops'
  /// f32 operations). With `parallel`, the (N, C) planes are an
  /// scf.parallel.
  void vectorizeWindow(IRRewriter &rewriter, linalg::LinalgOp op) {
    auto pooling = dyn_cast<linalg::PoolingNchwMaxOp>(op.getOperation());
    auto depthwise =
        dyn_cast<linalg::DepthwiseConv2DNchwChwOp>(op.getOperation());
    auto grouped = dyn_cast<linalg::Conv2DNgchwGfchwOp>(op.getOperation());
    // The named ops' getters (they supply the default of 1 where the
    // attribute is left out).
    DenseIntElementsAttr stridesAttr = pooling     ? pooling.getStrides()
                                       : depthwise ? depthwise.getStrides()
                                                   : grouped.getStrides();
    DenseIntElementsAttr dilationsAttr = pooling     ? pooling.getDilations()
                                         : depthwise ? depthwise.getDilations()
                                                     : grouped.getDilations();
    auto inType = dyn_cast<MemRefType>(op.getDpsInputs()[0].getType());
    auto windowType = dyn_cast<MemRefType>(op.getDpsInputs()[1].getType());
    auto outType = dyn_cast<MemRefType>(op.getDpsInits()[0].getType());
    if (!op.hasPureBufferSemantics() || !inType || !windowType || !outType ||
        !inType.hasStaticShape() || !windowType.hasStaticShape() ||
        !outType.hasStaticShape() || !inType.isLastDimUnitStride() ||
        !outType.isLastDimUnitStride() ||
        !llvm::all_of(dilationsAttr.getValues<int64_t>(),
                      [](int64_t d) { return d == 1; }))
      return;
    Operation *combiner = pooling ? getPoolingMax(op) : getConvMulAdd(op);
    if (!combiner)
      return;
    // The filter of a convolution ([C, KH, KW] depthwise, [G, F, C, KH, KW]
    // grouped), read a scalar per tap; pooling's window operand has only
    // its shape [KH, KW].
    Value filter = pooling ? Value() : op.getDpsInputs()[1];
    int64_t windowRank = windowType.getRank();
    int64_t windowHeight = windowType.getDimSize(windowRank - 2);
    int64_t windowWidth = windowType.getDimSize(windowRank - 1);
    // A grouped convolution's input channels per group.
    int64_t groupChannels = grouped ? windowType.getDimSize(2) : 1;
    unsigned rank = outType.getRank();
    Type element = inType.getElementType();
    Type outElement = outType.getElementType();
    if (pooling && outElement != element)
      return;
    unsigned bits = element.getIntOrFloatBitWidth();
    SmallVector<int64_t> strides(stridesAttr.getValues<int64_t>());
    int64_t sh = strides[0], sw = strides[1];
    if ((sw != 1 && sw != 2) || (sw == 2 && bits != 16 && bits != 32))
      return;
    ArrayRef<int64_t> inShape = inType.getShape(), outShape = outType.getShape();
    int64_t width = lanes;
    while (width > 1 && outShape[rank - 1] % width != 0)
      width /= 2;
    // Pooling keeps vectors of 4 or more; a convolution's multiply-adds pay
    // for pairs too (the 2x2 maps of EfficientNet's last stage).
    if (width < (filter ? 2 : 4))
      return;
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    auto index = [&](OpBuilder &b, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    auto vectorOf = [&](Type type, int64_t n = 0) {
      return VectorType::get({n ? n : width}, type);
    };
    Type f32 = rewriter.getF32Type(), i32 = rewriter.getI32Type();
    Type ints = rewriter.getIntegerType(bits);
    Type doubled = rewriter.getIntegerType(2 * bits);
    bool bf16 = element.isBF16();
    Type computeType = bf16 || element.isF16() ? f32 : element;
    if (outElement != element && outElement != computeType)
      return;
    // A run needs no mask when the last block's last run ends within the
    // row (ResNet's 3x3/2 pooling of a padded 34-wide input: 2 + 32).
    bool runsInRow =
        (outShape[rank - 1] - width) * sw + (windowWidth - 1) + width * sw <=
        inShape[rank - 1];
    auto shift16 = [&](OpBuilder &b) {
      return arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(vectorOf(i32), b.getI32IntegerAttr(16)));
    };
    // bf16 bits (as i16, or as the low halves of i32) -> f32.
    auto bf16BitsToF32 = [&](OpBuilder &b, Value v) -> Value {
      if (cast<VectorType>(v.getType()).getElementType() != i32)
        v = arith::ExtUIOp::create(b, loc, vectorOf(i32), v);
      v = arith::ShLIOp::create(b, loc, v, shift16(b));
      return vector::BitCastOp::create(b, loc, vectorOf(f32), v);
    };
    // A loaded vector of `element`s -> the compute type (one of the output's
    // elements, already of it when the output is f32 and the input not).
    auto widen = [&](OpBuilder &b, Value v) -> Value {
      if (cast<VectorType>(v.getType()).getElementType() == computeType)
        return v;
      if (bf16)
        return bf16BitsToF32(
            b, vector::BitCastOp::create(b, loc, vectorOf(ints), v));
      if (computeType != element)
        return arith::ExtFOp::create(b, loc, vectorOf(computeType), v);
      return v;
    };
    Value input = op.getDpsInputs()[0], output = op.getDpsInits()[0];
    // The taps at `at` and every sw-th element after, in the compute type.
    auto loadTaps = [&](OpBuilder &b, ArrayRef<Value> at) -> Value {
      if (sw == 1)
        return widen(b, vector::LoadOp::create(b, loc, vectorOf(element),
                                               input, at));
      Value run;
      if (runsInRow) {
        run = vector::LoadOp::create(b, loc, vectorOf(element, 2 * width),
                                     input, at);
      } else {
        // The run's last element is not a tap and may lie past the row.
        Value left = arith::SubIOp::create(b, loc, index(b, inShape[rank - 1]),
                                           at.back());
        Value mask = vector::CreateMaskOp::create(
            b, loc, vectorOf(b.getI1Type(), 2 * width), left);
        Value zeros = arith::ConstantOp::create(
            b, loc, b.getZeroAttr(vectorOf(element, 2 * width)));
        run = vector::MaskedLoadOp::create(b, loc, vectorOf(element, 2 * width),
                                           input, at, mask, zeros);
      }
      Value pairs = vector::BitCastOp::create(b, loc, vectorOf(doubled), run);
      if (bf16)
        return bf16BitsToF32(b, pairs);
      Value low = arith::TruncIOp::create(b, loc, vectorOf(ints), pairs);
      return widen(b, vector::BitCastOp::create(b, loc, vectorOf(element), low));
    };
    // A grouped convolution computes `filterBlock` output channels of a
    // group at once: each tap is loaded once for all of them.
    int64_t filterBlock = 1;
    if (grouped)
      for (int64_t candidate : {4, 2})
        if (outShape[2] % candidate == 0) {
          filterBlock = candidate;
          break;
        }
    // A depthwise filter's taps of the plane's channel, widened and
    // broadcast once per plane (set by `rows`): inside the row loops each
    // tap's weight would be loaded again (LLVM cannot hoist the load past
    // the output's stores, which may alias the filter as far as it knows),
    // and for bf16 widened too.
    SmallVector<Value> planeWeights;
    // The tap (kh, kw)'s weight of channel `c`, as a vector.
    auto weightVector = [&](OpBuilder &b, ArrayRef<Value> w) -> Value {
      Value weight = memref::LoadOp::create(b, loc, filter, w);
      if (weight.getType() != computeType)
        weight = arith::ExtFOp::create(b, loc, computeType, weight);
      return vector::BroadcastOp::create(b, loc, vectorOf(computeType), weight);
    };
    // ivs: the plane (n, c; or n, g, f, the first of `filterBlock`), oh, ow
    // (the first of `width` outputs).
    auto tile = [&](OpBuilder &b, ValueRange ivs) {
      // The output at ivs, its filter dimension advanced by `i`.
      auto outputAt = [&](OpBuilder &b, int64_t i) {
        SmallVector<Value> at(ivs);
        if (i)
          at[2] = arith::AddIOp::create(b, loc, at[2], index(b, i));
        return at;
      };
      SmallVector<Value> accs;
      for (int64_t i = 0; i < filterBlock; ++i)
        accs.push_back(
            widen(b, vector::LoadOp::create(b, loc, vectorOf(outElement),
                                            output, outputAt(b, i))));
      Value ih0 = arith::MulIOp::create(b, loc, ivs[rank - 2], index(b, sh));
      Value iw0 = arith::MulIOp::create(b, loc, ivs[rank - 1], index(b, sw));
      // The window of one input channel (`channel`: grouped only) into the
      // accumulators.
      auto window = [&](OpBuilder &b, SmallVector<Value> accs, Value channel) {
        for (int64_t kh = 0; kh < windowHeight; ++kh) {
          Value ih = arith::AddIOp::create(b, loc, ih0, index(b, kh));
          for (int64_t kw = 0; kw < windowWidth; ++kw) {
            Value iw = arith::AddIOp::create(b, loc, iw0, index(b, kw));
            SmallVector<Value> at(ivs.take_front(2));
            if (grouped)
              at.push_back(channel);
            at.append({ih, iw});
            Value tap = loadTaps(b, at);
            if (!filter) {
              accs[0] = isa<arith::MaximumFOp>(combiner)
                            ? arith::MaximumFOp::create(b, loc, accs[0], tap)
                                  .getResult()
                            : arith::MaxNumFOp::create(b, loc, accs[0], tap)
                                  .getResult();
              continue;
            }
            for (int64_t i = 0; i < filterBlock; ++i) {
              // [C, KH, KW] at (c, kh, kw); [G, F, C, KH, KW] at (g, f + i,
              // c, kh, kw).
              Value weights;
              if (!planeWeights.empty()) {
                weights = planeWeights[kh * windowWidth + kw];
              } else {
                SmallVector<Value> w;
                if (grouped)
                  w.append({ivs[1], outputAt(b, i)[2], channel});
                else
                  w.push_back(ivs[1]);
                w.append({index(b, kh), index(b, kw)});
                weights = weightVector(b, w);
              }
              Value product = arith::MulFOp::create(b, loc, tap, weights);
              accs[i] = arith::AddFOp::create(b, loc, accs[i], product);
            }
          }
        }
        return accs;
      };
      if (grouped) {
        ValueRange results =
            scf::ForOp::create(
                b, loc, index(b, 0), index(b, groupChannels), index(b, 1), accs,
                [&](OpBuilder &lb, Location, Value c, ValueRange carried) {
                  scf::YieldOp::create(lb, loc,
                                       window(lb, llvm::to_vector(carried), c));
                })
                .getResults();
        accs.assign(results.begin(), results.end());
      } else
        accs = window(b, accs, Value());
      for (auto [i, acc] : llvm::enumerate(accs)) {
        // An f32 output (a convolution's) takes the accumulator as it is.
        if (outElement != computeType && bf16) {
          // The max is a bf16 value widened: its high half, exactly.
          Value wide = vector::BitCastOp::create(b, loc, vectorOf(i32), acc);
          wide = arith::ShRUIOp::create(b, loc, wide, shift16(b));
          Value narrow = arith::TruncIOp::create(b, loc, vectorOf(ints), wide);
          acc = vector::BitCastOp::create(b, loc, vectorOf(element), narrow);
        } else if (outElement != computeType) {
          acc = arith::TruncFOp::create(b, loc, vectorOf(element), acc);
        }
        vector::StoreOp::create(b, loc, acc, output, outputAt(b, i));
      }
    };
    Value zero = index(rewriter, 0), one = index(rewriter, 1);
    auto rows = [&](OpBuilder &b, ValueRange plane) {
      planeWeights.clear();
      if (depthwise)
        for (int64_t kh = 0; kh < windowHeight; ++kh)
          for (int64_t kw = 0; kw < windowWidth; ++kw)
            planeWeights.push_back(
                weightVector(b, {plane[1], index(b, kh), index(b, kw)}));
      scf::buildLoopNest(
          b, loc, {zero, zero},
          {index(b, outShape[rank - 2]), index(b, outShape[rank - 1])},
          {one, index(b, width)}, [&](OpBuilder &ib, Location, ValueRange ivs) {
            SmallVector<Value> at(plane);
            at.append(ivs.begin(), ivs.end());
            tile(ib, at);
          });
    };
    // The planes: (N, C), or (N, G, F) with F in steps of filterBlock.
    SmallVector<Value> planes, zeros(rank - 2, zero), steps(rank - 2, one);
    for (unsigned d = 0; d + 2 < rank; ++d)
      planes.push_back(index(rewriter, outShape[d]));
    if (grouped)
      steps[2] = index(rewriter, filterBlock);
    if (parallel && !op->getParentOfType<scf::ParallelOp>() &&
        outType.getNumElements() * groupChannels * windowHeight * windowWidth >=
            parallelMin)
      scf::ParallelOp::create(
          rewriter, loc, zeros, planes, steps,
          [&](OpBuilder &b, Location, ValueRange ivs) { rows(b, ivs); });
    else
      scf::buildLoopNest(
          rewriter, loc, zeros, planes, steps,
          [&](OpBuilder &b, Location, ValueRange ivs) { rows(b, ivs); });
    rewriter.eraseOp(op);
  }

  /// A transpose one element per lane would read with one scalar load per
  /// lane (its input's contiguous dimension is not the output's): instead,
  /// per block of lanes x lanes, `lanes` contiguous row loads, a shuffle
  /// network (transposeRows) and `lanes` contiguous row stores. The same
  /// elements move, bit for bit.
  void vectorizeTranspose(IRRewriter &rewriter, linalg::LinalgOp op,
                          const TransposePlan &plan) {
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<Value> lbs, ubs, steps;
    for (auto [d, range] : llvm::enumerate(ranges)) {
      lbs.push_back(arith::ConstantIndexOp::create(rewriter, loc, 0));
      ubs.push_back(arith::ConstantIndexOp::create(rewriter, loc, range));
      bool blocked = d == plan.rowLoop || d == plan.colLoop;
      steps.push_back(
          arith::ConstantIndexOp::create(rewriter, loc, blocked ? lanes : 1));
    }
    Value input = op.getDpsInputOperand(0)->get();
    Value output = op.getDpsInitOperand(0)->get();
    AffineMap inMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
    AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    auto vectorType = VectorType::get(
        {lanes}, getElementTypeOrSelf(input.getType()));
    // The operand's indices at the loop indices `ivs`, with `offset` added
    // to loop `shifted`.
    auto indicesAt = [&](OpBuilder &b, AffineMap map, ValueRange ivs,
                         unsigned shifted, int64_t offset) {
      SmallVector<Value> indices;
      for (unsigned j = 0; j < map.getNumResults(); ++j) {
        unsigned d = map.getDimPosition(j);
        Value index = ivs[d];
        if (d == shifted && offset != 0)
          index = arith::AddIOp::create(
              b, loc, index, arith::ConstantIndexOp::create(b, loc, offset));
        indices.push_back(index);
      }
      return indices;
    };
    auto body = [&](OpBuilder &b, Location, ValueRange ivs) {
      // Row r: the input along its contiguous loop, at colLoop + r.
      SmallVector<Value> rows;
      for (int64_t r = 0; r < lanes; ++r)
        rows.push_back(vector::LoadOp::create(
            b, loc, vectorType, input,
            indicesAt(b, inMap, ivs, plan.colLoop, r)));
      SmallVector<Value> columns = transposeRows(b, loc, rows);
      for (int64_t c = 0; c < lanes; ++c)
        vector::StoreOp::create(b, loc, applyBody(b, op, columns[c]), output,
                                indicesAt(b, outMap, ivs, plan.rowLoop, c));
    };
    if (runsInParallel(op))
      scf::ParallelOp::create(rewriter, loc, lbs, ubs, steps, body);
    else
      scf::buildLoopNest(rewriter, loc, lbs, ubs, steps, body);
    rewriter.eraseOp(op);
  }

  /// The value `op`'s body (a transpose plan's: elementwise ops of its
  /// input alone) yields for the input elements `input`, a vector: each op
  /// applied to vectors of its operands.
  static Value applyBody(OpBuilder &b, linalg::LinalgOp op, Value input) {
    Block *body = op.getBlock();
    IRMapping vectors;
    vectors.map(body->getArgument(0), input);
    int64_t lanes = cast<VectorType>(input.getType()).getNumElements();
    for (Operation &scalar : body->without_terminator()) {
      OperationState state(scalar.getLoc(), scalar.getName());
      state.addOperands(
          llvm::map_to_vector(scalar.getOperands(), [&](Value operand) {
            return vectors.lookup(operand);
          }));
      state.addTypes(VectorType::get({lanes}, scalar.getResult(0).getType()));
      state.addAttributes(scalar.getAttrs());
      vectors.map(scalar.getResult(0), b.create(state)->getResult(0));
    }
    return vectors.lookup(body->getTerminator()->getOperand(0));
  }

  /// Tiles `op` (static, its innermost range a multiple of `lanes` or below
  /// it) to one vector along the innermost loop and vectorizes the tile.
  void vectorizeStatic(IRRewriter &rewriter, linalg::GenericOp op) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<int64_t> tileSizes(ranges.size(), 1);
    tileSizes.back() = std::min<int64_t>(ranges.back(), lanes);
    // A row reduction: a block of rows at a time
    // (RowBlockReductionToShuffles).
    if (int64_t block = getRowBlockReduction(op, lanes)) {
      tileSizes[ranges.size() - 2] = block;
      tileSizes.back() = block;
    }
    std::optional<linalg::GenericOp> tiled = tile(rewriter, op, tileSizes);
    if (!tiled)
      return;

    // The tile keeps the op's unit loops (vector<1x1x16xf32>); the vector
    // patterns of runOnOperation drop them.
    Operation *toVectorize = *tiled;
    rewriter.setInsertionPoint(toVectorize);
    FailureOr<linalg::VectorizationResult> result =
        linalg::vectorize(rewriter, toVectorize);
    if (succeeded(result))
      rewriter.replaceOp(toVectorize, result->replacements);
  }
};

} // namespace
