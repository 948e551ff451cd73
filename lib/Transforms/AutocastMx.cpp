//===- AutocastMx.cpp - MX block-scaled contraction operands --------------===//
//
// `--mpt-autocast="dtype=mxfp8|mxfp4"` (docs/MX.md): after the bf16 plan
// is applied, each contraction it put in bf16 reads MX operands (OCP
// Microscaling Formats v1.0). Each operand is cut into blocks of 32
// elements along its reduction dimension; a block shares the scale
//   X = 2^(floor(log2(amax of the block)) - emax_elem)   (E8M0)
// and its elements are P = saturate(x / X) cast to the element format
// (f8E4M3FN, emax 8; f4E2M1FN, emax 2), with arith.scaling_truncf. The
// contraction reads P * X (arith.scaling_extf, exact in bf16 but for
// magnitudes below 2^-126) and accumulates in f32. The scales are just in
// time, computed from the block being cast: no state.
//
//===----------------------------------------------------------------------===//
#include "mpt/IR/TrainingContract.h"
#include "mpt/Transforms/Autocast.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mpt;

MxOptions MxOptions::get(const AutocastOptions &passOptions) {
  MxOptions options;
  options.fp4 = passOptions.dtype == AutocastDtype::MXFP4;
  // MXFP4 is an error at the first backward contraction (applyMxScaling):
  // the option is valid on a function without a backward.
  options.backward = passOptions.mxBackward;
  options.pad = passOptions.mxPad;
  options.ceilScale = passOptions.mxScale == MxScale::Ceil;
  return options;
}

/// The one reduction loop of `op` and, per input, the operand dimension it
/// indexes; none when the op has more than one reduction loop or an input
/// does not index it with a plain loop dimension exactly once.
static std::optional<SmallVector<int64_t, 2>>
getReductionAxes(linalg::LinalgOp op) {
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  if (reductions.size() != 1)
    return std::nullopt;
  SmallVector<int64_t, 2> axes;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isProjectedPermutation())
      return std::nullopt;
    std::optional<unsigned> position =
        map.getResultPosition(getAffineDimExpr(reductions[0], op.getContext()));
    if (!position)
      return std::nullopt;
    axes.push_back(*position);
  }
  return axes;
}

SmallVector<Operation *> mpt::getMxContractions(const PrecisionPlan &plan) {
  SmallVector<Operation *> found;
  for (Operation *op : getFp8Contractions(plan)) {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    // An empty operand (a batch of 0, K = 0) has no blocks to scale (their
    // slices would be out of bounds).
    if (llvm::any_of(op->getOperandTypes(), [](Type type) {
          return cast<RankedTensorType>(type).getNumElements() == 0;
        }))
      continue;
    // Blocks run along the one reduction dimension of a contraction;
    // convolutions (several reduction loops) stay bf16.
    if (linalg::isaContractionOpInterface(linalgOp) &&
        getReductionAxes(linalgOp))
      found.push_back(op);
  }
  return found;
}

namespace {
class MxRewriter {
public:
  MxRewriter(FunctionOpInterface func, const MxOptions &options)
      : func(func), options(options), builder(func->getContext()),
        f32(Float32Type::get(func->getContext())) {}

  LogicalResult run(ArrayRef<Operation *> contractions, Value seed);

private:
  void collectGradients(Value seed);
  bool isBackward(Operation *op) {
    return llvm::any_of(op->getOperands(),
                        [&](Value v) { return gradients.contains(v); });
  }
  /// The f32 value autocast truncated to bf16 for `value`, else `value`:
  /// quantizing it rounds once.
  static Value getSource(Value value) {
    if (auto trunc = value.getDefiningOp<arith::TruncFOp>())
      if (getElementTypeOrSelf(trunc.getIn().getType()).isF32())
        return trunc.getIn();
    return value;
  }
  Value constantF32(Location loc, double value) {
    return arith::ConstantOp::create(builder, loc,
                                     builder.getF32FloatAttr(value));
  }
  Value filled(Location loc, ArrayRef<int64_t> shape, TypedAttr value) {
    Value empty =
        tensor::EmptyOp::create(builder, loc, shape, value.getType());
    Value scalar = arith::ConstantOp::create(builder, loc, value);
    return linalg::FillOp::create(builder, loc, scalar, empty).getResult(0);
  }
  void setInsertionAfterDefinition(Value value) {
    if (Operation *def = value.getDefiningOp())
      builder.setInsertionPointAfter(def);
    else
      builder.setInsertionPointToStart(cast<BlockArgument>(value).getOwner());
  }
  /// `source` in MX blocks along `axis`, dequantized to `readType`.
  Value quantize(Value source, int64_t axis, FloatType format,
                 Type readType);
  void rewriteContraction(Operation *op, FloatType format);

  FunctionOpInterface func;
  const MxOptions &options;
  OpBuilder builder;
  Type f32;
  llvm::DenseSet<Value> gradients;
  /// The dequantized MX tensors by (source, axis, element format).
  llvm::DenseMap<std::tuple<Value, int64_t, Type>, Value> tensors;
  llvm::SetVector<Operation *> replacedTransposes;
};
} // namespace

void MxRewriter::collectGradients(Value seed) {
  gradients = collectSeedDependents(func, seed);
}

void mpt::eraseUnusedTransposes(ArrayRef<Operation *> transposes) {
  for (Operation *transpose : transposes) {
    if (!transpose->use_empty())
      continue;
    Operation *init = transpose->getOperand(1).getDefiningOp();
    transpose->erase();
    if (init && isa<tensor::EmptyOp>(init) && init->use_empty())
      init->erase();
  }
}

llvm::DenseSet<Value> mpt::collectSeedDependents(FunctionOpInterface func,
                                                 Value seed) {
  llvm::DenseSet<Value> gradients;
  if (!seed)
    return gradients;
  gradients.insert(seed);
  // Program order: an op depends on the seed when an operand or a value
  // its regions read from above does.
  func.getFunctionBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
    bool dependent = llvm::any_of(op->getOperands(), [&](Value v) {
      return gradients.contains(v);
    });
    if (!dependent && op->getNumRegions() != 0)
      visitUsedValuesDefinedAbove(op->getRegions(), [&](OpOperand *use) {
        dependent = dependent || gradients.contains(use->get());
      });
    if (!dependent)
      return;
    gradients.insert(op->result_begin(), op->result_end());
    for (Region &region : op->getRegions())
      for (Block &block : region)
        gradients.insert(block.args_begin(), block.args_end());
  });
  return gradients;
}

static bool readsAny(Operation *op, const llvm::DenseSet<Value> &values) {
  return llvm::any_of(op->getOperands(),
                      [&](Value v) { return values.contains(v); });
}

llvm::DenseMap<Operation *, std::string>
mpt::describeMxContractions(const PrecisionPlan &plan, Value seed,
                            const MxOptions &options) {
  llvm::DenseMap<Operation *, std::string> formats;
  SmallVector<Operation *> contractions = getMxContractions(plan);
  if (contractions.empty())
    return formats;
  auto func = contractions.front()->getParentOfType<FunctionOpInterface>();
  llvm::DenseSet<Value> gradients = collectSeedDependents(func, seed);
  for (Operation *op : contractions) {
    if (!readsAny(op, gradients))
      formats[op] = options.fp4 ? "mxfp4" : "mxfp8";
    else if (options.backward == MxOptions::Backward::MXFP8)
      formats[op] = "mxfp8";
  }
  return formats;
}

llvm::DenseMap<Operation *, std::string>
mpt::describeFp8Contractions(const PrecisionPlan &plan, Value seed,
                             const Fp8Options &options,
                             llvm::DenseMap<Operation *, std::string> *scales) {
  llvm::DenseMap<Operation *, std::string> formats;
  SmallVector<Operation *> contractions = getFp8Contractions(plan);
  if (contractions.empty())
    return formats;
  auto func = contractions.front()->getParentOfType<FunctionOpInterface>();
  llvm::DenseSet<Value> gradients = collectSeedDependents(func, seed);
  // The FP8 tensors numbered as the rewrite numbers them (by source and
  // format, in order of first use): a tensor's amax history column and
  // scale index.
  llvm::MapVector<std::pair<Value, unsigned>, unsigned> columns;
  for (Operation *op : contractions) {
    SmallVector<StringRef, 2> names;
    SmallVector<unsigned, 2> indices;
    for (Value input : cast<linalg::LinalgOp>(op).getDpsInputs()) {
      // As the rewrite: the operand of a transpose, the f32 value a bf16
      // cast reads; a gradient is E5M2 with the hybrid format.
      if (auto transpose = input.getDefiningOp<linalg::TransposeOp>())
        input = transpose.getInput();
      if (auto trunc = input.getDefiningOp<arith::TruncFOp>())
        if (getElementTypeOrSelf(trunc.getIn().getType()).isF32())
          input = trunc.getIn();
      bool e5m2 = options.hybrid && gradients.contains(input);
      names.push_back(e5m2 ? "e5m2" : "e4m3");
      unsigned next = columns.size();
      indices.push_back(columns.insert({{input, e5m2}, next}).first->second);
    }
    std::string text = "fp8 " + names[0].str() + " x " + names[1].str();
    // "fp8 e4m3 x e4m3" reads as "fp8 e4m3".
    if (text == "fp8 e4m3 x e4m3")
      text = "fp8 e4m3";
    formats[op] = text;
    if (scales)
      (*scales)[op] =
          options.currentScaling
              ? std::string("scales from this step's amax of each operand "
                            "(current)")
              : std::string(llvm::formatv(
                    "scales {0} and {1} of fp8_scale, from amax history "
                    "columns {0} and {1} (delayed)",
                    indices[0], indices[1]));
  }
  return formats;
}

Value MxRewriter::quantize(Value source, int64_t axis, FloatType format,
                           Type readType) {
  auto key = std::make_tuple(source, axis, Type(format));
  if (Value known = tensors.lookup(key))
    return known;
  OpBuilder::InsertionGuard guard(builder);
  setInsertionAfterDefinition(source);
  Location loc = source.getLoc();
  MLIRContext *context = builder.getContext();
  auto type = cast<RankedTensorType>(source.getType());
  Type elementType = type.getElementType();
  int64_t rank = type.getRank();
  int64_t length = type.getDimSize(axis);
  int64_t blocks = llvm::divideCeil(length, kMxBlockSize);
  int64_t padded = blocks * kMxBlockSize;

  // A short last block: the block padded with zeros, which change neither
  // its amax nor the contraction.
  SmallVector<int64_t> paddedShape(type.getShape());
  paddedShape[axis] = padded;
  Value x = source;
  SmallVector<OpFoldResult> zeroOffsets(rank, builder.getIndexAttr(0)),
      unitStrides(rank, builder.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes;
  for (int64_t size : type.getShape())
    sizes.push_back(builder.getIndexAttr(size));
  if (padded != length) {
    Value zeros =
        filled(loc, paddedShape, builder.getFloatAttr(elementType, 0.0));
    x = tensor::InsertSliceOp::create(builder, loc, source, zeros,
                                      zeroOffsets, sizes, unitStrides);
  }

  // [..., K, ...] -> [..., K/32, 32, ...].
  SmallVector<int64_t> blockedShape(paddedShape);
  blockedShape[axis] = blocks;
  blockedShape.insert(blockedShape.begin() + axis + 1, kMxBlockSize);
  SmallVector<ReassociationIndices> reassociation;
  for (int64_t i = 0; i < rank; ++i) {
    if (i < axis)
      reassociation.push_back({i});
    else if (i == axis)
      reassociation.push_back({i, i + 1});
    else
      reassociation.push_back({i + 1});
  }
  x = tensor::ExpandShapeOp::create(
      builder, loc, RankedTensorType::get(blockedShape, elementType), x,
      reassociation);

  SmallVector<int64_t> scaleShape(type.getShape());
  scaleShape[axis] = blocks;
  AffineMap identity = builder.getMultiDimIdentityMap(rank + 1);
  AffineMap perBlock = identity.dropResult(axis + 1);
  SmallVector<utils::IteratorType> parallel(rank + 1,
                                            utils::IteratorType::parallel);
  SmallVector<utils::IteratorType> blockReduction(parallel);
  blockReduction[axis + 1] = utils::IteratorType::reduction;
  auto toF32 = [&](OpBuilder &b, Location l, Value v) {
    return v.getType() == f32 ? v : arith::ExtFOp::create(b, l, f32, v);
  };

  // amax of each block; NaN when a block holds a NaN (maximumf propagates
  // it), inf when it holds an infinity.
  Value amax =
      linalg::GenericOp::create(
          builder, loc, TypeRange{RankedTensorType::get(scaleShape, f32)},
          ValueRange{x}, ValueRange{filled(loc, scaleShape,
                                           builder.getF32FloatAttr(0.0))},
          ArrayRef<AffineMap>{identity, perBlock}, blockReduction,
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value a = math::AbsFOp::create(b, l, toF32(b, l, args[0]));
            linalg::YieldOp::create(
                b, l, ValueRange{arith::MaximumFOp::create(b, l, args[1], a)});
          })
          .getResult(0);

  // The E8M0 scale: the biased exponent of amax (floor(log2 amax) + 127)
  // minus emax, clamped below at 0 (2^-127, as OCP MX clamps the shared
  // exponent); 0xFF (NaN) where amax is NaN or infinite. A zero or
  // subnormal amax gives 0.
  // emax: 8 for E4M3 (448 = 1.75 * 2^8), 2 for E2M1 (6 = 1.5 * 2^2).
  llvm::APFloat largest = llvm::APFloat::getLargest(format.getFloatSemantics());
  int64_t emax = llvm::ilogb(largest);
  // mx-scale=ceil: one more where amax's significand exceeds the largest
  // element's (1.75, 1.5), so that amax / X <= the largest element: the
  // smallest power of two that does not saturate.
  bool losesInfo = false;
  (void)largest.convert(llvm::APFloat::IEEEsingle(),
                        llvm::APFloat::rmTowardZero, &losesInfo);
  int64_t largestMantissa =
      largest.bitcastToAPInt().getZExtValue() & 0x7FFFFF;
  Type scaleType = Float8E8M0FNUType::get(context);
  AffineMap scaleIdentity = builder.getMultiDimIdentityMap(rank);
  Value scaleEmpty = tensor::EmptyOp::create(builder, loc, scaleShape,
                                             scaleType);
  Value scales =
      linalg::GenericOp::create(
          builder, loc, TypeRange{scaleEmpty.getType()}, ValueRange{amax},
          ValueRange{scaleEmpty},
          ArrayRef<AffineMap>{scaleIdentity, scaleIdentity},
          SmallVector<utils::IteratorType>(rank,
                                           utils::IteratorType::parallel),
          [&](OpBuilder &b, Location l, ValueRange args) {
            Type i32 = b.getI32Type();
            auto c = [&](int64_t v) {
              return arith::ConstantOp::create(b, l,
                                               b.getI32IntegerAttr(v));
            };
            Value bits = arith::BitcastOp::create(b, l, i32, args[0]);
            Value exponent = arith::AndIOp::create(
                b, l, arith::ShRUIOp::create(b, l, bits, c(23)), c(0xFF));
            Value shared = arith::SubIOp::create(b, l, exponent, c(emax));
            if (options.ceilScale) {
              Value mantissa = arith::AndIOp::create(b, l, bits, c(0x7FFFFF));
              Value above = arith::CmpIOp::create(
                  b, l, arith::CmpIPredicate::ugt, mantissa,
                  c(largestMantissa));
              shared = arith::AddIOp::create(
                  b, l, shared, arith::ExtUIOp::create(b, l, i32, above));
            }
            shared = arith::MaxSIOp::create(b, l, shared, c(0));
            Value special = arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::eq, exponent, c(0xFF));
            Value code =
                arith::SelectOp::create(b, l, special, c(0xFF), shared);
            Value byte =
                arith::TruncIOp::create(b, l, b.getI8Type(), code);
            linalg::YieldOp::create(
                b, l,
                ValueRange{arith::BitcastOp::create(b, l, scaleType, byte)});
          })
          .getResult(0);

  // The elements: x / X cast to the element format (saturating: the casts
  // of --mpt-expand-fp8-casts saturate to the largest finite value).
  Value elementEmpty =
      tensor::EmptyOp::create(builder, loc, blockedShape, format);
  Value elements =
      linalg::GenericOp::create(
          builder, loc, TypeRange{elementEmpty.getType()},
          ValueRange{x, scales}, ValueRange{elementEmpty},
          ArrayRef<AffineMap>{identity, perBlock, identity}, parallel,
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value q = arith::ScalingTruncFOp::create(
                b, l, format, toF32(b, l, args[0]), args[1],
                arith::RoundingModeAttr(), arith::FastMathFlagsAttr());
            linalg::YieldOp::create(b, l, ValueRange{q});
          })
          .getResult(0);

  // What the contraction reads: P * X.
  Value readEmpty =
      tensor::EmptyOp::create(builder, loc, blockedShape, readType);
  Value read =
      linalg::GenericOp::create(
          builder, loc, TypeRange{readEmpty.getType()},
          ValueRange{elements, scales}, ValueRange{readEmpty},
          ArrayRef<AffineMap>{identity, perBlock, identity}, parallel,
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value v = arith::ScalingExtFOp::create(
                b, l, readType, args[0], args[1], arith::FastMathFlagsAttr());
            linalg::YieldOp::create(b, l, ValueRange{v});
          })
          .getResult(0);
  read = tensor::CollapseShapeOp::create(
      builder, loc, RankedTensorType::get(paddedShape, readType), read,
      reassociation);
  if (padded != length)
    read = tensor::ExtractSliceOp::create(
        builder, loc, RankedTensorType::get(type.getShape(), readType), read,
        zeroOffsets, sizes, unitStrides);
  tensors[key] = read;
  return read;
}

void MxRewriter::rewriteContraction(Operation *op, FloatType format) {
  auto linalgOp = cast<linalg::LinalgOp>(op);
  SmallVector<int64_t, 2> axes = *getReductionAxes(linalgOp);
  for (auto [operand, axis] :
       llvm::zip(linalgOp.getDpsInputOperands(), axes)) {
    Value value = operand->get();
    Type readType = getElementTypeOrSelf(value.getType());
    // A transposed operand (the W^T of dX = dY W^T): the transposed
    // value blocked along the dimension that becomes the reduction
    // dimension, dequantized, then transposed.
    if (auto transpose = value.getDefiningOp<linalg::TransposeOp>();
        transpose && transpose->getNumResults() == 1) {
      Value source = getSource(transpose.getInput());
      int64_t sourceAxis = transpose.getPermutation()[axis];
      Value read = quantize(source, sourceAxis, format, readType);
      builder.setInsertionPoint(op);
      auto type = cast<RankedTensorType>(value.getType());
      Value empty = tensor::EmptyOp::create(builder, transpose.getLoc(),
                                            type.getShape(), readType);
      operand->set(linalg::TransposeOp::create(builder, transpose.getLoc(),
                                               read, empty,
                                               transpose.getPermutation())
                       ->getResult(0));
      replacedTransposes.insert(transpose);
      continue;
    }
    operand->set(quantize(getSource(value), axis, format, readType));
  }
}

LogicalResult MxRewriter::run(ArrayRef<Operation *> contractions,
                              Value seed) {
  collectGradients(seed);
  MLIRContext *context = func->getContext();
  FloatType e4m3 = Float8E4M3FNType::get(context);
  FloatType e2m1 = Float4E2M1FNType::get(context);
  SmallVector<std::pair<Operation *, FloatType>> rewrites;
  for (Operation *op : contractions) {
    if (!isBackward(op)) {
      rewrites.push_back({op, options.fp4 ? e2m1 : e4m3});
      continue;
    }
    switch (options.backward) {
    case MxOptions::Backward::MXFP8:
      rewrites.push_back({op, e4m3});
      break;
    case MxOptions::Backward::BF16:
      break;
    case MxOptions::Backward::MXFP4:
      return op->emitError()
             << "mx-backward=mxfp4: the operands of a backward contraction "
                "(gradients) cannot be MXFP4; use mx-backward=mxfp8 or bf16 "
                "(MXFP4 training recipes keep the backward in MXFP8 or "
                "bf16)";
    }
  }
  for (auto [op, format] : rewrites) {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    SmallVector<int64_t, 2> axes = *getReductionAxes(linalgOp);
    for (auto [operand, axis] :
         llvm::zip(linalgOp.getDpsInputOperands(), axes)) {
      int64_t length =
          cast<RankedTensorType>(operand->get().getType()).getDimSize(axis);
      if (!options.pad && length % kMxBlockSize != 0)
        return op->emitError()
               << "mx-pad=false: reduction dimension of size " << length
               << " (operand " << operand->getOperandNumber()
               << ") is not a multiple of the MX block size "
               << kMxBlockSize;
    }
  }
  for (auto [op, format] : rewrites)
    rewriteContraction(op, format);
  func->setAttr(kMxAttrName,
                StringAttr::get(context, options.fp4 ? "mxfp4" : "mxfp8"));
  eraseUnusedTransposes(replacedTransposes.getArrayRef());
  // The bf16 casts the MX casts replaced.
  cleanupCasts(func);
  return success();
}

LogicalResult mpt::applyMxScaling(FunctionOpInterface func,
                                  ArrayRef<Operation *> contractions,
                                  Value seed, const MxOptions &options) {
  return MxRewriter(func, options).run(contractions, seed);
}
