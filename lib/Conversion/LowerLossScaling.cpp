//===- LowerLossScaling.cpp - --mpt-lower-loss-scaling --------------------===//
//
// Lowers the mpt loss-scaling ops to linalg / arith / tensor with the
// semantics of PyTorch's GradScaler (docs/LossScaling.md).
//
//===----------------------------------------------------------------------===//
#include "mpt/Conversion/Passes.h"
#include "mpt/IR/MPTOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/FoldUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/APFloat.h"

namespace mpt {
#define GEN_PASS_DEF_LOWERLOSSSCALING
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
/// Loss-scaling arithmetic runs in FP32, or in the element type when that is
/// wider (f64 gradients are not narrowed).
FloatType getComputeType(FloatType elementType) {
  if (elementType.getWidth() >= 32)
    return elementType;
  return Float32Type::get(elementType.getContext());
}

/// Converts a float scalar to `to` (extf or truncf, round to nearest even).
Value convertFloat(OpBuilder &b, Location loc, Value value, FloatType to) {
  auto from = cast<FloatType>(value.getType());
  if (from == to)
    return value;
  if (from.getWidth() < to.getWidth())
    return arith::ExtFOp::create(b, loc, to, value);
  return arith::TruncFOp::create(b, loc, to, value);
}

Value extractScalar(OpBuilder &b, Location loc, Value zeroDTensor) {
  return tensor::ExtractOp::create(b, loc, zeroDTensor, ValueRange{});
}

/// `tensor * factor` elementwise, with `factor` an f32 scalar: computed in the
/// compute type, rounded to the tensor's element type.
Value multiplyByScalar(OpBuilder &b, Location loc, Value tensor,
                       Value factorF32) {
  auto type = cast<RankedTensorType>(tensor.getType());
  auto elementType = cast<FloatType>(type.getElementType());
  FloatType computeType = getComputeType(elementType);
  Value factor = convertFloat(b, loc, factorF32, computeType);
  Value init = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, tensor), elementType);
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange{tensor}, ValueRange{init},
      ArrayRef<AffineMap>{identity, identity}, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value x = convertFloat(nb, nloc, args[0], computeType);
        Value product = arith::MulFOp::create(nb, nloc, x, factor);
        linalg::YieldOp::create(nb, nloc,
                                convertFloat(nb, nloc, product, elementType));
      });
  return generic.getResult(0);
}

/// `flag | any(!isfinite(tensor))` as a reduction into the 0-d `flag`.
Value accumulateNonFinite(OpBuilder &b, Location loc, Value tensor,
                          Value flag) {
  auto type = cast<RankedTensorType>(tensor.getType());
  auto elementType = cast<FloatType>(type.getElementType());
  const llvm::fltSemantics &semantics = elementType.getFloatSemantics();
  MLIRContext *ctx = b.getContext();
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  AffineMap toScalar = AffineMap::get(type.getRank(), 0, ctx);
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{flag.getType()}, ValueRange{tensor}, ValueRange{flag},
      ArrayRef<AffineMap>{identity, toScalar}, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value x = args[0];
        // NaN is unordered with everything (uno x, x); ±inf compare equal to
        // themselves. Formats without infinities only have NaN to check.
        Value nonFinite =
            arith::CmpFOp::create(nb, nloc, arith::CmpFPredicate::UNO, x, x);
        if (llvm::APFloat::semanticsHasInf(semantics)) {
          auto inf = [&](bool negative) {
            return arith::ConstantOp::create(
                nb, nloc,
                nb.getFloatAttr(elementType,
                                llvm::APFloat::getInf(semantics, negative)));
          };
          Value isPosInf = arith::CmpFOp::create(
              nb, nloc, arith::CmpFPredicate::OEQ, x, inf(false));
          Value isNegInf = arith::CmpFOp::create(
              nb, nloc, arith::CmpFPredicate::OEQ, x, inf(true));
          nonFinite = arith::OrIOp::create(nb, nloc, nonFinite, isPosInf);
          nonFinite = arith::OrIOp::create(nb, nloc, nonFinite, isNegInf);
        }
        Value acc = arith::OrIOp::create(nb, nloc, args[1], nonFinite);
        linalg::YieldOp::create(nb, nloc, acc);
      });
  return generic.getResult(0);
}

/// mpt.scale %x by %s -> x * s elementwise.
struct LowerScale : OpRewritePattern<ScaleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScaleOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value scale = extractScalar(rewriter, loc, op.getScale());
    rewriter.replaceOp(op,
                       multiplyByScalar(rewriter, loc, op.getInput(), scale));
    return success();
  }
};

/// mpt.unscale_and_check -> inv = f32(1 / f64(scale)); g * inv per gradient;
/// a non-finite flag reduced per unscaled gradient, the flags or-ed.
struct LowerUnscaleAndCheck : OpRewritePattern<UnscaleAndCheckOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(UnscaleAndCheckOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto f64 = Float64Type::get(rewriter.getContext());
    auto f32 = Float32Type::get(rewriter.getContext());
    Value scale = extractScalar(rewriter, loc, op.getScale());
    Value scale64 = arith::ExtFOp::create(rewriter, loc, f64, scale);
    Value one64 =
        arith::ConstantOp::create(rewriter, loc, rewriter.getF64FloatAttr(1.0));
    Value inverse64 = arith::DivFOp::create(rewriter, loc, one64, scale64);
    Value inverse = arith::TruncFOp::create(rewriter, loc, f32, inverse64);

    auto flagType = cast<RankedTensorType>(op.getFoundInf().getType());
    Value noneFound =
        arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(false));
    // Each gradient reduces into a flag of its own, and the flags are or-ed
    // as scalars: threading one flag tensor through all reductions would make
    // every reduction alias all earlier ones, and one-shot bufferization's
    // analysis is cubic in the size of such an alias set (docs/CompileTime.md).
    Value found = noneFound;
    SmallVector<Value> results;
    for (Value grad : op.getGradients()) {
      Value unscaled = multiplyByScalar(rewriter, loc, grad, inverse);
      Value flagInit = tensor::EmptyOp::create(
          rewriter, loc, flagType.getShape(), flagType.getElementType());
      Value none = linalg::FillOp::create(rewriter, loc, noneFound, flagInit)
                       .getResult(0);
      Value flag = accumulateNonFinite(rewriter, loc, unscaled, none);
      found = arith::OrIOp::create(rewriter, loc, found,
                                   extractScalar(rewriter, loc, flag));
      results.push_back(unscaled);
    }
    results.push_back(
        tensor::FromElementsOp::create(rewriter, loc, flagType, found));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// mpt.update_scale -> GradScaler's _amp_update_scale_ on scalars.
struct LowerUpdateScale : OpRewritePattern<UpdateScaleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(UpdateScaleOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto constF32 = [&](float v) -> Value {
      return arith::ConstantOp::create(rewriter, loc,
                                       rewriter.getF32FloatAttr(v));
    };
    auto constI32 = [&](int32_t v) -> Value {
      return arith::ConstantOp::create(rewriter, loc,
                                       rewriter.getI32IntegerAttr(v));
    };
    Value scale = extractScalar(rewriter, loc, op.getScale());
    Value tracker = extractScalar(rewriter, loc, op.getTracker());
    Value foundInf = extractScalar(rewriter, loc, op.getFoundInf());

    // Overflow: back off (not below min_scale when one is set).
    Value backedOff = arith::MulFOp::create(
        rewriter, loc, scale, constF32(op.getBackoffFactor().convertToFloat()));
    float minScale = op.getMinScale().convertToFloat();
    if (minScale > 0.0f)
      backedOff = arith::MaximumFOp::create(rewriter, loc, backedOff,
                                            constF32(minScale));

    // Clean step: count it; at growth_interval grow unless the grown scale
    // is not finite (it stays), and restart the count either way.
    Value grown = arith::MulFOp::create(
        rewriter, loc, scale, constF32(op.getGrowthFactor().convertToFloat()));
    Value grownIsFinite =
        arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OLT, grown,
                              constF32(std::numeric_limits<float>::infinity()));
    Value grownOrKept =
        arith::SelectOp::create(rewriter, loc, grownIsFinite, grown, scale);
    Value counted = arith::AddIOp::create(rewriter, loc, tracker, constI32(1));
    Value intervalReached = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::sge, counted,
        constI32(static_cast<int32_t>(op.getGrowthInterval())));
    Value cleanScale = arith::SelectOp::create(rewriter, loc, intervalReached,
                                               grownOrKept, scale);
    Value cleanTracker = arith::SelectOp::create(rewriter, loc, intervalReached,
                                                 constI32(0), counted);

    Value newScale =
        arith::SelectOp::create(rewriter, loc, foundInf, backedOff, cleanScale);
    Value newTracker = arith::SelectOp::create(rewriter, loc, foundInf,
                                               constI32(0), cleanTracker);
    rewriter.replaceOp(
        op, {tensor::FromElementsOp::create(
                 rewriter, loc, op.getNewScale().getType(), newScale),
             tensor::FromElementsOp::create(
                 rewriter, loc, op.getNewTracker().getType(), newTracker)});
    return success();
  }
};

/// mpt.guard_update %new, %old if %f -> arith.select %f, %old, %new: whole
/// tensors, so the skipped step returns its input bit for bit.
struct LowerGuardUpdate : OpRewritePattern<GuardUpdateOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GuardUpdateOp op,
                                PatternRewriter &rewriter) const override {
    Value foundInf = extractScalar(rewriter, op.getLoc(), op.getFoundInf());
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, foundInf, op.getOriginal(),
                                                 op.getUpdated());
    return success();
  }
};

/// The constant uniquing that starts every sweep of the greedy driver
/// (RegionPatternRewriteDriver::simplify): the constants of `region`, in
/// post-order, each kept (and hoisted to the front of its insertion region
/// when not there yet) or replaced by an earlier equal one. Adds the ops that
/// read a replaced constant to `readers`.
static void uniqueConstants(Region &region,
                            llvm::SetVector<Operation *> &readers) {
  OperationFolder folder(region.getContext());
  region.walk([&](Operation *op) {
    Attribute value;
    if (!matchPattern(op, m_Constant(&value)))
      return;
    SmallVector<Operation *> users(op->getUsers());
    if (!folder.insertKnownConstant(op, value))
      readers.insert(users.begin(), users.end());
  });
}

/// The ops the greedy driver changed in place. It puts a changed op back on
/// its worklist, but not the ops that read it, whose folds may see the
/// change: the pass drives those afterwards.
struct ChangedInPlace : RewriterBase::Listener {
  void notifyOperationModified(Operation *op) override { ops.insert(op); }
  void notifyOperationErased(Operation *op) override {
    op->walk([&](Operation *nested) { ops.remove(nested); });
  }
  llvm::SetVector<Operation *> ops;
};

struct LowerLossScalingPass
    : public mpt::impl::LowerLossScalingBase<LowerLossScalingPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateLowerLossScalingPatterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    // Only the loss-scaling ops and what their lowering creates are driven:
    // folding or simplifying the rest of the step is not this pass's job, and
    // a whole-step sweep was most of its time (it grew faster than the step).
    SmallVector<Operation *> lossScalingOps;
    getOperation()->walk([&](Operation *op) {
      if (isa<ScaleOp, UnscaleAndCheckOp, UpdateScaleOp, GuardUpdateOp>(op))
        lossScalingOps.push_back(op);
    });
    if (lossScalingOps.empty())
      return markAllAnalysesPreserved();
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    ChangedInPlace changedInPlace;
    config.setListener(&changedInPlace);
    if (failed(applyOpPatternsGreedily(lossScalingOps, frozen, config)))
      return signalPassFailure();
    // The constants the lowering created, in the bodies of its generics too,
    // uniqued with the step's and hoisted to the front of the function, as
    // the driver does for the region it simplifies; then the ops that read
    // a replaced constant or an op folded in place, which may fold now.
    llvm::SetVector<Operation *> readers;
    for (Operation *op : changedInPlace.ops)
      readers.insert(op->user_begin(), op->user_end());
    for (Region &region : getOperation()->getRegions())
      uniqueConstants(region, readers);
    if (readers.empty())
      return;
    config.setListener(nullptr);
    if (failed(applyOpPatternsGreedily(readers.takeVector(), frozen, config)))
      return signalPassFailure();
  }
};
} // namespace

void mpt::populateLowerLossScalingPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerScale, LowerUnscaleAndCheck, LowerUpdateScale,
               LowerGuardUpdate>(patterns.getContext());
}
