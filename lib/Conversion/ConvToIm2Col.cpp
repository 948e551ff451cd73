//===- ConvToIm2Col.cpp - convolutions to im2col + one matmul -------------===//
//
// Chooses which convolutions become im2col + a contraction (by element type),
// so that the CPU pipeline sends them to its matmul kernels.
//
// An NCHW convolution becomes ONE matmul with the batch folded into N:
//
//   col[(c, kh, kw), (n, oh, ow)] = x[n, c, oh*sh + kh*dh, ow*sw + kw*dw]
//   out2[f, (n, oh, ow)]          = w[f, (c, kh, kw)] . col
//   out[n, f, oh, ow]             = out2[f, n, oh, ow]          (a transpose)
//
// Upstream's linalg::rewriteInIm2Col instead builds a batch of matmuls that
// share the filter (one kernel call per image, the filter packed each time)
// and an im2col generic whose floordiv/mod indexing stays a scalar loop. At
// training sizes a convolution's N per image is tiny (ResNet-18 at 64x64:
// OH*OW = 4 in its last stage, and its weight gradients are "convolutions"
// whose batch is the channel count), so per-image calls waste the kernel;
// with the batch folded in, each convolution is one call of a well-shaped
// matmul. col is filled tap by tap (an scf.for over kh, kw): each tap is a
// strided slice of x transposed (N, C) -> (C, N), whose rows of OW stay
// contiguous, which --mpt-vectorize-cpu-loops vectorizes.
//
// NHWC convolutions and dynamic shapes keep upstream's rewrite.
//
//===----------------------------------------------------------------------===//
#include "mpt/Conversion/CPUPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mpt {
#define GEN_PASS_DEF_CONVTOIM2COL
#include "mpt/Conversion/CPUPasses.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// A convolution's init in a product's layout: its dimensions permuted by
/// `permutation`, then collapsed by `groups`. A fill becomes a fill of the
/// same value in that layout (the kernels then start from zero tiles
/// instead of reading C); any other init is transposed and collapsed.
static Value initInLayout(OpBuilder &b, Location loc, Value init,
                          ArrayRef<int64_t> permutation,
                          ArrayRef<ReassociationIndices> groups) {
  auto initType = cast<RankedTensorType>(init.getType());
  Type elem = initType.getElementType();
  SmallVector<int64_t> moved, collapsed;
  for (int64_t d : permutation)
    moved.push_back(initType.getDimSize(d));
  for (const ReassociationIndices &group : groups) {
    int64_t size = 1;
    for (int64_t d : group)
      size *= moved[d];
    collapsed.push_back(size);
  }
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    Value empty = tensor::EmptyOp::create(b, loc, collapsed, elem);
    return linalg::FillOp::create(b, loc, fill.getInputs()[0], empty)
        .getResult(0);
  }
  Value empty = tensor::EmptyOp::create(b, loc, moved, elem);
  Value transposed =
      linalg::TransposeOp::create(b, loc, init, empty, permutation)
          .getResult()[0];
  return tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get(collapsed, elem), transposed, groups);
}

/// The init of the folded matmul, [F, N*OH*OW] (or, `positionsFirst`, the
/// transposed product's [N*OH*OW, F]): initInLayout of the NCHW init.
Value foldedInit(OpBuilder &b, Location loc, Value init,
                 bool positionsFirst = false) {
  if (positionsFirst)
    return initInLayout(b, loc, init, {0, 2, 3, 1}, {{0, 1, 2}, {3}});
  return initInLayout(b, loc, init, {1, 0, 2, 3}, {{0}, {1, 2, 3}});
}

/// Whether `op` is elementwise on one input in any layout: all loops
/// parallel, identity maps, no linalg.index, one input and one init.
static bool isLayoutFreeElementwise(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic->getNumResults() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return false;
  return generic.getBody()->getOps<linalg::IndexOp>().empty();
}

/// The permutation [1, 0, 2, ..., rank - 1]: an NC... convolution's result
/// to its product's [F, N, ...] layout and back.
static SmallVector<int64_t> swapFirstTwoDims(int64_t rank) {
  SmallVector<int64_t> permutation{1, 0};
  for (int64_t d = 2; d < rank; ++d)
    permutation.push_back(d);
  return permutation;
}

/// When the convolution's only use is a chain of layout-free elementwise ops
/// ending in a linalg.transpose [1, 0, 2, ...] into a tensor.empty, replaces
/// the transpose by the chain applied to `transposed` (the convolution's
/// result with its first two dimensions swapped) and erases the rest.
static LogicalResult foldTransposeBack(RewriterBase &rewriter, Operation *conv,
                                       Value transposed) {
  SmallVector<linalg::GenericOp> chain;
  Value value = conv->getResult(0);
  SmallVector<int64_t> swapFirstTwo =
      swapFirstTwoDims(cast<RankedTensorType>(value.getType()).getRank());
  linalg::TransposeOp back;
  while (value.hasOneUse()) {
    Operation *user = *value.getUsers().begin();
    if (auto transpose = dyn_cast<linalg::TransposeOp>(user)) {
      if (transpose.getInput() == value &&
          transpose.getPermutation() == ArrayRef<int64_t>(swapFirstTwo) &&
          transpose.getInit().getDefiningOp<tensor::EmptyOp>())
        back = transpose;
      break;
    }
    if (!isLayoutFreeElementwise(user) ||
        cast<linalg::GenericOp>(user).getDpsInputs()[0] != value)
      break;
    chain.push_back(cast<linalg::GenericOp>(user));
    value = user->getResult(0);
  }
  if (!back)
    return failure();
  rewriter.setInsertionPoint(back);
  auto shape = cast<RankedTensorType>(transposed.getType()).getShape();
  for (linalg::GenericOp op : chain) {
    Type elem = getElementTypeOrSelf(op->getResult(0).getType());
    Value init = tensor::EmptyOp::create(rewriter, op.getLoc(), shape, elem);
    auto copy = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{init.getType()},
        ValueRange{transposed}, ValueRange{init}, op.getIndexingMapsArray(),
        op.getIteratorTypesArray());
    rewriter.cloneRegionBefore(op.getRegion(), copy.getRegion(),
                               copy.getRegion().end());
    transposed = copy.getResult(0);
  }
  rewriter.replaceOp(back, transposed);
  for (linalg::GenericOp op : llvm::reverse(chain))
    rewriter.eraseOp(op);
  rewriter.eraseOp(conv);
  return success();
}

/// An input gradient's filter as torch-mlir writes it: a generic with no
/// inputs whose body reads w'[c, f, kh, kw] = src[f, c, KH-1-kh, KW-1-kw]
/// with tensor.extract (the filter flipped in space, channels swapped) and
/// applies elementwise ops to it (autocast's truncf). Each element is a
/// scalar load at a computed address, the filter's rows 4.5 KiB apart.
struct FlippedFilter {
  linalg::GenericOp generic;
  tensor::ExtractOp extract;
};

/// Whether `v` is `linalg.index dim`, or `last - linalg.index dim` when
/// `flipped`.
static bool isIndex(Value v, unsigned dim, bool flipped, int64_t last) {
  if (flipped) {
    auto sub = v.getDefiningOp<arith::SubIOp>();
    std::optional<int64_t> c =
        sub ? getConstantIntValue(sub.getLhs()) : std::nullopt;
    if (!c || *c != last)
      return false;
    v = sub.getRhs();
  }
  auto index = v.getDefiningOp<linalg::IndexOp>();
  return index && index.getDim() == dim;
}

/// Whether `op` of a flipped filter's body computes the gather's address
/// (or is the gather): what reading the filter unflipped leaves out.
static bool isGatherAddressing(Operation &op, tensor::ExtractOp extract) {
  return &op == extract.getOperation() || isa<linalg::IndexOp>(op) ||
         llvm::all_of(op.getResultTypes(), [](Type t) { return t.isIndex(); });
}

static std::optional<FlippedFilter> matchFlippedFilter(Value filter) {
  auto generic = filter.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInputs() != 0 ||
      generic.getNumDpsInits() != 1 || generic.getNumLoops() != 4 ||
      generic.getNumParallelLoops() != 4 ||
      !generic.getIndexingMapsArray()[0].isIdentity() ||
      !generic.getBody()->getArgument(0).use_empty())
    return std::nullopt;
  auto shape = cast<RankedTensorType>(filter.getType()).getShape();
  tensor::ExtractOp extract;
  for (Operation &op : generic.getBody()->without_terminator()) {
    if (auto read = dyn_cast<tensor::ExtractOp>(op)) {
      if (extract)
        return std::nullopt;
      extract = read;
    }
  }
  if (!extract)
    return std::nullopt;
  auto srcType = cast<RankedTensorType>(extract.getTensor().getType());
  if (srcType.getRank() != 4 || srcType.getDimSize(0) != shape[1] ||
      srcType.getDimSize(1) != shape[0] || srcType.getDimSize(2) != shape[2] ||
      srcType.getDimSize(3) != shape[3])
    return std::nullopt;
  auto indices = extract.getIndices();
  if (!isIndex(indices[0], 1, false, 0) || !isIndex(indices[1], 0, false, 0) ||
      !isIndex(indices[2], 2, true, shape[2] - 1) ||
      !isIndex(indices[3], 3, true, shape[3] - 1))
    return std::nullopt;
  // The rest of the body computes on the extracted element only.
  for (Operation &op : generic.getBody()->without_terminator()) {
    if (isGatherAddressing(op, extract))
      continue;
    if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op))
      return std::nullopt;
    for (Value operand : op.getOperands())
      if (operand.getType().isIndex())
        return std::nullopt;
  }
  return FlippedFilter{generic, extract};
}

/// The `arith.truncf` that is all `body` computes from its first argument
/// (besides the gather's addressing when `extract` is given, whose result
/// then stands for the argument), or null.
static arith::TruncFOp getOnlyTruncation(Block *body,
                                         tensor::ExtractOp extract = {}) {
  Value in = extract ? extract.getResult() : body->getArgument(0);
  arith::TruncFOp truncation;
  for (Operation &op : body->without_terminator()) {
    if (extract && isGatherAddressing(op, extract))
      continue;
    auto truncf = dyn_cast<arith::TruncFOp>(op);
    if (truncation || !truncf || truncf.getIn() != in)
      return {};
    truncation = truncf;
  }
  Operation *yield = body->getTerminator();
  if (!truncation || yield->getNumOperands() != 1 ||
      yield->getOperand(0) != truncation.getResult())
    return {};
  return truncation;
}

/// A rounding of all of `src` to `type` before `before` in its block
/// (autocast's cast of the weight for the forward convolution), or null.
static Value findEarlierRounding(Value src, Type type, Operation *before) {
  for (Operation *user : src.getUsers()) {
    if (!isLayoutFreeElementwise(user) ||
        user->getBlock() != before->getBlock() ||
        !user->isBeforeInBlock(before))
      continue;
    auto generic = cast<linalg::GenericOp>(user);
    if (generic.getDpsInputs()[0] != src)
      continue;
    arith::TruncFOp truncation = getOnlyTruncation(generic.getBody());
    if (truncation && truncation.getType() == type)
      return generic->getResult(0);
  }
  return {};
}

/// The flipped filter's [C, F, KH, KW] without the flip: src transposed
/// (f, c) -> (c, f) by a generic with a permutation map (vectorizable), the
/// body's elementwise ops applied. When those are only a rounding that the
/// step already made of src (the forward's bf16 copy of the weight), that
/// copy is transposed instead: half the bytes read, the same values. The
/// im2col fills its taps in reverse order to match.
static Value transposeUnflipped(RewriterBase &rewriter,
                                FlippedFilter flipped, Operation *conv) {
  linalg::GenericOp generic = flipped.generic;
  Location loc = generic.getLoc();
  Value src = flipped.extract.getTensor();
  auto resultType = cast<RankedTensorType>(generic->getResult(0).getType());
  Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                       resultType.getElementType());
  if (getOnlyTruncation(generic.getBody(), flipped.extract)) {
    if (Value rounded =
            findEarlierRounding(src, resultType.getElementType(), conv))
      return linalg::TransposeOp::create(rewriter, loc, rounded, init,
                                         {1, 0, 2, 3})
          .getResult()[0];
  }
  MLIRContext *ctx = rewriter.getContext();
  AffineMap swap = AffineMap::getPermutationMap(ArrayRef<unsigned>{1, 0, 2, 3},
                                                ctx);
  SmallVector<AffineMap> maps{swap, AffineMap::getMultiDimIdentityMap(4, ctx)};
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  auto copy = linalg::GenericOp::create(
      rewriter, loc, TypeRange{resultType}, ValueRange{src}, ValueRange{init},
      maps, iterators,
      [&](OpBuilder &b, Location, ValueRange args) {
        IRMapping mapping;
        mapping.map(flipped.extract.getResult(), args[0]);
        for (Operation &op : generic.getBody()->without_terminator()) {
          if (!isGatherAddressing(op, flipped.extract))
            b.clone(op, mapping);
        }
        auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
        linalg::YieldOp::create(b, loc,
                                mapping.lookupOrDefault(yield.getOperand(0)));
      });
  return copy.getResult(0);
}

/// Replaces `conv` by `product4` ([F, N, OH, OW], the convolution's result
/// with its first two dimensions swapped) transposed back to NCHW, or by
/// its user's transpose folded away.
static LogicalResult replaceByProduct(RewriterBase &rewriter,
                                      linalg::Conv2DNchwFchwOp conv,
                                      Value product4) {
  // A weight gradient written as a convolution ([C, F, KH, KW], batch and
  // channels swapped) is transposed back to [F, C, KH, KW] by its user,
  // possibly after elementwise ops (autocast's truncf): product4 is already
  // in that layout, so the elementwise ops run on it and neither transpose
  // is made.
  if (succeeded(foldTransposeBack(rewriter, conv, product4)))
    return success();
  auto outType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  Location loc = conv.getLoc();
  Value empty = tensor::EmptyOp::create(rewriter, loc, outType.getShape(),
                                        outType.getElementType());
  Value result =
      linalg::TransposeOp::create(rewriter, loc, product4, empty, {1, 0, 2, 3})
          .getResult()[0];
  rewriter.replaceOp(conv, result);
  return success();
}

/// Fills `init` by `body` over the positions [0, bounds[0]) x [0, bounds[1])
/// x ... (an scf.for nest carrying the tensor): the im2col's taps or output
/// positions.
static Value
fillByPositions(RewriterBase &rewriter, Location loc, ArrayRef<int64_t> bounds,
                Value init,
                function_ref<scf::ValueVector(OpBuilder &, Location, ValueRange,
                                              ValueRange)>
                    body) {
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  Value zero = index(0), one = index(1);
  SmallVector<Value> upper;
  for (int64_t bound : bounds)
    upper.push_back(index(bound));
  SmallVector<Value> lower(bounds.size(), zero), steps(bounds.size(), one);
  return scf::buildLoopNest(rewriter, loc, lower, upper, steps,
                            ValueRange{init}, body)
      .results[0];
}

/// `v * factor` as an index (`v` itself for a factor of 1): a tap's or an
/// output position's offset in the input.
static OpFoldResult scaledIndex(OpBuilder &b, Location loc, Value v,
                                int64_t factor) {
  if (factor == 1)
    return v;
  return arith::MulIOp::create(b, loc, v,
                               arith::ConstantIndexOp::create(b, loc, factor))
      .getResult();
}

/// The product [F, N, OH, OW] of a convolution whose output positions are
/// fewer than its taps (OH*OW < KH*KW, filter not flipped, N*OH*OW > F): a
/// weight gradient's, whose "filter" is the output gradient (ResNet-18:
/// 16x16 taps, 3x3 positions) and whose dilation is the forward stride.
/// Gathered tap by tap, col's runs would be OW elements long (3) in KH*KW
/// copies (256); here col's transpose is filled per output position
/// instead,
///
///   colT[(n, oh, ow), (c, kh, kw)] = x[n, c, oh*sh + kh*dh, ow*sw + kw*dw],
///
/// OH*OW copies whose runs are KW long (DW apart: a Conv1d of stride 2
/// has 400 taps of 3 positions, 400 x N*C runs of 3 one way, 3 x N*C runs
/// of 400 the other), and the contraction is
/// computed transposed, outT[(n, oh, ow), f] = colT . w2^T: the same
/// products summed over k in the same order, so the result is the tap
/// gather's bit for bit. The [P, F] result (P = N*OH*OW) is then moved to
/// [F, P].
static Value productByPosition(RewriterBase &rewriter, Location loc, Value x,
                               Value w, Value init, int64_t n, int64_t c,
                               int64_t f, int64_t kh, int64_t kw, int64_t oh,
                               int64_t ow, ArrayRef<int64_t> strides,
                               ArrayRef<int64_t> dilations, Type outElem) {
  Type xElem = getElementTypeOrSelf(x.getType());
  Type wElem = getElementTypeOrSelf(w.getType());
  MLIRContext *ctx = rewriter.getContext();
  Value colT = tensor::EmptyOp::create(rewriter, loc, {n, oh, ow, c, kh, kw},
                                       xElem);
  SmallVector<OpFoldResult> colSizes =
      getAsIndexOpFoldResult(ctx, {n, 1, 1, c, kh, kw});
  SmallVector<OpFoldResult> unitStrides(6, rewriter.getIndexAttr(1));
  auto windowType = RankedTensorType::get({n, c, kh, kw}, xElem);
  // A weight gradient's x is the activation with batch and channels
  // swapped (a transpose the importer writes), usually padded in space: the
  // windows are read from the activation (padded instead, the same pad,
  // which CSE may share with the forward's) and swapped back one window at a
  // time, so x itself is never made.
  Value src = x;
  auto pad = x.getDefiningOp<tensor::PadOp>();
  Value constantPad = pad ? pad.getConstantPaddingValue() : Value();
  auto swap = (pad ? pad.getSource() : x).getDefiningOp<linalg::TransposeOp>();
  bool spatialPad = !pad || (constantPad && pad.getStaticLow()[0] == 0 &&
                             pad.getStaticLow()[1] == 0 &&
                             pad.getStaticHigh()[0] == 0 &&
                             pad.getStaticHigh()[1] == 0);
  if (swap && swap.getPermutation() == ArrayRef<int64_t>{1, 0, 2, 3} &&
      spatialPad) {
    src = swap.getInput();
    if (pad) {
      auto xShape = cast<RankedTensorType>(x.getType()).getShape();
      auto paddedType =
          RankedTensorType::get({c, n, xShape[2], xShape[3]}, xElem);
      src = tensor::PadOp::create(rewriter, loc, paddedType, src,
                                  pad.getMixedLowPad(), pad.getMixedHighPad(),
                                  constantPad);
    }
  } else {
    swap = nullptr;
  }
  auto copyWindow = [&](OpBuilder &b, Location, ValueRange pos,
                        ValueRange iterArgs) -> scf::ValueVector {
    SmallVector<OpFoldResult> xOffsets{b.getIndexAttr(0), b.getIndexAttr(0),
                                       scaledIndex(b, loc, pos[0], strides[0]),
                                       scaledIndex(b, loc, pos[1], strides[1])};
    SmallVector<OpFoldResult> xSizes = getAsIndexOpFoldResult(
        ctx, {swap ? c : n, swap ? n : c, kh, kw});
    SmallVector<OpFoldResult> xStrides =
        getAsIndexOpFoldResult(ctx, {1, 1, dilations[0], dilations[1]});
    Value window = tensor::ExtractSliceOp::create(b, loc, src, xOffsets,
                                                  xSizes, xStrides);
    SmallVector<OpFoldResult> colOffsets{b.getIndexAttr(0), pos[0], pos[1],
                                         b.getIndexAttr(0), b.getIndexAttr(0),
                                         b.getIndexAttr(0)};
    Value dest = tensor::ExtractSliceOp::create(
        b, loc, windowType, iterArgs[0], colOffsets, colSizes, unitStrides);
    Value copied =
        swap ? linalg::TransposeOp::create(b, loc, window, dest, {1, 0, 2, 3})
                   .getResult()[0]
             : linalg::CopyOp::create(b, loc, window, dest).getResult(0);
    return {tensor::InsertSliceOp::create(b, loc, copied, iterArgs[0],
                                          colOffsets, colSizes, unitStrides)};
  };
  colT = fillByPositions(rewriter, loc, {oh, ow}, colT, copyWindow);
  int64_t k = c * kh * kw, p = n * oh * ow;
  Value colT2 = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({p, k}, xElem), colT,
      SmallVector<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}});
  Value w2 = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({f, k}, wElem), w,
      SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  Value w2T = linalg::TransposeOp::create(
                  rewriter, loc, w2,
                  tensor::EmptyOp::create(rewriter, loc, {k, f}, wElem),
                  {1, 0})
                  .getResult()[0];
  Value initT = foldedInit(rewriter, loc, init,
                           /*positionsFirst=*/true);
  Value productT =
      linalg::MatmulOp::create(rewriter, loc, ValueRange{colT2, w2T}, initT)
          .getResult(0);
  // Moved to [F, P] as a 2-d transpose, which the vectorizer does in
  // 16x16 blocks (as [F, N, OH, OW] its innermost run would be OW).
  Value product =
      linalg::TransposeOp::create(
          rewriter, loc, productT,
          tensor::EmptyOp::create(rewriter, loc, {f, p}, outElem), {1, 0})
          .getResult()[0];
  return tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get({f, n, oh, ow}, outElem), product,
      SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
}

/// Whether every shaped operand of `op` has a static shape (the rewrites
/// below size their im2col and products from them).
static bool hasStaticOperands(Operation *op) {
  return llvm::all_of(op->getOperandTypes(), [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return !shaped || shaped.hasStaticShape();
  });
}

/// Taps smaller than this many elements (the vectorizer's default
/// parallel-min: below it a copy runs on one thread) are filled in
/// parallel.
constexpr int64_t kParallelTapElements = 32768;

/// Rewrites a static NCHW convolution into im2col (batch folded into the
/// columns) + linalg.matmul + a transpose back to NCHW; with `parallelTaps`,
/// many small taps are filled by an scf.forall.
LogicalResult rewriteFolded(RewriterBase &rewriter,
                            linalg::Conv2DNchwFchwOp conv, bool parallelTaps) {
  auto xType = cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto wType = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto outType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  if (!hasStaticOperands(conv))
    return failure();
  int64_t n = xType.getDimSize(0), c = xType.getDimSize(1);
  int64_t f = wType.getDimSize(0), kh = wType.getDimSize(2),
          kw = wType.getDimSize(3);
  int64_t oh = outType.getDimSize(2), ow = outType.getDimSize(3);
  SmallVector<int64_t> strides(conv.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dilations(conv.getDilations().getValues<int64_t>());
  Location loc = conv.getLoc();
  Value x = conv.getInputs()[0], w = conv.getInputs()[1];
  // A flipped filter (an input gradient) is read unflipped, transposed by a
  // vectorizable generic, and the taps are gathered in reverse order.
  std::optional<FlippedFilter> flipped = matchFlippedFilter(w);
  Type xElem = xType.getElementType();
  Type outElem = outType.getElementType();
  rewriter.setInsertionPoint(conv);
  // By output position where that gathers longer runs in fewer copies and
  // col (P x K) outweighs the filter that the transposed product moves
  // (F x K): a weight gradient's shape, not a deep stage's forward
  // convolution (ResNet-18's last: 2x2 positions of 3x3 taps, but
  // P = 64 against F = 512).
  if (!flipped && oh * ow < kh * kw && kw > ow && n * oh * ow > f) {
    return replaceByProduct(
        rewriter, conv,
        productByPosition(rewriter, loc, x, w, conv.getOutputs()[0], n, c, f,
                          kh, kw, oh, ow, strides, dilations, outElem));
  }

  // col as [C, KH, KW, N, OH, OW], filled one tap (i, j) at a time: the
  // strided slice x[:, :, i*dh :: sh, j*dw :: sw] (N x C x OH x OW; from the
  // far end, KH-1-i, for a flipped filter) transposed into col[:, i, j].
  Value col = tensor::EmptyOp::create(rewriter, loc,
                                      {c, kh, kw, n, oh, ow}, xElem);
  auto tapType = RankedTensorType::get({c, n, oh, ow}, xElem);
  auto index = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto tapOffset = [&](OpBuilder &b, Value tap, int64_t size,
                       int64_t dilation) -> OpFoldResult {
    if (flipped)
      tap = arith::SubIOp::create(b, loc, index(b, size - 1), tap);
    return scaledIndex(b, loc, tap, dilation);
  };
  // Tap (i, j) of `current`: the transposed slice and where it goes.
  SmallVector<OpFoldResult> colSizes =
      getAsIndexOpFoldResult(rewriter.getContext(), {c, 1, 1, n, oh, ow});
  SmallVector<OpFoldResult> colStrides(6, rewriter.getIndexAttr(1));
  auto transposeTap = [&](OpBuilder &b, Value i, Value j, Value current,
                          SmallVector<OpFoldResult> &colOffsets) -> Value {
    SmallVector<OpFoldResult> xOffsets{b.getIndexAttr(0), b.getIndexAttr(0),
                                       tapOffset(b, i, kh, dilations[0]),
                                       tapOffset(b, j, kw, dilations[1])};
    SmallVector<OpFoldResult> xSizes =
        getAsIndexOpFoldResult(b.getContext(), {n, c, oh, ow});
    SmallVector<OpFoldResult> xStrides =
        getAsIndexOpFoldResult(b.getContext(), {1, 1, strides[0], strides[1]});
    Value tap = tensor::ExtractSliceOp::create(b, loc, x, xOffsets, xSizes,
                                               xStrides);
    colOffsets = {b.getIndexAttr(0), i, j, b.getIndexAttr(0),
                  b.getIndexAttr(0), b.getIndexAttr(0)};
    Value dest = tensor::ExtractSliceOp::create(b, loc, tapType, current,
                                                colOffsets, colSizes,
                                                colStrides);
    return linalg::TransposeOp::create(b, loc, tap, dest, {1, 0, 2, 3})
        .getResult()[0];
  };
  // Many small taps (a weight gradient's: one per output position, each a
  // copy below the vectorizer's parallel size) are filled in parallel, by
  // an scf.forall; a few large ones one after the other, each transpose
  // then parallel itself.
  if (parallelTaps && kh * kw > 1 && c * n * oh * ow < kParallelTapElements) {
    auto forall = scf::ForallOp::create(
        rewriter, loc,
        getAsIndexOpFoldResult(rewriter.getContext(), {kh, kw}),
        ValueRange{col}, std::nullopt);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(forall.getBody());
    SmallVector<OpFoldResult> colOffsets;
    Value moved = transposeTap(rewriter, forall.getInductionVar(0),
                               forall.getInductionVar(1),
                               forall.getRegionIterArgs()[0], colOffsets);
    rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(rewriter, loc, moved,
                                          forall.getRegionIterArgs()[0],
                                          colOffsets, colSizes, colStrides);
    col = forall.getResult(0);
  } else {
    auto gatherTap = [&](OpBuilder &b, Location, ValueRange taps,
                         ValueRange iterArgs) -> scf::ValueVector {
      SmallVector<OpFoldResult> colOffsets;
      Value moved =
          transposeTap(b, taps[0], taps[1], iterArgs[0], colOffsets);
      return {tensor::InsertSliceOp::create(b, loc, moved, iterArgs[0],
                                            colOffsets, colSizes, colStrides)};
    };
    col = fillByPositions(rewriter, loc, {kh, kw}, col, gatherTap);
  }

  int64_t k = c * kh * kw, p = n * oh * ow;
  Value col2 = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({k, p}, xElem), col,
      SmallVector<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}});
  if (flipped)
    w = transposeUnflipped(rewriter, *flipped, conv);
  Value w2 = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({f, k}, wType.getElementType()), w,
      SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  Value init = foldedInit(rewriter, loc, conv.getOutputs()[0]);
  Value product =
      linalg::MatmulOp::create(rewriter, loc, ValueRange{w2, col2}, init)
          .getResult(0);
  Value product4 = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get({f, n, oh, ow}, outElem), product,
      SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  return replaceByProduct(rewriter, conv, product4);
}

/// Output channels per group below which a grouped convolution stays a
/// convolution (--mpt-vectorize-cpu-loops' window code): the kernels'
/// register block is 14 rows, so a product of fewer rows per group computes
/// mostly padding (ResNeXt-50's first stage: 4 channels per group).
constexpr int64_t kMinGroupChannels = 8;

/// Rewrites a static grouped NCHW convolution of bf16 inputs (x [N, G, C, H,
/// W], w [G, F, C, KH, KW]) into an im2col per group and ONE batched matmul
/// over the groups, with the batch folded into the columns as rewriteFolded
/// does:
///
///   col[g, (c, kh, kw), (n, oh, ow)] = x[n, g, c, oh*sh + kh*dh,
///                                            ow*sw + kw*dw]
///   out3[g, f, (n, oh, ow)]          = w[g, f, (c, kh, kw)] . col[g]
///   out[n, g, f, oh, ow]             = out3[g, f, n, oh, ow]
///
/// Each output is the sum over (c, kh, kw) in the convolution loops' order,
/// taken by the matmul kernels (RegNet, ResNeXt, a grouped convolution's
/// input gradient), where the direct window code multiplies and adds one
/// vector of OW at a time.
LogicalResult rewriteGrouped(RewriterBase &rewriter,
                             linalg::Conv2DNgchwGfchwOp conv) {
  auto xType = cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto wType = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto outType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  if (!hasStaticOperands(conv))
    return failure();
  int64_t n = xType.getDimSize(0), g = xType.getDimSize(1),
          c = xType.getDimSize(2);
  int64_t f = wType.getDimSize(1), kh = wType.getDimSize(3),
          kw = wType.getDimSize(4);
  int64_t oh = outType.getDimSize(3), ow = outType.getDimSize(4);
  // Only bf16 pays for the copies and the padded rows: the kernels' bf16
  // dot product does two multiply-adds where the window code converts to
  // f32 and does one. For f32 both run FMA, and the window code was faster
  // (RegNet-X 800MF's step 101 ms direct, 129 ms with the im2col).
  if (f < kMinGroupChannels || !xType.getElementType().isBF16())
    return failure();
  SmallVector<int64_t> strides(conv.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dilations(conv.getDilations().getValues<int64_t>());
  Location loc = conv.getLoc();
  Value x = conv.getInputs()[0], w = conv.getInputs()[1];
  Type xElem = xType.getElementType(), outElem = outType.getElementType();
  MLIRContext *ctx = rewriter.getContext();
  rewriter.setInsertionPoint(conv);
  // col as [G, C, KH, KW, N, OH, OW], one tap (i, j) at a time: the strided
  // slice x[:, :, :, i*dh :: sh, j*dw :: sw] (N x G x C x OH x OW)
  // transposed into col[:, :, i, j], rows of OW kept whole.
  Value col =
      tensor::EmptyOp::create(rewriter, loc, {g, c, kh, kw, n, oh, ow}, xElem);
  auto tapType = RankedTensorType::get({g, c, n, oh, ow}, xElem);
  SmallVector<OpFoldResult> colSizes =
      getAsIndexOpFoldResult(ctx, {g, c, 1, 1, n, oh, ow});
  SmallVector<OpFoldResult> unitStrides(7, rewriter.getIndexAttr(1));
  auto gatherTap = [&](OpBuilder &b, Location, ValueRange taps,
                       ValueRange iterArgs) -> scf::ValueVector {
    SmallVector<OpFoldResult> xOffsets(3, b.getIndexAttr(0));
    xOffsets.push_back(scaledIndex(b, loc, taps[0], dilations[0]));
    xOffsets.push_back(scaledIndex(b, loc, taps[1], dilations[1]));
    Value tap = tensor::ExtractSliceOp::create(
        b, loc, x, xOffsets, getAsIndexOpFoldResult(ctx, {n, g, c, oh, ow}),
        getAsIndexOpFoldResult(ctx, {1, 1, 1, strides[0], strides[1]}));
    SmallVector<OpFoldResult> colOffsets{
        b.getIndexAttr(0), b.getIndexAttr(0), taps[0],          taps[1],
        b.getIndexAttr(0), b.getIndexAttr(0), b.getIndexAttr(0)};
    Value dest = tensor::ExtractSliceOp::create(
        b, loc, tapType, iterArgs[0], colOffsets, colSizes, unitStrides);
    Value moved =
        linalg::TransposeOp::create(b, loc, tap, dest, {1, 2, 0, 3, 4})
            .getResult()[0];
    return {tensor::InsertSliceOp::create(b, loc, moved, iterArgs[0],
                                          colOffsets, colSizes, unitStrides)};
  };
  col = fillByPositions(rewriter, loc, {kh, kw}, col, gatherTap);

  int64_t k = c * kh * kw, p = n * oh * ow;
  Value col3 = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({g, k, p}, xElem), col,
      SmallVector<ReassociationIndices>{{0}, {1, 2, 3}, {4, 5, 6}});
  Value w3 = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({g, f, k}, wType.getElementType()),
      w, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3, 4}});
  // The init as [G, F, N*OH*OW].
  Value init3 = initInLayout(rewriter, loc, conv.getOutputs()[0],
                             {1, 2, 0, 3, 4}, {{0}, {1}, {2, 3, 4}});
  Value product =
      linalg::BatchMatmulOp::create(rewriter, loc, ValueRange{w3, col3}, init3)
          .getResult(0);
  Value product5 = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get({g, f, n, oh, ow}, outElem), product,
      SmallVector<ReassociationIndices>{{0}, {1}, {2, 3, 4}});
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, outType.getShape(), outElem);
  rewriter.replaceOp(conv, linalg::TransposeOp::create(rewriter, loc, product5,
                                                       empty, {2, 0, 1, 3, 4})
                               .getResult()[0]);
  return success();
}

/// `init` with a unit dimension inserted by `groups` (an expand_shape to
/// `shape`); a fill is made anew in that shape, so that the rewrites still
/// see a fill (and start the product from it instead of reading C).
static Value expandInit(OpBuilder &b, Location loc, Value init,
                        ArrayRef<int64_t> shape,
                        ArrayRef<ReassociationIndices> groups) {
  Type elem = getElementTypeOrSelf(init.getType());
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    Value empty = tensor::EmptyOp::create(b, loc, shape, elem);
    return linalg::FillOp::create(b, loc, fill.getInputs()[0], empty)
        .getResult(0);
  }
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, elem), init, groups);
}

/// A static 1-D NCW convolution as the 2-D NCHW one on rows of height 1
/// (x [N, C, 1, W], w [F, C, 1, K], stride and dilation 1 in height), which
/// rewriteFolded then takes with everything it does for 2-D convolutions
/// (the by-position weight gradient, a flipped filter, parallel taps):
/// Conv1d's sequence and audio models (a speech model's feature encoder).
/// The sums are the 1-D convolution's, in the same order.
static linalg::Conv2DNchwFchwOp liftConv1D(RewriterBase &rewriter,
                                           linalg::Conv1DNcwFcwOp conv) {
  Location loc = conv.getLoc();
  SmallVector<ReassociationIndices> groups{{0}, {1}, {2, 3}};
  auto lifted = [&](Value v) {
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape{type.getDimSize(0), type.getDimSize(1), 1,
                               type.getDimSize(2)};
    return std::make_pair(shape, type.getElementType());
  };
  auto expand = [&](Value v) -> Value {
    auto [shape, elem] = lifted(v);
    return tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(shape, elem), v, groups);
  };
  rewriter.setInsertionPoint(conv);
  Value x = expand(conv.getInputs()[0]), w = expand(conv.getInputs()[1]);
  auto [outShape, outElem] = lifted(conv.getOutputs()[0]);
  Value init =
      expandInit(rewriter, loc, conv.getOutputs()[0], outShape, groups);
  auto pair = [&](DenseIntElementsAttr attr) {
    return rewriter.getI64VectorAttr({1, *attr.getValues<int64_t>().begin()});
  };
  auto lifted2d = linalg::Conv2DNchwFchwOp::create(
      rewriter, loc, TypeRange{init.getType()}, ValueRange{x, w},
      ValueRange{init}, pair(conv.getStrides()), pair(conv.getDilations()));
  Value result = tensor::CollapseShapeOp::create(rewriter, loc,
                                                 conv.getResult(0).getType(),
                                                 lifted2d.getResult(0), groups);
  rewriter.replaceOp(conv, result);
  return lifted2d;
}

/// The product [F, N, OD, OH, OW] of a 3-D convolution with fewer output
/// positions than taps (a weight gradient's), as productByPosition for 2-D
/// ones: colT[(n, od, oh, ow), (c, kd, kh, kw)] filled one output position at
/// a time by a copy of the window x[:, :, od*sd + kd*dd, ...] (runs of KW),
/// outT = colT . w2^T, moved to [F, P]. The sums are the tap gather's, in
/// the same order.
static Value productByPosition3D(RewriterBase &rewriter, Location loc, Value x,
                                 Value w, Value init, int64_t n, int64_t c,
                                 int64_t f, ArrayRef<int64_t> kernel,
                                 ArrayRef<int64_t> outSpatial,
                                 ArrayRef<int64_t> strides,
                                 ArrayRef<int64_t> dilations, Type outElem) {
  Type xElem = getElementTypeOrSelf(x.getType());
  Type wElem = getElementTypeOrSelf(w.getType());
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<int64_t> colTShape{n};
  llvm::append_range(colTShape, outSpatial);
  colTShape.push_back(c);
  llvm::append_range(colTShape, kernel);
  Value colT = tensor::EmptyOp::create(rewriter, loc, colTShape, xElem);
  SmallVector<int64_t> windowShape{n, c};
  llvm::append_range(windowShape, kernel);
  auto windowType = RankedTensorType::get(windowShape, xElem);
  SmallVector<int64_t> colSizesInt{n, 1, 1, 1, c};
  llvm::append_range(colSizesInt, kernel);
  SmallVector<OpFoldResult> colSizes = getAsIndexOpFoldResult(ctx, colSizesInt);
  SmallVector<OpFoldResult> unitStrides(8, rewriter.getIndexAttr(1));
  SmallVector<int64_t> xStridesInt{1, 1};
  llvm::append_range(xStridesInt, dilations);
  auto copyWindow = [&](OpBuilder &b, Location, ValueRange pos,
                        ValueRange iterArgs) -> scf::ValueVector {
    SmallVector<OpFoldResult> xOffsets(2, b.getIndexAttr(0));
    for (auto [p, stride] : llvm::zip(pos, strides))
      xOffsets.push_back(scaledIndex(b, loc, p, stride));
    Value window = tensor::ExtractSliceOp::create(
        b, loc, x, xOffsets, getAsIndexOpFoldResult(ctx, windowShape),
        getAsIndexOpFoldResult(ctx, xStridesInt));
    SmallVector<OpFoldResult> colOffsets{b.getIndexAttr(0)};
    llvm::append_range(colOffsets, getAsOpFoldResult(pos));
    colOffsets.append(4, b.getIndexAttr(0));
    Value dest = tensor::ExtractSliceOp::create(
        b, loc, windowType, iterArgs[0], colOffsets, colSizes, unitStrides);
    Value copied = linalg::CopyOp::create(b, loc, window, dest).getResult(0);
    return {tensor::InsertSliceOp::create(b, loc, copied, iterArgs[0],
                                          colOffsets, colSizes, unitStrides)};
  };
  colT = fillByPositions(rewriter, loc, outSpatial, colT, copyWindow);
  int64_t k = c * kernel[0] * kernel[1] * kernel[2];
  int64_t p = n * outSpatial[0] * outSpatial[1] * outSpatial[2];
  Value colT2 = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({p, k}, xElem), colT,
      SmallVector<ReassociationIndices>{{0, 1, 2, 3}, {4, 5, 6, 7}});
  Value w2 = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({f, k}, wElem), w,
      SmallVector<ReassociationIndices>{{0}, {1, 2, 3, 4}});
  Value w2T = linalg::TransposeOp::create(
                  rewriter, loc, w2,
                  tensor::EmptyOp::create(rewriter, loc, {k, f}, wElem), {1, 0})
                  .getResult()[0];
  Value initT =
      initInLayout(rewriter, loc, init, {0, 2, 3, 4, 1}, {{0, 1, 2, 3}, {4}});
  Value productT =
      linalg::MatmulOp::create(rewriter, loc, ValueRange{colT2, w2T}, initT)
          .getResult(0);
  Value product =
      linalg::TransposeOp::create(
          rewriter, loc, productT,
          tensor::EmptyOp::create(rewriter, loc, {f, p}, outElem), {1, 0})
          .getResult()[0];
  SmallVector<int64_t> product5Shape{f, n};
  llvm::append_range(product5Shape, outSpatial);
  return tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get(product5Shape, outElem), product,
      SmallVector<ReassociationIndices>{{0}, {1, 2, 3, 4}});
}

/// Rewrites a static 3-D NCDHW convolution (3-D U-Nets, video models) into
/// im2col + ONE matmul as rewriteFolded does for 2-D ones:
///
///   col[(c, kd, kh, kw), (n, od, oh, ow)]
///       = x[n, c, od*sd + kd*dd, oh*sh + kh*dh, ow*sw + kw*dw]
///   out2[f, (n, od, oh, ow)] = w[f, (c, kd, kh, kw)] . col
///
/// col filled tap by tap (an scf.for nest over kd, kh, kw), each tap a
/// strided slice of x transposed (N, C) -> (C, N). The sums run over (c, kd,
/// kh, kw) in the convolution loops' order. A weight gradient's shape goes
/// by position (productByPosition3D); the flipped-filter reads of
/// rewriteFolded are 2-D only.
static LogicalResult rewriteFolded3D(RewriterBase &rewriter,
                                     linalg::Conv3DNcdhwFcdhwOp conv) {
  if (!hasStaticOperands(conv))
    return failure();
  auto xType = cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto wType = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto outType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  int64_t n = xType.getDimSize(0), c = xType.getDimSize(1);
  int64_t f = wType.getDimSize(0);
  SmallVector<int64_t> kernel(wType.getShape().drop_front(2));
  SmallVector<int64_t> outSpatial(outType.getShape().drop_front(2));
  SmallVector<int64_t> strides(conv.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dilations(conv.getDilations().getValues<int64_t>());
  Location loc = conv.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  Type xElem = xType.getElementType(), outElem = outType.getElementType();
  rewriter.setInsertionPoint(conv);
  auto productByTaps = [&]() -> Value {
    // col as [C, KD, KH, KW, N, OD, OH, OW].
    SmallVector<int64_t> colShape{c};
    llvm::append_range(colShape, kernel);
    colShape.push_back(n);
    llvm::append_range(colShape, outSpatial);
    Value col = tensor::EmptyOp::create(rewriter, loc, colShape, xElem);
    SmallVector<int64_t> tapShape{c, n};
    llvm::append_range(tapShape, outSpatial);
    auto tapType = RankedTensorType::get(tapShape, xElem);
    SmallVector<int64_t> colSizesInt{c, 1, 1, 1, n};
    llvm::append_range(colSizesInt, outSpatial);
    SmallVector<OpFoldResult> colSizes =
        getAsIndexOpFoldResult(ctx, colSizesInt);
    SmallVector<OpFoldResult> unitStrides(8, rewriter.getIndexAttr(1));
    SmallVector<int64_t> xSizesInt{n, c};
    llvm::append_range(xSizesInt, outSpatial);
    SmallVector<int64_t> xStridesInt{1, 1};
    llvm::append_range(xStridesInt, strides);
    auto gatherTap = [&](OpBuilder &b, Location, ValueRange taps,
                         ValueRange iterArgs) -> scf::ValueVector {
      SmallVector<OpFoldResult> xOffsets(2, b.getIndexAttr(0));
      for (auto [tap, dilation] : llvm::zip(taps, dilations))
        xOffsets.push_back(scaledIndex(b, loc, tap, dilation));
      Value slice = tensor::ExtractSliceOp::create(
          b, loc, conv.getInputs()[0], xOffsets,
          getAsIndexOpFoldResult(ctx, xSizesInt),
          getAsIndexOpFoldResult(ctx, xStridesInt));
      SmallVector<OpFoldResult> colOffsets{b.getIndexAttr(0)};
      llvm::append_range(colOffsets, getAsOpFoldResult(taps));
      colOffsets.append(4, b.getIndexAttr(0));
      Value dest = tensor::ExtractSliceOp::create(
          b, loc, tapType, iterArgs[0], colOffsets, colSizes, unitStrides);
      Value moved =
          linalg::TransposeOp::create(b, loc, slice, dest, swapFirstTwoDims(5))
              .getResult()[0];
      return {tensor::InsertSliceOp::create(b, loc, moved, iterArgs[0],
                                            colOffsets, colSizes, unitStrides)};
    };
    col = fillByPositions(rewriter, loc, kernel, col, gatherTap);
    int64_t k = c * kernel[0] * kernel[1] * kernel[2];
    int64_t p = n * outSpatial[0] * outSpatial[1] * outSpatial[2];
    Value col2 = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({k, p}, xElem), col,
        SmallVector<ReassociationIndices>{{0, 1, 2, 3}, {4, 5, 6, 7}});
    Value w2 = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({f, k}, wType.getElementType()),
        conv.getInputs()[1],
        SmallVector<ReassociationIndices>{{0}, {1, 2, 3, 4}});
    Value init = initInLayout(rewriter, loc, conv.getOutputs()[0],
                              swapFirstTwoDims(5), {{0}, {1, 2, 3, 4}});
    Value product =
        linalg::MatmulOp::create(rewriter, loc, ValueRange{w2, col2}, init)
            .getResult(0);
    SmallVector<int64_t> product5Shape{f, n};
    llvm::append_range(product5Shape, outSpatial);
    return tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(product5Shape, outElem), product,
        SmallVector<ReassociationIndices>{{0}, {1, 2, 3, 4}});
  };
  // By output position where that gathers longer runs in fewer copies (a
  // weight gradient's shape: rewriteFolded's condition).
  int64_t positions = outSpatial[0] * outSpatial[1] * outSpatial[2];
  int64_t taps = kernel[0] * kernel[1] * kernel[2];
  Value product5 =
      positions < taps && kernel[2] > outSpatial[2] && n * positions > f
          ? productByPosition3D(rewriter, loc, conv.getInputs()[0],
                                conv.getInputs()[1], conv.getOutputs()[0], n, c,
                                f, kernel, outSpatial, strides, dilations,
                                outElem)
          : productByTaps();
  // A weight gradient written as a convolution is transposed back by its
  // user (rewriteFolded's replaceByProduct).
  if (succeeded(foldTransposeBack(rewriter, conv, product5)))
    return success();
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, outType.getShape(), outElem);
  rewriter.replaceOp(conv,
                     linalg::TransposeOp::create(rewriter, loc, product5, empty,
                                                 swapFirstTwoDims(5))
                         .getResult()[0]);
  return success();
}

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
      if (isa<linalg::Conv2DNchwFchwOp, linalg::Conv2DNhwcHwcfOp,
              linalg::Conv2DNgchwGfchwOp, linalg::Conv1DNcwFcwOp,
              linalg::Conv3DNcdhwFcdhwOp>(op.getOperation()) &&
          wanted(op))
        convs.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : convs) {
      if (auto conv3d =
              dyn_cast<linalg::Conv3DNcdhwFcdhwOp>(op.getOperation())) {
        Operation *init = conv3d.getOutputs()[0].getDefiningOp();
        if (succeeded(rewriteFolded3D(rewriter, conv3d)) &&
            isa_and_nonnull<linalg::FillOp>(init) && init->use_empty())
          rewriter.eraseOp(init);
        continue;
      }
      if (auto conv1d = dyn_cast<linalg::Conv1DNcwFcwOp>(op.getOperation())) {
        if (!hasStaticOperands(conv1d))
          continue;
        Operation *init = conv1d.getOutputs()[0].getDefiningOp();
        op = liftConv1D(rewriter, conv1d);
        if (isa_and_nonnull<linalg::FillOp>(init) && init->use_empty())
          rewriter.eraseOp(init);
      }
      rewriter.setInsertionPoint(op);
      // A convolution neither rewrite supports (upstream's says why in its
      // match failure) stays a convolution: loops, as before.
      if (auto nchw = dyn_cast<linalg::Conv2DNchwFchwOp>(op.getOperation())) {
        Operation *input = nchw.getInputs()[0].getDefiningOp();
        Operation *init = nchw.getOutputs()[0].getDefiningOp();
        Operation *filter = nchw.getInputs()[1].getDefiningOp();
        if (failed(rewriteFolded(rewriter, nchw, parallel))) {
          (void)linalg::rewriteInIm2Col(rewriter, nchw);
          continue;
        }
        // The convolution's zero fill, a flipped filter and a swapped input
        // it no longer reads would still be computed once bufferized (a
        // write into a buffer is not dead code to the canonicalizer).
        for (Operation *producer : {init, filter})
          if (isa_and_nonnull<linalg::FillOp, linalg::GenericOp>(producer) &&
              producer->use_empty())
            rewriter.eraseOp(producer);
        while (isa_and_nonnull<tensor::PadOp, linalg::TransposeOp>(input) &&
               input->use_empty()) {
          Operation *next = input->getOperand(0).getDefiningOp();
          rewriter.eraseOp(input);
          input = next;
        }
      } else if (auto grouped =
                     dyn_cast<linalg::Conv2DNgchwGfchwOp>(op.getOperation())) {
        Operation *init = grouped.getOutputs()[0].getDefiningOp();
        if (succeeded(rewriteGrouped(rewriter, grouped)) &&
            isa_and_nonnull<linalg::FillOp>(init) && init->use_empty())
          rewriter.eraseOp(init);
      } else {
        (void)linalg::rewriteInIm2Col(
            rewriter, cast<linalg::Conv2DNhwcHwcfOp>(op.getOperation()));
      }
    }
  }
};

} // namespace
