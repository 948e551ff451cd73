//===- AutocastFp8.cpp - FP8 contractions with delayed scaling ------------===//
//
// `--mpt-autocast="dtype=fp8"` (docs/FP8.md): after the bf16 plan is
// applied, each contraction it put in bf16 reads FP8 operands. Per tensor,
// Transformer Engine's delayed scaling: the operand x is cast as
// f8(clamp(x * scale, -fp8_max, fp8_max)) with the scale of earlier steps,
// the contraction accumulates in f32 and its result is divided by the
// product of its operands' scales, and this step's amax = max |x| enters an
// amax history from which the next scale is computed,
//   scale' = (fp8_max / amax) / 2^margin  (kept when amax is 0 or not finite),
// after which the history rolls by one step. History and scales are step
// state, appended to the signature like the dynamic loss scale. With
// `fp8-scaling=current` each scale comes from the tensor's own amax in the
// same step instead, and the step carries no state.
//
//===----------------------------------------------------------------------===//
#include "mpt/IR/MPTDialect.h"
#include "mpt/IR/TrainingContract.h"
#include "mpt/Transforms/Autocast.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include <cmath>

using namespace mlir;
using namespace mpt;

FailureOr<Fp8Options> Fp8Options::get(MLIRContext *context,
                                      const AutocastOptions &passOptions) {
  Location loc = UnknownLoc::get(context);
  int64_t amaxHistoryLen = passOptions.amaxHistoryLen;
  int64_t margin = passOptions.margin;
  // Bounded so that the state stays a small fraction of any step (L x N
  // floats) and a typo does not allocate gigabytes.
  if (amaxHistoryLen < 1 || amaxHistoryLen > (1 << 20))
    return emitError(loc) << "amax-history-len must be between 1 and "
                          << (1 << 20) << ", got " << amaxHistoryLen,
           failure();
  // 2^margin must stay a normal f32 number.
  if (margin < 0 || margin > 64)
    return emitError(loc) << "margin must be between 0 and 64, got "
                          << margin,
           failure();
  Fp8Options options;
  options.hybrid = passOptions.fp8Format == Fp8Format::Hybrid;
  options.mostRecent = passOptions.amaxCompute == AmaxCompute::MostRecent;
  options.currentScaling = passOptions.fp8Scaling == Fp8Scaling::Current;
  options.amaxHistoryLen = amaxHistoryLen;
  options.margin = margin;
  return options;
}

static bool isStaticFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() &&
         isa<FloatType>(tensor.getElementType());
}

SmallVector<Operation *> mpt::getFp8Contractions(const PrecisionPlan &plan) {
  SmallVector<Operation *> found;
  for (Operation *op : plan.getOps()) {
    const OpDecision &decision = plan.getDecision(op);
    if (decision.opClass != OpClass::Allow || !plan.isLow(op))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    // Per-tensor scales factor out of a product of two tensors; the scale
    // state lives at the step's top level, so the op must be there too.
    if (!linalgOp || linalgOp.getNumDpsInputs() != 2 ||
        linalgOp.getNumDpsInits() != 1 ||
        !isa<FunctionOpInterface>(op->getParentOp()) ||
        !(linalg::isaContractionOpInterface(linalgOp) ||
          linalg::isaConvolutionOpInterface(linalgOp)))
      continue;
    if (!llvm::all_of(op->getOperandTypes(), isStaticFloatTensor) ||
        !llvm::all_of(op->getResultTypes(), isStaticFloatTensor))
      continue;
    // The scaled rewrites accumulate in f32 (the plan's low ops have f32
    // results): a contraction written with a 16-bit accumulator, in a step
    // that came in bf16, keeps it.
    if (!getElementTypeOrSelf(op->getResult(0).getType()).isF32())
      continue;
    found.push_back(op);
  }
  return found;
}

namespace {
/// One FP8 tensor: a value cast to one FP8 format, with its state index.
struct Fp8Tensor {
  Value source;
  FloatType format;
  unsigned index;
  Value quantized, scale, amax;
};

class Fp8Rewriter {
public:
  Fp8Rewriter(FunctionOpInterface func, const Fp8Options &options)
      : func(func), options(options), builder(func->getContext()),
        f32(Float32Type::get(func->getContext())) {}

  LogicalResult run(ArrayRef<Operation *> contractions, Value seed);

private:
  /// Values that depend on the backward seed: the gradients.
  void collectGradients(Value seed);
  /// The value autocast cast to bf16 for `operand`, when it did so from
  /// f32: quantizing that value avoids rounding twice.
  static Value getSource(Value operand) {
    if (auto transpose = getTranspose(operand))
      operand = transpose.getInput();
    if (auto trunc = operand.getDefiningOp<arith::TruncFOp>())
      if (getElementTypeOrSelf(trunc.getIn().getType()).isF32())
        return trunc.getIn();
    return operand;
  }
  /// An operand that is a transpose (the W^T of dX = dY W^T, the X^T of
  /// dW = X^T dY) reads the FP8 tensor of the transposed value, transposed,
  /// with its scale, as Transformer Engine reuses the forward's FP8 tensor.
  static linalg::TransposeOp getTranspose(Value operand) {
    auto transpose = operand.getDefiningOp<linalg::TransposeOp>();
    if (transpose && transpose->getNumResults() == 1)
      return transpose;
    return {};
  }
  FloatType getFormat(Value source) {
    MLIRContext *context = func->getContext();
    if (options.hybrid && gradients.contains(source))
      return Float8E5M2Type::get(context);
    return Float8E4M3FNType::get(context);
  }
  static double getMax(FloatType format) {
    return APFloat::getLargest(format.getFloatSemantics()).convertToDouble();
  }
  Value constantF32(Location loc, double value) {
    return arith::ConstantOp::create(builder, loc,
                                     builder.getF32FloatAttr(value));
  }
  Value toF32(OpBuilder &b, Location loc, Value value) {
    return value.getType() == f32 ? value
                                  : arith::ExtFOp::create(b, loc, f32, value);
  }
  Value zeros(Location loc, RankedTensorType type, double value = 0.0) {
    Value empty = tensor::EmptyOp::create(builder, loc, type.getShape(),
                                          type.getElementType());
    return linalg::FillOp::create(builder, loc, constantF32(loc, value), empty)
        .getResult(0);
  }
  void setInsertionAfterDefinition(Value value) {
    if (Operation *def = value.getDefiningOp())
      builder.setInsertionPointAfter(def);
    else
      builder.setInsertionPointToStart(cast<BlockArgument>(value).getOwner());
  }
  /// The cast, scale and amax of `t`, right after its source is defined.
  void quantize(Fp8Tensor &t);
  /// Gives `op` its FP8 operands and divides its result by their scales.
  void rewriteContraction(Operation *op);
  /// The next amax history and scales, returned as new results.
  void updateState(Operation *ret);

  FunctionOpInterface func;
  const Fp8Options &options;
  OpBuilder builder;
  Type f32;
  llvm::DenseSet<Value> gradients;
  /// The FP8 tensors by (source, format), in order of first use.
  llvm::MapVector<std::pair<Value, Type>, Fp8Tensor> tensors;
  /// Each contraction operand's key in `tensors`, taken before any rewrite:
  /// a contraction's result that another contraction reads (a forward
  /// activation in a weight gradient) is replaced by its descaled value
  /// when the first is rewritten.
  llvm::DenseMap<OpOperand *, std::pair<Value, Type>> operandKeys;
  /// The transposes of bf16 copies FP8 transposes replaced: erased when
  /// nothing else reads them.
  llvm::SetVector<Operation *> replacedTransposes;
  Value history, scales;
};
} // namespace

void Fp8Rewriter::collectGradients(Value seed) {
  gradients = collectSeedDependents(func, seed);
}

void Fp8Rewriter::quantize(Fp8Tensor &t) {
  OpBuilder::InsertionGuard guard(builder);
  setInsertionAfterDefinition(t.source);
  Location loc = t.source.getLoc();
  auto type = cast<RankedTensorType>(t.source.getType());
  int64_t rank = type.getRank();
  MLIRContext *context = builder.getContext();

  // amax = max |x| (a NaN element is skipped, as by fmaxf in Transformer
  // Engine's amax kernels).
  auto computeAmax = [&] {
    RankedTensorType scalarType = RankedTensorType::get({}, f32);
    Value init = zeros(loc, scalarType);
    AffineMap identity = builder.getMultiDimIdentityMap(rank);
    SmallVector<utils::IteratorType> reduction(
        rank, utils::IteratorType::reduction);
    Value amax =
        linalg::GenericOp::create(
            builder, loc, TypeRange{scalarType}, ValueRange{t.source},
            ValueRange{init},
            ArrayRef<AffineMap>{identity, AffineMap::get(rank, 0, context)},
            reduction,
            [&](OpBuilder &b, Location l, ValueRange args) {
              // |x| by clearing the sign (fabs): max(x, -x) gives -0 for a
              // zero where maximumf is expanded into a compare and select
              // (the generic CPU path), and the history then holds -0.
              Value x = math::AbsFOp::create(b, l, toF32(b, l, args[0]));
              linalg::YieldOp::create(
                  b, l,
                  ValueRange{arith::MaxNumFOp::create(b, l, args[1], x)});
            })
            .getResult(0);
    t.amax = tensor::ExtractOp::create(builder, loc, amax, ValueRange{});
  };

  double max = getMax(t.format);
  if (options.currentScaling) {
    // Current scaling: this step's amax of the tensor, before its cast;
    // scale = (fp8_max / amax) / 2^margin, 1 where amax is 0 or not finite,
    // and at most the largest f32 (an amax so small that the quotient
    // overflows), as Transformer Engine's compute_scale_from_amax.
    computeAmax();
    Value sf = arith::DivFOp::create(builder, loc, constantF32(loc, max),
                                     t.amax);
    sf = arith::DivFOp::create(builder, loc, sf,
                               constantF32(loc, std::ldexp(1.0, options.margin)));
    sf = arith::MinimumFOp::create(
        builder, loc, sf,
        constantF32(loc, APFloat::getLargest(APFloat::IEEEsingle())
                             .convertToDouble()));
    Value positive = arith::CmpFOp::create(
        builder, loc, arith::CmpFPredicate::OGT, t.amax, constantF32(loc, 0));
    Value finite = arith::CmpFOp::create(builder, loc,
                                         arith::CmpFPredicate::OLT, t.amax,
                                         constantF32(loc, INFINITY));
    Value ok = arith::AndIOp::create(builder, loc, positive, finite);
    t.scale = arith::SelectOp::create(builder, loc, ok, sf,
                                      constantF32(loc, 1.0));
  } else {
    Value index = arith::ConstantIndexOp::create(builder, loc, t.index);
    t.scale = tensor::ExtractOp::create(builder, loc, scales, index);
  }

  // f8(clamp(x * scale)): saturate, as Transformer Engine's casts do
  // (E4M3FN has no infinity; a NaN stays NaN).
  Value hi = constantF32(loc, max), lo = constantF32(loc, -max);
  AffineMap identity = builder.getMultiDimIdentityMap(rank);
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  Value empty =
      tensor::EmptyOp::create(builder, loc, type.getShape(), t.format);
  t.quantized =
      linalg::GenericOp::create(
          builder, loc, TypeRange{empty.getType()}, ValueRange{t.source},
          ValueRange{empty}, ArrayRef<AffineMap>{identity, identity}, parallel,
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value x = toF32(b, l, args[0]);
            Value y = arith::MulFOp::create(b, l, x, t.scale);
            y = arith::MaximumFOp::create(b, l, y, lo);
            y = arith::MinimumFOp::create(b, l, y, hi);
            linalg::YieldOp::create(
                b, l, ValueRange{arith::TruncFOp::create(b, l, t.format, y)});
          })
          .getResult(0);
  if (!options.currentScaling)
    computeAmax();
}

static bool isZeroFill(Value value) {
  if (auto fill = value.getDefiningOp<linalg::FillOp>())
    return matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
  return matchPattern(value, m_AnyZeroFloat());
}

void Fp8Rewriter::rewriteContraction(Operation *op) {
  auto linalgOp = cast<linalg::LinalgOp>(op);
  Location loc = op->getLoc();
  Block *body = linalgOp.getBlock();
  SmallVector<Value, 2> opScales;
  for (OpOperand *operand : linalgOp.getDpsInputOperands()) {
    Fp8Tensor &t = tensors.find(operandKeys.lookup(operand))->second;
    Value quantized = t.quantized;
    if (auto transpose = getTranspose(operand->get())) {
      builder.setInsertionPoint(op);
      auto type = cast<RankedTensorType>(transpose->getResult(0).getType());
      Value empty = tensor::EmptyOp::create(builder, loc, type.getShape(),
                                            t.format);
      quantized = linalg::TransposeOp::create(builder, transpose.getLoc(),
                                              quantized, empty,
                                              transpose.getPermutation())
                      ->getResult(0);
      replacedTransposes.insert(transpose);
    }
    operand->set(quantized);
    // The body extends its bf16 argument to f32; it now extends FP8.
    body->getArgument(operand->getOperandNumber()).setType(t.format);
    opScales.push_back(t.scale);
  }

  // The contraction accumulates from zero, so that only its product is
  // descaled; a nonzero init is added back afterwards.
  OpOperand *initOperand = linalgOp.getDpsInitOperand(0);
  Value init = initOperand->get();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  bool addInit = !isZeroFill(init);
  if (addInit) {
    builder.setInsertionPoint(op);
    initOperand->set(zeros(loc, cast<RankedTensorType>(init.getType())));
  }

  builder.setInsertionPointAfter(op);
  Value product = arith::MulFOp::create(builder, loc, opScales[0], opScales[1]);
  int64_t rank = resultType.getRank();
  AffineMap identity = builder.getMultiDimIdentityMap(rank);
  SmallVector<Value, 2> inputs{op->getResult(0)};
  if (addInit)
    inputs.push_back(init);
  SmallVector<AffineMap> maps(inputs.size() + 1, identity);
  Value empty = tensor::EmptyOp::create(builder, loc, resultType.getShape(),
                                        resultType.getElementType());
  auto descale = linalg::GenericOp::create(
      builder, loc, TypeRange{resultType}, inputs, ValueRange{empty}, maps,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value r = arith::DivFOp::create(b, l, args[0], product);
        if (addInit)
          r = arith::AddFOp::create(b, l, args[1], r);
        linalg::YieldOp::create(b, l, ValueRange{r});
      });
  op->getResult(0).replaceAllUsesExcept(descale.getResult(0), descale);
}

void Fp8Rewriter::updateState(Operation *ret) {
  builder.setInsertionPoint(ret);
  Location loc = func.getLoc();
  MLIRContext *context = builder.getContext();
  int64_t n = tensors.size(), len = options.amaxHistoryLen;
  auto vectorType = RankedTensorType::get({n}, f32);
  auto historyType = RankedTensorType::get({len, n}, f32);

  SmallVector<Value> amaxes;
  for (auto &entry : tensors)
    amaxes.push_back(entry.second.amax);
  Value current = tensor::FromElementsOp::create(builder, loc, vectorType,
                                                 amaxes);
  auto row = [&](Value source, Value dest, int64_t at) {
    return tensor::InsertSliceOp::create(
        builder, loc, source, dest,
        ArrayRef<OpFoldResult>{builder.getIndexAttr(at),
                               builder.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{builder.getIndexAttr(1),
                               builder.getIndexAttr(n)},
        ArrayRef<OpFoldResult>{builder.getIndexAttr(1),
                               builder.getIndexAttr(1)});
  };
  // This step's amax goes into row 0 (Transformer Engine's layout).
  Value recorded = row(current, history, 0);

  Value amax = current;
  if (!options.mostRecent) {
    AffineMap all = AffineMap::getMultiDimIdentityMap(2, context);
    AffineMap column =
        AffineMap::get(2, 0, {getAffineDimExpr(1, context)}, context);
    amax = linalg::GenericOp::create(
               builder, loc, TypeRange{vectorType}, ValueRange{recorded},
               ValueRange{zeros(loc, vectorType, -INFINITY)},
               ArrayRef<AffineMap>{all, column},
               {utils::IteratorType::reduction,
                utils::IteratorType::parallel},
               [&](OpBuilder &b, Location l, ValueRange args) {
                 linalg::YieldOp::create(
                     b, l,
                     ValueRange{arith::MaximumFOp::create(b, l, args[1],
                                                          args[0])});
               })
               .getResult(0);
  }

  // scale' = (fp8_max / amax) / 2^margin where amax is positive and
  // finite, else the old scale. One fp8_max per tensor.
  SmallVector<Attribute> maxima;
  for (auto &entry : tensors)
    maxima.push_back(
        builder.getF32FloatAttr(getMax(entry.second.format)));
  Value fp8Max = arith::ConstantOp::create(
      builder, loc, DenseElementsAttr::get(vectorType, maxima));
  Value divisor = constantF32(loc, std::ldexp(1.0, options.margin));
  Value zero = constantF32(loc, 0.0), inf = constantF32(loc, INFINITY);
  AffineMap id1 = AffineMap::getMultiDimIdentityMap(1, context);
  Value nextScales =
      linalg::GenericOp::create(
          builder, loc, TypeRange{vectorType}, ValueRange{amax, scales, fp8Max},
          ValueRange{tensor::EmptyOp::create(builder, loc, ArrayRef<int64_t>{n},
                                             f32)},
          ArrayRef<AffineMap>{id1, id1, id1, id1},
          {utils::IteratorType::parallel},
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value a = args[0], old = args[1];
            Value sf = arith::DivFOp::create(b, l, args[2], a);
            sf = arith::DivFOp::create(b, l, sf, divisor);
            Value positive = arith::CmpFOp::create(
                b, l, arith::CmpFPredicate::OGT, a, zero);
            Value finite = arith::CmpFOp::create(
                b, l, arith::CmpFPredicate::OLT, a, inf);
            Value ok = arith::AndIOp::create(b, l, positive, finite);
            linalg::YieldOp::create(
                b, l, ValueRange{arith::SelectOp::create(b, l, ok, sf, old)});
          })
          .getResult(0);

  // Roll by one step towards row 0 (row 0 wraps to the end), then clear
  // row 0 for the next step's amax.
  Value next = tensor::EmptyOp::create(builder, loc, historyType.getShape(),
                                       f32);
  if (len > 1) {
    Value older = tensor::ExtractSliceOp::create(
        builder, loc, recorded,
        ArrayRef<OpFoldResult>{builder.getIndexAttr(1),
                               builder.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{builder.getIndexAttr(len - 1),
                               builder.getIndexAttr(n)},
        ArrayRef<OpFoldResult>{builder.getIndexAttr(1),
                               builder.getIndexAttr(1)});
    next = tensor::InsertSliceOp::create(
        builder, loc, older, next,
        ArrayRef<OpFoldResult>{builder.getIndexAttr(0),
                               builder.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{builder.getIndexAttr(len - 1),
                               builder.getIndexAttr(n)},
        ArrayRef<OpFoldResult>{builder.getIndexAttr(1),
                               builder.getIndexAttr(1)});
    next = row(current, next, len - 1);
  }
  next = row(zeros(loc, vectorType), next, 0);

  unsigned numResults = func.getNumResults();
  unsigned historyArg = cast<BlockArgument>(history).getArgNumber();
  auto updates = [&](unsigned arg) {
    return builder.getDictionaryAttr(builder.getNamedAttr(
        MPTDialect::kUpdatesAttrName, builder.getI64IntegerAttr(arg)));
  };
  if (failed(func.insertResults({numResults, numResults},
                                {historyType, vectorType},
                                {updates(historyArg), updates(historyArg + 1)})))
    llvm_unreachable("appending results to a function cannot fail");
  ret->insertOperands(ret->getNumOperands(), {next, nextScales});
}

LogicalResult Fp8Rewriter::run(ArrayRef<Operation *> contractions,
                               Value seed) {
  SmallVector<Operation *> returns;
  for (Block &block : func.getFunctionBody())
    if (!block.empty() && block.back().hasTrait<OpTrait::ReturnLike>())
      returns.push_back(&block.back());
  if (returns.size() != 1)
    return func.emitError()
           << "dtype=fp8 needs a function with one return (its scaling "
              "state is returned); this one has "
           << returns.size();

  collectGradients(seed);
  // Number the FP8 tensors first: their count is the state's size.
  for (Operation *op : contractions)
    for (OpOperand *operand :
         cast<linalg::LinalgOp>(op).getDpsInputOperands()) {
      Value source = getSource(operand->get());
      FloatType format = getFormat(source);
      unsigned next = tensors.size();
      tensors.insert({{source, format}, Fp8Tensor{source, format, next, {},
                                                  {}, {}}});
      operandKeys[operand] = {source, format};
    }

  MLIRContext *context = func->getContext();
  int64_t n = tensors.size();
  auto attrs = [&](StringRef role, double initial) {
    return builder.getDictionaryAttr(
        {builder.getNamedAttr(MPTDialect::kRoleAttrName,
                              builder.getStringAttr(role)),
         builder.getNamedAttr(MPTDialect::kInitialValueAttrName,
                              builder.getF32FloatAttr(initial))});
  };
  unsigned numArgs = func.getNumArguments();
  Location loc = func.getLoc();
  // Transformer Engine starts every scale at 1 and the history at 0.
  // Current scaling keeps no state: each scale comes from this step's amax.
  if (!options.currentScaling) {
    if (failed(func.insertArguments(
            {numArgs, numArgs},
            {RankedTensorType::get({options.amaxHistoryLen, n}, f32),
             RankedTensorType::get({n}, f32)},
            {attrs("fp8_amax_history", 0.0), attrs("fp8_scale", 1.0)},
            {loc, loc})))
      return func.emitError("cannot append the FP8 scaling arguments");
    history = func.getArgument(numArgs);
    scales = func.getArgument(numArgs + 1);
  }

  for (auto &entry : tensors)
    quantize(entry.second);
  for (Operation *op : contractions)
    rewriteContraction(op);
  if (!options.currentScaling)
    updateState(returns.front());
  func->setAttr(kFp8AttrName,
                StringAttr::get(context, options.hybrid ? "hybrid" : "e4m3"));
  if (options.currentScaling)
    func->setAttr(kFp8ScalingAttrName, StringAttr::get(context, "current"));
  eraseUnusedTransposes(replacedTransposes.getArrayRef());
  // The bf16 casts the FP8 casts replaced.
  cleanupCasts(func);
  return success();
}

LogicalResult mpt::applyFp8DelayedScaling(FunctionOpInterface func,
                                          ArrayRef<Operation *> contractions,
                                          Value seed,
                                          const Fp8Options &options) {
  return Fp8Rewriter(func, options).run(contractions, seed);
}
