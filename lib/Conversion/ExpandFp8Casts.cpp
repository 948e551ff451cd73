//===- ExpandFp8Casts.cpp - FP8 casts as integer arithmetic ---------------===//
//
// LLVM has no FP8 types, and MLIR 22's arith-to-llvm leaves arith.truncf /
// arith.extf to f8E4M3FN and f8E5M2 unconverted (upstream's arith-expand
// covers bf16, f8E8M0FNU and f4E2M1FN only; convert-arith-to-apfloat
// would turn every f32 op of the step into a library call). These
// patterns rewrite the two casts into i32 bit manipulation, on scalars and
// vectors alike, with the rounding of PyTorch's c10 conversions
// (fp8e4m3fn_from_fp32_value, fp8e5m2_from_fp32_value) as torch 2.15
// applies them to tensors: round to nearest even; subnormals rounded by
// adding a power of two whose ulp is the FP8 subnormal step; magnitudes
// that round past the largest finite value (and infinities) saturate to
// +-448 in E4M3FN, which has no infinity, and become infinity in E5M2;
// NaN stays NaN. Extension is exact. The same expansion covers f4E2M1FN
// (MXFP4 elements; saturating to +-6, no infinity or NaN). For MX
// (docs/MX.md) it also expands arith.extf from f8E8M0FNU (exact, 2^-127
// included), arith.scaling_truncf and arith.scaling_extf: upstream's
// arith-expand (22) rounds f4E2M1FN ties away from zero and extends the
// E8M0 code 0 (2^-127) to 0.
//
//===----------------------------------------------------------------------===//
#include "mpt/Conversion/CPUPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include <cmath>
#include <optional>

namespace mpt {
#define GEN_PASS_DEF_EXPANDFP8CASTS
#include "mpt/Conversion/CPUPasses.h.inc"
} // namespace mpt

using namespace mlir;

namespace {
/// The layout of an FP8 or FP4 format in the terms the expansion needs.
struct Fp8Format {
  unsigned width, mantissaBits, exponentBits;
  int bias;
  /// The f32 bit pattern from which a magnitude overflows.
  uint32_t overflowBits;
  bool hasInfinity, hasNaN;
  /// The largest finite magnitude's code.
  uint32_t maxCode;
};

std::optional<Fp8Format> getFormat(Type type) {
  if (isa<Float8E4M3FNType>(type))
    // Saturates above 464 (halfway to 480, the NaN encoding); 464 itself
    // rounds to even, 448.
    return Fp8Format{8, 3, 4, 7, 0x43E80001u, false, true, 0x7E};
  if (isa<Float8E5M2Type>(type))
    // Overflow from 65536 = 2^16; 61440 rounds (to even) to 57344.
    return Fp8Format{8, 2, 5, 15, 0x47800000u, true, true, 0x7B};
  if (isa<Float4E2M1FNType>(type))
    // MXFP4 elements: saturates from 7 (halfway to 8, which rounds to even
    // 8 and overflows); no infinity, no NaN.
    return Fp8Format{4, 1, 2, 1, 0x40E00000u, false, false, 0x7};
  return std::nullopt;
}

/// Builds integer constants and ops shaped like a scalar or vector type.
struct Emitter {
  PatternRewriter &rewriter;
  Location loc;
  Type shapeOf;

  Type like(Type element) {
    if (auto vector = dyn_cast<VectorType>(shapeOf))
      return vector.clone(element);
    return element;
  }
  Value constant(Type element, int64_t value) {
    Type type = like(element);
    TypedAttr attr;
    if (auto vector = dyn_cast<VectorType>(type))
      attr = DenseElementsAttr::get(
          vector, rewriter.getIntegerAttr(element, value));
    else
      attr = rewriter.getIntegerAttr(element, value);
    return arith::ConstantOp::create(rewriter, loc, attr);
  }
  Value i32(uint32_t value) {
    return constant(rewriter.getI32Type(), static_cast<int32_t>(value));
  }
  Value f32(float value) {
    Type type = like(rewriter.getF32Type());
    TypedAttr attr = rewriter.getF32FloatAttr(value);
    if (auto vector = dyn_cast<VectorType>(type))
      attr = DenseElementsAttr::get(vector, attr);
    return arith::ConstantOp::create(rewriter, loc, attr);
  }
  Value bitcast(Type element, Value value) {
    return arith::BitcastOp::create(rewriter, loc, like(element), value);
  }
  /// `value` in f32 (extended, exactly, from f16 / bf16).
  Value toF32(Value value) {
    if (getElementTypeOrSelf(value.getType()).isF32())
      return value;
    return arith::ExtFOp::create(rewriter, loc,
                                 like(rewriter.getF32Type()), value);
  }
  /// Replaces `op` by the f32 `result`, truncated to op's type when that is
  /// narrower.
  void replaceWithF32(Operation *op, Value result) {
    Type type = op->getResult(0).getType();
    if (!getElementTypeOrSelf(type).isF32())
      result = arith::TruncFOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
  }
};

struct ExpandTruncF : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<Fp8Format> format =
        getFormat(getElementTypeOrSelf(op.getType()));
    if (!format)
      return failure();
    Emitter e{rewriter, op.getLoc(), op.getType()};
    Type i32 = rewriter.getI32Type(), f32 = rewriter.getF32Type();
    // From f16 / bf16: extend first (exact), then round once.
    Value in = e.toF32(op.getIn());

    Value bits = e.bitcast(i32, in);
    Value sign = arith::AndIOp::create(rewriter, e.loc, bits,
                                       e.i32(0x80000000u));
    Value mag = arith::XOrIOp::create(rewriter, e.loc, bits, sign);

    // Normal: add half an FP8 ulp minus one, plus the lowest kept bit
    // (ties to even), rebias the exponent and shift.
    unsigned shift = 23 - format->mantissaBits;
    Value odd = arith::AndIOp::create(
        rewriter, e.loc,
        arith::ShRUIOp::create(rewriter, e.loc, mag, e.i32(shift)), e.i32(1));
    uint32_t rebias = static_cast<uint32_t>(format->bias - 127) << 23;
    Value rounded = arith::AddIOp::create(
        rewriter, e.loc, mag, e.i32(rebias + (1u << (shift - 1)) - 1));
    rounded = arith::AddIOp::create(rewriter, e.loc, rounded, odd);
    Value normal =
        arith::ShRUIOp::create(rewriter, e.loc, rounded, e.i32(shift));

    // Subnormal: x + 2^k, where 2^k's f32 ulp is the FP8 subnormal step,
    // rounds to nearest even in hardware; the low bits are the FP8 code.
    int subnormalExp = 1 - format->bias - static_cast<int>(format->mantissaBits);
    int denormExp = 23 + subnormalExp;
    uint32_t denormBits = static_cast<uint32_t>(127 + denormExp) << 23;
    Value sum = arith::AddFOp::create(rewriter, e.loc, e.bitcast(f32, mag),
                                      e.bitcast(f32, e.i32(denormBits)));
    Value subnormal = arith::SubIOp::create(rewriter, e.loc, e.bitcast(i32, sum),
                                            e.i32(denormBits));
    uint32_t minNormalBits = static_cast<uint32_t>(127 + 1 - format->bias)
                             << 23;
    Value isSubnormal = arith::CmpIOp::create(
        rewriter, e.loc, arith::CmpIPredicate::ult, mag, e.i32(minNormalBits));
    Value result =
        arith::SelectOp::create(rewriter, e.loc, isSubnormal, subnormal, normal);

    // Overflow, infinity and NaN.
    Value overflows = arith::CmpIOp::create(rewriter, e.loc,
                                            arith::CmpIPredicate::uge, mag,
                                            e.i32(format->overflowBits));
    // NaN stays NaN (S.1111.111 in E4M3FN, S.11111.11 in E5M2); anything
    // else that overflows saturates to the largest finite E4M3FN value
    // (it has no infinity; torch 2.15 saturates there too) and becomes
    // infinity in E5M2.
    Value isNaN = arith::CmpIOp::create(rewriter, e.loc,
                                        arith::CmpIPredicate::ugt, mag,
                                        e.i32(0x7F800000u));
    // E2M1 has neither: NaN saturates like any other overflow (an MX
    // block holding a NaN has a NaN scale, which makes every element NaN).
    uint32_t overflowCode =
        format->hasInfinity
            ? ((1u << format->exponentBits) - 1) << format->mantissaBits
            : format->maxCode;
    uint32_t nanCode =
        format->hasNaN ? (1u << (format->width - 1)) - 1 : format->maxCode;
    Value special = arith::SelectOp::create(rewriter, e.loc, isNaN,
                                            e.i32(nanCode), e.i32(overflowCode));
    result = arith::SelectOp::create(rewriter, e.loc, overflows, special,
                                     result);
    result = arith::OrIOp::create(
        rewriter, e.loc, result,
        arith::ShRUIOp::create(rewriter, e.loc, sign,
                               e.i32(32 - format->width)));
    Value byte = arith::TruncIOp::create(
        rewriter, e.loc, e.like(rewriter.getIntegerType(format->width)),
        result);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), byte);
    return success();
  }
};

struct ExpandExtF : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<Fp8Format> format =
        getFormat(getElementTypeOrSelf(op.getIn().getType()));
    if (!format)
      return failure();
    Emitter e{rewriter, op.getLoc(), op.getType()};
    Type i32 = rewriter.getI32Type(), f32 = rewriter.getF32Type();
    unsigned width = format->width;
    Value byte =
        e.bitcast(rewriter.getIntegerType(width), op.getIn());
    Value word = arith::ExtUIOp::create(rewriter, e.loc, e.like(i32), byte);
    unsigned m = format->mantissaBits;
    Value sign = arith::ShLIOp::create(
        rewriter, e.loc,
        arith::AndIOp::create(rewriter, e.loc, word,
                              e.i32(1u << (width - 1))),
        e.i32(32 - width));
    Value exponent = arith::AndIOp::create(
        rewriter, e.loc, arith::ShRUIOp::create(rewriter, e.loc, word, e.i32(m)),
        e.i32((1u << format->exponentBits) - 1));
    Value mantissa =
        arith::AndIOp::create(rewriter, e.loc, word, e.i32((1u << m) - 1));

    // Normal: rebias the exponent, widen the mantissa.
    Value normal = arith::OrIOp::create(
        rewriter, e.loc,
        arith::ShLIOp::create(
            rewriter, e.loc,
            arith::AddIOp::create(rewriter, e.loc, exponent,
                                  e.i32(127 - format->bias)),
            e.i32(23)),
        arith::ShLIOp::create(rewriter, e.loc, mantissa, e.i32(23 - m)));
    // Subnormal (and zero): mantissa * 2^(1 - bias - m), exact in f32.
    Value scaled = arith::MulFOp::create(
        rewriter, e.loc,
        arith::UIToFPOp::create(rewriter, e.loc, e.like(f32), mantissa),
        e.f32(std::ldexp(1.0f, 1 - format->bias - static_cast<int>(m))));
    Value isZeroExp = arith::CmpIOp::create(
        rewriter, e.loc, arith::CmpIPredicate::eq, exponent, e.i32(0));
    Value magnitude = arith::SelectOp::create(
        rewriter, e.loc, isZeroExp, e.bitcast(i32, scaled), normal);

    Value special;
    if (format->hasInfinity) {
      // All-ones exponent: infinity, or NaN with a nonzero mantissa.
      special = arith::CmpIOp::create(
          rewriter, e.loc, arith::CmpIPredicate::eq, exponent,
          e.i32((1u << format->exponentBits) - 1));
      Value inf = arith::OrIOp::create(
          rewriter, e.loc, e.i32(0x7F800000u),
          arith::ShLIOp::create(rewriter, e.loc, mantissa, e.i32(23 - m)));
      magnitude =
          arith::SelectOp::create(rewriter, e.loc, special, inf, magnitude);
    } else if (format->hasNaN) {
      // E4M3FN: S.1111.111 is the only NaN.
      special = arith::CmpIOp::create(
          rewriter, e.loc, arith::CmpIPredicate::eq,
          arith::AndIOp::create(rewriter, e.loc, word, e.i32(0x7F)),
          e.i32(0x7F));
      magnitude = arith::SelectOp::create(rewriter, e.loc, special,
                                          e.i32(0x7FC00000u), magnitude);
    }
    // To f16 / bf16: every FP8 value is exact there.
    e.replaceWithF32(op, e.bitcast(f32, arith::OrIOp::create(
                                           rewriter, e.loc, sign, magnitude)));
    return success();
  }
};

/// f8E8M0FNU (MX scales) to a float: 2^(code - 127), code 0 included
/// (2^-127, an f32 subnormal; upstream's arith-expand gives 0 there), and
/// NaN for 0xFF.
struct ExpandE8M0ExtF : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<Float8E8M0FNUType>(getElementTypeOrSelf(op.getIn().getType())))
      return failure();
    Emitter e{rewriter, op.getLoc(), op.getType()};
    Type i32 = rewriter.getI32Type(), f32 = rewriter.getF32Type();
    Value code = arith::ExtUIOp::create(
        rewriter, e.loc, e.like(i32),
        e.bitcast(rewriter.getI8Type(), op.getIn()));
    Value bits = arith::ShLIOp::create(rewriter, e.loc, code, e.i32(23));
    Value isZero = arith::CmpIOp::create(rewriter, e.loc,
                                         arith::CmpIPredicate::eq, code,
                                         e.i32(0));
    bits = arith::SelectOp::create(rewriter, e.loc, isZero,
                                   e.i32(0x00400000u), bits);
    Value isNaN = arith::CmpIOp::create(rewriter, e.loc,
                                        arith::CmpIPredicate::eq, code,
                                        e.i32(0xFF));
    bits = arith::SelectOp::create(rewriter, e.loc, isNaN,
                                   e.i32(0x7FC00000u), bits);
    e.replaceWithF32(op, e.bitcast(f32, bits));
    return success();
  }
};

/// arith.scaling_truncf: in / extf(scale) in f32 (exact: a power of two,
/// but where the quotient is an f32 subnormal, far below the element
/// formats' smallest value), then truncf (expanded above).
struct ExpandScalingTruncF : OpRewritePattern<arith::ScalingTruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ScalingTruncFOp op,
                                PatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc(), op.getType()};
    Type f32 = e.like(rewriter.getF32Type());
    Value in = e.toF32(op.getIn());
    Value scale = arith::ExtFOp::create(rewriter, e.loc, f32, op.getScale());
    Value quotient = arith::DivFOp::create(rewriter, e.loc, in, scale);
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, op.getType(), quotient);
    return success();
  }
};

/// arith.scaling_extf: extf(in) * extf(scale) in f32 (exact: at least
/// 2^-9 * 2^-127 and at most 448 * 2^119), then truncf to the result type
/// when it is narrower (exact in bf16 down to 2^-126 and, for E4M3
/// elements, 2^-130).
struct ExpandScalingExtF : OpRewritePattern<arith::ScalingExtFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ScalingExtFOp op,
                                PatternRewriter &rewriter) const override {
    Emitter e{rewriter, op.getLoc(), op.getType()};
    Type f32 = e.like(rewriter.getF32Type());
    Value in = arith::ExtFOp::create(rewriter, e.loc, f32, op.getIn());
    Value scale = arith::ExtFOp::create(rewriter, e.loc, f32, op.getScale());
    e.replaceWithF32(op, arith::MulFOp::create(rewriter, e.loc, in, scale));
    return success();
  }
};

struct ExpandFp8CastsPass
    : mpt::impl::ExpandFp8CastsBase<ExpandFp8CastsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandTruncF, ExpandExtF, ExpandE8M0ExtF, ExpandScalingTruncF,
                 ExpandScalingExtF>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
