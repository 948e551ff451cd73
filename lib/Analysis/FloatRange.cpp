//===- FloatRange.cpp - value ranges of the float values of a step --------===//
//
// Transfer functions, in interval arithmetic, for constants, fills, selects,
// arith / math on scalars and tensors, TOSA elementwise ops and reductions,
// data movement (tensor, linalg.broadcast/transpose), linalg ops through an
// interpretation of their bodies (a reduction's result is bounded by its
// init and the reduced extent times its term; max/min reductions by their
// term), linalg.softmax, the training markers and the loss scale.
// Relational facts interval arithmetic cannot see are recognised where they
// make the difference between a bound and none: x - max(x) <= 0, the sum of
// exp(x - max(x)) >= 1 (so a log-softmax is <= 0), x * x >= 0.
//
//===----------------------------------------------------------------------===//
#include "mpt/Analysis/FloatRange.h"
#include "mpt/Support/Report.h"
#include "mpt/IR/MPTDialect.h"
#include "mpt/IR/MPTOps.h"
#include "mpt/IR/TrainingContract.h"

#include "mlir/Analysis/DataFlow/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::dataflow;
using namespace mpt;

static constexpr double kInf = std::numeric_limits<double>::infinity();
/// exp overflows f32 above this.
static constexpr double kExpOverflow = 88.72;
/// Growths of one value (loop iterations) before its bounds widen.
static constexpr unsigned kGrowthsBeforeWidening = 3;

//===----------------------------------------------------------------------===//
// Interval arithmetic
//===----------------------------------------------------------------------===//

bool Interval::isBounded() const {
  return isEmpty() || (std::isfinite(lo) && std::isfinite(hi));
}

double Interval::magnitude() const {
  if (isEmpty())
    return 0.0;
  return std::max(std::fabs(lo), std::fabs(hi));
}

namespace {
/// An endpoint computation that hit inf - inf or 0 * inf.
double orElse(double v, double fallback) { return std::isnan(v) ? fallback : v; }

Interval hull(Interval a, Interval b) {
  if (a.isEmpty())
    return b;
  if (b.isEmpty())
    return a;
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}

Interval add(Interval a, Interval b) {
  if (a.isEmpty() || b.isEmpty())
    return Interval::empty();
  return {orElse(a.lo + b.lo, -kInf), orElse(a.hi + b.hi, kInf)};
}

Interval neg(Interval a) {
  if (a.isEmpty())
    return a;
  return {-a.hi, -a.lo};
}

Interval sub(Interval a, Interval b) { return add(a, neg(b)); }

/// A product of endpoints; 0 * inf is 0 (a bound, not a value).
double mulBound(double x, double y) {
  if (x == 0.0 || y == 0.0)
    return 0.0;
  return x * y;
}

Interval mul(Interval a, Interval b) {
  if (a.isEmpty() || b.isEmpty())
    return Interval::empty();
  double p[] = {mulBound(a.lo, b.lo), mulBound(a.lo, b.hi),
                mulBound(a.hi, b.lo), mulBound(a.hi, b.hi)};
  return {*std::min_element(std::begin(p), std::end(p)),
          *std::max_element(std::begin(p), std::end(p))};
}

Interval square(Interval a) {
  if (a.isEmpty())
    return a;
  double lo = a.contains(0.0) ? 0.0 : std::min(a.lo * a.lo, a.hi * a.hi);
  return {lo, std::max(a.lo * a.lo, a.hi * a.hi)};
}

Interval reciprocal(Interval a) {
  if (a.isEmpty())
    return a;
  if (a.contains(0.0))
    return Interval::all();
  return {1.0 / a.hi, 1.0 / a.lo};
}

Interval div(Interval a, Interval b) { return mul(a, reciprocal(b)); }

Interval maxOf(Interval a, Interval b) {
  if (a.isEmpty() || b.isEmpty())
    return Interval::empty();
  return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
}

Interval minOf(Interval a, Interval b) {
  if (a.isEmpty() || b.isEmpty())
    return Interval::empty();
  return {std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
}

/// A monotonically increasing function applied to both ends.
Interval monotone(Interval a, double (*f)(double)) {
  if (a.isEmpty())
    return a;
  return {f(a.lo), f(a.hi)};
}

/// The domain [0, +inf] of log and sqrt.
Interval nonNegativePart(Interval a) {
  if (a.isEmpty() || a.hi < 0)
    return Interval::empty();
  return {std::max(a.lo, 0.0), a.hi};
}

Interval absOf(Interval a) {
  if (a.isEmpty())
    return a;
  if (a.contains(0.0))
    return {0.0, a.magnitude()};
  return {std::min(std::fabs(a.lo), std::fabs(a.hi)), a.magnitude()};
}

/// `a` times a positive count; an infinite count gives an infinite bound
/// unless `a`'s bound is 0.
Interval times(Interval a, double count) {
  if (a.isEmpty())
    return a;
  return {mulBound(a.lo, count), mulBound(a.hi, count)};
}

Interval intersect(Interval a, Interval b) {
  return {std::max(a.lo, b.lo), std::min(a.hi, b.hi)};
}
} // namespace

//===----------------------------------------------------------------------===//
// FloatRange
//===----------------------------------------------------------------------===//

FloatRange FloatRange::unbounded() {
  return FloatRange(Interval::all(), Interval{-1.0, 1.0}, false, false);
}

FloatRange FloatRange::bounded(Interval interval, Value source) {
  bool inf = !interval.isEmpty() &&
             (std::isinf(interval.lo) || std::isinf(interval.hi));
  return FloatRange(interval, interval, inf, false, source);
}

FloatRange FloatRange::empty() {
  return FloatRange(Interval::empty(), Interval::empty(), false, false);
}

/// The source of the larger reach of `a` and `b`: a bounded source counts
/// only when what it reaches is at least what the unsourced operand reaches
/// (a 0 fill does not bound a sum of data). Ties: `a`.
static Value largerSource(const FloatRange &a, const FloatRange &b) {
  double ma = a.reach.magnitude(), mb = b.reach.magnitude();
  if (!b.source)
    return ma >= mb ? a.source : Value();
  if (!a.source)
    return mb >= ma ? b.source : Value();
  return mb > ma ? b.source : a.source;
}

FloatRange FloatRange::either(const FloatRange &lhs, const FloatRange &rhs) {
  if (lhs.isUninitialized())
    return rhs;
  if (rhs.isUninitialized())
    return lhs;
  FloatRange result(hull(lhs.bounds, rhs.bounds), hull(lhs.reach, rhs.reach),
                    lhs.mayBeInf || rhs.mayBeInf,
                    lhs.mayBeNaN || rhs.mayBeNaN, largerSource(lhs, rhs));
  result.shiftedByMax = lhs.shiftedByMax && rhs.shiftedByMax;
  result.rowHoldsOne = lhs.rowHoldsOne && rhs.rowHoldsOne;
  result.growths = std::max(lhs.growths, rhs.growths);
  return result;
}

FloatRange FloatRange::join(const FloatRange &lhs, const FloatRange &rhs) {
  if (lhs.isUninitialized() || rhs.isUninitialized())
    return either(lhs, rhs);
  FloatRange result = either(lhs, rhs);
  if (result == lhs)
    return lhs;
  // A loop that grows a value on every iteration: after a few growths the
  // bounds that grew go to infinity.
  bool grew = !(result.bounds == lhs.bounds) || !(result.reach == lhs.reach);
  if (grew && !lhs.bounds.isEmpty() && ++result.growths > kGrowthsBeforeWidening) {
    if (result.bounds.lo < lhs.bounds.lo)
      result.bounds.lo = -kInf;
    if (result.bounds.hi > lhs.bounds.hi)
      result.bounds.hi = kInf;
    if (result.reach.lo < lhs.reach.lo)
      result.reach.lo = -kInf;
    if (result.reach.hi > lhs.reach.hi)
      result.reach.hi = kInf;
  }
  return result;
}

bool FloatRange::operator==(const FloatRange &rhs) const {
  if (initialized != rhs.initialized)
    return false;
  if (!initialized)
    return true;
  return bounds == rhs.bounds && reach == rhs.reach &&
         mayBeInf == rhs.mayBeInf && mayBeNaN == rhs.mayBeNaN &&
         shiftedByMax == rhs.shiftedByMax && rowHoldsOne == rhs.rowHoldsOne &&
         source == rhs.source && growths == rhs.growths;
}

std::optional<double> mpt::findBoundBeyond(const FloatRange &range,
                                           double limit) {
  if (range.isUninitialized() || range.reach.isEmpty() ||
      range.bounds.magnitude() <= limit)
    return std::nullopt;
  // An infinite end is not a bound: the value may really be inf (which
  // converts to a low type exactly and computes the same in f32), or the
  // analysis lost track of it (a loop's widening, a division by an interval
  // holding 0); neither is a magnitude a bounded source pushes into it.
  auto beyond = [&](double bound) {
    return std::fabs(bound) > limit && !std::isinf(bound);
  };
  bool lo = beyond(range.reach.lo), hi = beyond(range.reach.hi);
  if (lo && (!hi || std::fabs(range.reach.lo) >= std::fabs(range.reach.hi)))
    return range.reach.lo;
  if (hi)
    return range.reach.hi;
  return std::nullopt;
}

std::string mpt::formatBound(double value) {
  if (std::isinf(value))
    return value > 0 ? "+inf" : "-inf";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format("%g", value);
  return text;
}

static void printInterval(const Interval &interval, llvm::raw_ostream &os) {
  if (interval.isEmpty()) {
    os << "empty";
    return;
  }
  os << "[" << formatBound(interval.lo) << ", " << formatBound(interval.hi)
     << "]";
}

void FloatRange::print(llvm::raw_ostream &os) const {
  if (isUninitialized()) {
    os << "<uninitialized>";
    return;
  }
  printInterval(bounds, os);
  if (!(reach == bounds)) {
    os << " reach ";
    printInterval(reach, os);
  }
  if (mayBeInf)
    os << " may-be-inf";
  if (mayBeNaN)
    os << " may-be-nan";
}

//===----------------------------------------------------------------------===//
// Transfer functions on ranges
//===----------------------------------------------------------------------===//

namespace {
/// Applies an interval function to bounds and reach.
template <typename F>
FloatRange unary(const FloatRange &a, F f, bool inf, bool nan) {
  return FloatRange(f(a.bounds), f(a.reach), a.mayBeInf || inf,
                    a.mayBeNaN || nan, a.source);
}

template <typename F>
FloatRange binary(const FloatRange &a, const FloatRange &b, F f, bool inf,
                  bool nan) {
  return FloatRange(f(a.bounds, b.bounds), f(a.reach, b.reach),
                    a.mayBeInf || b.mayBeInf || inf,
                    a.mayBeNaN || b.mayBeNaN || nan, largerSource(a, b));
}

/// max/min clip: the result's largest end comes from one operand (a
/// max-reduction's -inf start gives none of its bounds).
template <typename F>
FloatRange clipRanges(const FloatRange &a, const FloatRange &b, F f) {
  FloatRange result = binary(a, b, f, false, false);
  const Interval &r = result.reach;
  if (r.isEmpty())
    return result;
  bool fromLo = std::fabs(r.lo) >= std::fabs(r.hi);
  bool fromA = fromLo ? r.lo == a.reach.lo : r.hi == a.reach.hi;
  const FloatRange &provider = fromA ? a : b;
  // Both give that end: the larger-source rule decides.
  bool both = fromLo ? r.lo == b.reach.lo : r.hi == b.reach.hi;
  result.source = fromA && both ? largerSource(a, b) : provider.source;
  return result;
}

FloatRange addRanges(const FloatRange &a, const FloatRange &b) {
  return binary(a, b, add, false, a.mayBeInf && b.mayBeInf);
}

FloatRange subRanges(const FloatRange &a, const FloatRange &b) {
  return binary(a, b, sub, false, a.mayBeInf && b.mayBeInf);
}

FloatRange mulRanges(const FloatRange &a, const FloatRange &b) {
  bool nan = (a.mayBeInf && b.bounds.contains(0.0)) ||
             (b.mayBeInf && a.bounds.contains(0.0));
  return binary(a, b, mul, false, nan);
}

FloatRange divRanges(const FloatRange &a, const FloatRange &b) {
  bool zeroDivisor = b.bounds.contains(0.0);
  bool nan = (zeroDivisor && a.bounds.contains(0.0)) ||
             (a.mayBeInf && b.mayBeInf);
  FloatRange result = binary(a, b, div, zeroDivisor, nan);
  // Dividing by a bounded source scales the other operand: the reach keeps
  // the dividend's source.
  result.source = a.source ? a.source : b.source;
  return result;
}

FloatRange expRange(const FloatRange &a) {
  FloatRange result = unary(
      a, [](Interval i) { return monotone(i, [](double x) { return std::exp(x); }); },
      a.bounds.hi > kExpOverflow, false);
  result.rowHoldsOne = a.shiftedByMax;
  return result;
}

FloatRange logRange(const FloatRange &a) {
  auto f = [](Interval i) {
    return monotone(nonNegativePart(i), [](double x) { return std::log(x); });
  };
  return unary(a, f, a.bounds.lo <= 0.0, a.bounds.lo < 0.0);
}

FloatRange sqrtRange(const FloatRange &a) {
  auto f = [](Interval i) {
    return monotone(nonNegativePart(i), [](double x) { return std::sqrt(x); });
  };
  return unary(a, f, false, a.bounds.lo < 0.0);
}

FloatRange rsqrtRange(const FloatRange &a) {
  auto f = [](Interval i) {
    Interval root =
        monotone(nonNegativePart(i), [](double x) { return std::sqrt(x); });
    if (root.isEmpty())
      return root;
    return Interval{1.0 / root.hi, 1.0 / root.lo};
  };
  return unary(a, f, a.bounds.lo <= 0.0, a.bounds.lo < 0.0);
}

FloatRange boundedBy(const FloatRange &a, Interval limit,
                     double (*f)(double)) {
  auto g = [&](Interval i) {
    Interval r = f ? monotone(i, f) : i;
    return r.isEmpty() ? r : intersect(r, limit);
  };
  FloatRange result = unary(a, g, false, false);
  result.mayBeInf = false;
  return result;
}

FloatRange sigmoidRange(const FloatRange &a) {
  return boundedBy(a, {0.0, 1.0},
                   [](double x) { return 1.0 / (1.0 + std::exp(-x)); });
}

/// The range of an int-to-float conversion of `value` (sitofp / uitofp).
FloatRange intToFloat(Value value, bool isUnsigned) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return FloatRange::bounded(
        Interval::point(isUnsigned ? constant.getZExtValue()
                                   : constant.getSExtValue()),
        value);
  Type element = getElementTypeOrSelf(value.getType());
  unsigned width = element.isIndex() ? 64 : element.getIntOrFloatBitWidth();
  Interval bounds =
      isUnsigned ? Interval{0.0, std::ldexp(1.0, width) - 1.0}
                 : Interval{-std::ldexp(1.0, width - 1),
                            std::ldexp(1.0, width - 1) - 1.0};
  if (width == 1)
    return FloatRange(bounds, bounds, false, false);
  // Labels and indices: nothing is known about their size.
  return FloatRange(bounds, intersect(bounds, {-1.0, 1.0}), false, false);
}

/// The range of a float constant attribute (scalar or elements).
std::optional<FloatRange> constantRange(Attribute attr, Value value) {
  Interval interval = Interval::empty();
  bool nan = false;
  auto addValue = [&](const APFloat &v) {
    if (v.isNaN()) {
      nan = true;
      return;
    }
    interval = hull(interval, Interval::point(v.convertToDouble()));
  };
  if (auto floatAttr = dyn_cast<FloatAttr>(attr)) {
    addValue(floatAttr.getValue());
  } else if (auto dense = dyn_cast<DenseFPElementsAttr>(attr)) {
    if (dense.isSplat())
      addValue(dense.getSplatValue<APFloat>());
    else
      for (const APFloat &v : dense.getValues<APFloat>())
        addValue(v);
  } else {
    return std::nullopt;
  }
  FloatRange range = FloatRange::bounded(interval, value);
  range.mayBeNaN = nan;
  return range;
}

/// Whether `type` holds floats (a float scalar or a tensor of floats).
bool isFloatLike(Type type) {
  return isa<FloatType>(getElementTypeOrSelf(type));
}

/// Through data movement that keeps the values (reshapes, broadcasts).
Value skipReshapes(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::CastOp,
            linalg::BroadcastOp>(def)) {
      value = def->getOperand(0);
      continue;
    }
    break;
  }
  return value;
}

/// The reduction combiner of a linalg op's result `index`: the body op
/// that combines the accumulator with a term, and the term.
struct Combiner {
  Operation *op = nullptr;
  Value term;
};

std::optional<Combiner> getCombiner(linalg::LinalgOp op, unsigned index) {
  Block *body = op.getBlock();
  if (!body || body->getNumArguments() != op->getNumOperands())
    return std::nullopt;
  Value acc = body->getArgument(op.getNumDpsInputs() + index);
  Value yielded = body->getTerminator()->getOperand(index);
  Operation *def = yielded.getDefiningOp();
  if (!def || def->getNumOperands() != 2 || def->getBlock() != body)
    return std::nullopt;
  if (def->getOperand(0) == acc)
    return Combiner{def, def->getOperand(1)};
  if (def->getOperand(1) == acc)
    return Combiner{def, def->getOperand(0)};
  return std::nullopt;
}

/// Whether `m` is a max-reduction of `x` (a row maximum); also one result
/// of a reduction that computes more (torch-mlir's max with its argmax).
bool isMaxReductionOf(Value m, Value x) {
  auto result = dyn_cast<OpResult>(skipReshapes(m));
  if (!result)
    return false;
  Operation *def = result.getOwner();
  if (def->getName().getStringRef() == "tosa.reduce_max")
    return def->getOperand(0) == x;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(def);
  if (!linalgOp || linalgOp.getNumReductionLoops() == 0 ||
      linalgOp.getNumDpsInputs() != 1 || linalgOp.getDpsInputs()[0] != x)
    return false;
  std::optional<Combiner> combiner =
      getCombiner(linalgOp, result.getResultNumber());
  return combiner &&
         isa<arith::MaximumFOp, arith::MaxNumFOp>(combiner->op) &&
         combiner->term == linalgOp.getBlock()->getArgument(0);
}

/// The tensor operand a body block argument of `op` stands for.
Value getOperandOfArgument(linalg::LinalgOp op, BlockArgument arg) {
  if (arg.getOwner() != op.getBlock())
    return nullptr;
  unsigned index = arg.getArgNumber();
  if (index < op->getNumOperands())
    return op->getOperand(index);
  return nullptr;
}
} // namespace

//===----------------------------------------------------------------------===//
// FloatRangeAnalysis
//===----------------------------------------------------------------------===//

/// The range a value starts from: a function argument's `mpt.range`, the
/// loss scale's initial value, or unbounded (also every other block argument).
static FloatRange getEntryRange(Value value) {
  FloatRange range = FloatRange::unbounded();
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
    if (func && arg.getOwner()->isEntryBlock()) {
      unsigned index = arg.getArgNumber();
      if (auto bounds = func.getArgAttrOfType<ArrayAttr>(
              index, MPTDialect::kRangeAttrName);
          bounds && bounds.size() == 2) {
        auto number = [](Attribute attr) {
          if (auto f = dyn_cast<FloatAttr>(attr))
            return f.getValueAsDouble();
          return static_cast<double>(cast<IntegerAttr>(attr).getInt());
        };
        range = FloatRange::bounded({number(bounds[0]), number(bounds[1])},
                                    value);
      } else if (getArgRole(func, index) == ArgRole::LossScale) {
        // The scale is positive and finite; the step starts from its
        // initial value (dynamic scaling grows it only after clean steps
        // and backs off on overflow, as GradScaler).
        double initial = 65536.0;
        Attribute attr =
            func.getArgAttr(index, MPTDialect::kInitialValueAttrName);
        if (auto f = dyn_cast_or_null<FloatAttr>(attr))
          initial = f.getValueAsDouble();
        else if (auto i = dyn_cast_or_null<IntegerAttr>(attr))
          initial = static_cast<double>(i.getInt());
        range = FloatRange(
            {0.0, static_cast<double>(std::numeric_limits<float>::max())},
            {0.0, initial}, false, false, value);
      }
    }
  }
  return range;
}

void FloatRangeAnalysis::setToEntryState(FloatRangeLattice *lattice) {
  propagateIfChanged(lattice, lattice->join(getEntryRange(lattice->getAnchor())));
}

FloatRange FloatRangeAnalysis::getRangeFor(Operation *op, Value value) {
  const FloatRangeLattice *lattice =
      getLatticeElementFor(getProgramPointAfter(op), value);
  if (lattice->getValue().isUninitialized())
    return FloatRange::unbounded();
  return lattice->getValue();
}

namespace {
/// Interprets one scalar op of a linalg body (or an elementwise op on
/// tensors) on the ranges of its operands. Returns nullopt for ops it does
/// not know.
std::optional<FloatRange> interpret(Operation *op,
                                    ArrayRef<FloatRange> operands) {
  auto at = [&](unsigned i) -> const FloatRange & { return operands[i]; };
  return llvm::TypeSwitch<Operation *, std::optional<FloatRange>>(op)
      .Case<arith::AddFOp>([&](auto) { return addRanges(at(0), at(1)); })
      .Case<arith::SubFOp>([&](auto) { return subRanges(at(0), at(1)); })
      .Case<arith::MulFOp>([&](auto mul) {
        if (mul.getLhs() == mul.getRhs())
          return unary(at(0), square, false, false);
        return mulRanges(at(0), at(1));
      })
      .Case<arith::DivFOp>([&](auto) { return divRanges(at(0), at(1)); })
      .Case<arith::NegFOp>([&](auto) {
        return unary(at(0), neg, false, false);
      })
      .Case<arith::MaximumFOp, arith::MaxNumFOp>([&](auto) {
        return clipRanges(at(0), at(1), maxOf);
      })
      .Case<arith::MinimumFOp, arith::MinNumFOp>([&](auto) {
        return clipRanges(at(0), at(1), minOf);
      })
      .Case<arith::SelectOp>([&](auto) {
        return FloatRange::either(at(1), at(2));
      })
      .Case<arith::ExtFOp, arith::TruncFOp>([&](auto) { return at(0); })
      .Case<arith::SIToFPOp>(
          [&](auto o) { return intToFloat(o.getIn(), false); })
      .Case<arith::UIToFPOp>(
          [&](auto o) { return intToFloat(o.getIn(), true); })
      .Case<math::ExpOp>([&](auto) { return expRange(at(0)); })
      .Case<math::Exp2Op>([&](auto) {
        return unary(
            at(0),
            [](Interval i) {
              return monotone(i, [](double x) { return std::exp2(x); });
            },
            at(0).bounds.hi > 128.0, false);
      })
      .Case<math::LogOp>([&](auto) { return logRange(at(0)); })
      .Case<math::Log1pOp>([&](auto) {
        FloatRange shifted = addRanges(at(0), FloatRange::bounded(
                                                  Interval::point(1.0), {}));
        return logRange(shifted);
      })
      .Case<math::SqrtOp>([&](auto) { return sqrtRange(at(0)); })
      .Case<math::RsqrtOp>([&](auto) { return rsqrtRange(at(0)); })
      .Case<math::AbsFOp>([&](auto) { return unary(at(0), absOf, false, false); })
      .Case<math::TanhOp>([&](auto) {
        return boundedBy(at(0), {-1.0, 1.0},
                         [](double x) { return std::tanh(x); });
      })
      .Case<math::ErfOp>([&](auto) {
        return boundedBy(at(0), {-1.0, 1.0},
                         [](double x) { return std::erf(x); });
      })
      .Case<math::SinOp, math::CosOp>([&](auto) {
        return boundedBy(at(0), {-1.0, 1.0}, nullptr);
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// The range of a body value (or a value a body captures).
using BodyRanges = llvm::DenseMap<Value, FloatRange>;

/// The range of a value an op reads other than through its operands (a
/// linalg body's capture, a pad's value): unbounded while unknown.
using RangeReader = llvm::function_ref<FloatRange(Value)>;

/// The range of result `resultIndex` of linalg op `op`, whose operands
/// have the ranges `operands` (uninitialized ones read as unbounded).
FloatRange visitLinalg(Operation *op, unsigned resultIndex,
                       ArrayRef<FloatRange> operands, RangeReader read) {
  auto linalgOp = cast<linalg::LinalgOp>(op);
  Block *body = linalgOp.getBlock();
  if (!body)
    return FloatRange::unbounded();
  auto operandRange = [&](unsigned i) {
    const FloatRange &range = operands[i];
    return range.isUninitialized() ? FloatRange::unbounded() : range;
  };

  // Body arguments: the inputs' element ranges (and the inits').
  BodyRanges ranges;
  unsigned numArgs = body->getNumArguments();
  if (numArgs != op->getNumOperands() && numArgs != linalgOp.getNumDpsInputs())
    return FloatRange::unbounded();
  for (unsigned i = 0; i < numArgs; ++i)
    ranges[body->getArgument(i)] = operandRange(i);

  auto rangeOf = [&](Value value) -> FloatRange {
    auto it = ranges.find(value);
    if (it != ranges.end())
      return it->second;
    if (!isFloatLike(value.getType()))
      return FloatRange::unbounded();
    FloatRange range = read(value);
    ranges[value] = range;
    return range;
  };

  for (Operation &bodyOp : body->without_terminator()) {
    if (bodyOp.getNumResults() != 1 ||
        !isFloatLike(bodyOp.getResult(0).getType()))
      continue;
    SmallVector<FloatRange> args;
    for (Value operand : bodyOp.getOperands())
      args.push_back(isFloatLike(operand.getType()) ? rangeOf(operand)
                                                    : FloatRange::unbounded());
    std::optional<FloatRange> result;
    if (auto constant = dyn_cast<arith::ConstantOp>(bodyOp))
      result = constantRange(constant.getValue(), constant.getResult());
    else
      result = interpret(&bodyOp, args);
    if (!result) {
      // An op mpt has no transfer function for: unbounded, but what its
      // operands reach still reaches it.
      FloatRange unknown = FloatRange::unbounded();
      for (const FloatRange &arg : args)
        unknown.reach = hull(unknown.reach, arg.reach);
      result = unknown;
    }
    // x - max(x): the operands stand for a tensor and its row maximum.
    if (auto subOp = dyn_cast<arith::SubFOp>(bodyOp)) {
      auto lhs = dyn_cast<BlockArgument>(subOp.getLhs());
      auto rhs = dyn_cast<BlockArgument>(subOp.getRhs());
      if (lhs && rhs) {
        Value x = getOperandOfArgument(linalgOp, lhs);
        Value m = getOperandOfArgument(linalgOp, rhs);
        if (x && m && isMaxReductionOf(m, x)) {
          result->bounds.hi = std::min(result->bounds.hi, 0.0);
          result->reach.hi = std::min(result->reach.hi, 0.0);
          result->shiftedByMax = true;
        }
      }
    }
    ranges[bodyOp.getResult(0)] = *result;
  }

  Value yielded = body->getTerminator()->getOperand(resultIndex);
  FloatRange term = rangeOf(yielded);
  if (linalgOp.getNumReductionLoops() == 0 || isa<linalg::MapOp>(op))
    return term;

  // A reduction: its init combined with the term over the reduced extent.
  FloatRange init = operandRange(linalgOp.getNumDpsInputs() + resultIndex);
  double extent = 1.0;
  SmallVector<int64_t> loopRanges = linalgOp.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators =
      linalgOp.getIteratorTypesArray();
  for (auto [size, iterator] : llvm::zip(loopRanges, iterators))
    if (iterator == utils::IteratorType::reduction)
      extent *= ShapedType::isDynamic(size) ? kInf : static_cast<double>(size);
  std::optional<Combiner> combiner = getCombiner(linalgOp, resultIndex);
  if (!combiner) {
    if (yielded ==
        body->getArgument(linalgOp.getNumDpsInputs() + resultIndex))
      return init;
    // The result is one iteration's value unless it depends on the
    // accumulator in a way mpt does not know.
    FloatRange unknown = FloatRange::unbounded();
    unknown.reach = hull(init.reach, term.reach);
    unknown.source = largerSource(init, term);
    return unknown;
  }
  FloatRange t = rangeOf(combiner->term);
  if (isa<arith::MaximumFOp, arith::MaxNumFOp>(combiner->op)) {
    FloatRange result = clipRanges(init, t, maxOf);
    // With a non-empty extent the init's -inf is replaced by a term.
    result.mayBeInf = t.mayBeInf || (init.mayBeInf && init.bounds.hi == kInf);
    return result;
  }
  if (isa<arith::MinimumFOp, arith::MinNumFOp>(combiner->op)) {
    FloatRange result = clipRanges(init, t, minOf);
    result.mayBeInf = t.mayBeInf || (init.mayBeInf && init.bounds.lo == -kInf);
    return result;
  }
  if (isa<arith::AddFOp>(combiner->op)) {
    Interval sum = add(init.bounds, times(t.bounds, extent));
    // Terms mpt knows nothing about are taken not to grow their sum: their
    // reach is an order of magnitude, not a bound.
    Interval reach = t.bounds.isBounded()
                         ? add(init.reach, times(t.reach, extent))
                         : add(init.reach, t.reach);
    if (t.rowHoldsOne && t.bounds.lo >= 0.0 && !std::isinf(extent)) {
      // A sum of exp(x - max(x)) over the row holds the 1 of the maximum.
      sum.lo = std::max(sum.lo, init.bounds.lo + 1.0);
      reach.lo = std::max(reach.lo, init.reach.lo + 1.0);
    }
    return FloatRange(sum, reach, init.mayBeInf || t.mayBeInf,
                      init.mayBeNaN || t.mayBeNaN ||
                          (init.mayBeInf && t.mayBeInf),
                      largerSource(t, init));
  }
  FloatRange unknown = FloatRange::unbounded();
  unknown.reach = hull(init.reach, t.reach);
  unknown.source = largerSource(init, t);
  return unknown;
}

/// TOSA elementwise ops, by name: the arith/math op they compute.
std::optional<FloatRange> interpretTosa(Operation *op,
                                        ArrayRef<FloatRange> operands) {
  StringRef name = op->getName().getStringRef();
  if (!name.consume_front("tosa."))
    return std::nullopt;
  auto at = [&](unsigned i) -> const FloatRange & { return operands[i]; };
  if (name == "add")
    return addRanges(at(0), at(1));
  if (name == "sub")
    return subRanges(at(0), at(1));
  if (name == "mul")
    return mulRanges(at(0), at(1));
  if (name == "maximum")
    return clipRanges(at(0), at(1), maxOf);
  if (name == "minimum")
    return clipRanges(at(0), at(1), minOf);
  if (name == "negate")
    return unary(at(0), neg, false, false);
  if (name == "abs")
    return unary(at(0), absOf, false, false);
  if (name == "exp")
    return expRange(at(0));
  if (name == "log")
    return logRange(at(0));
  if (name == "rsqrt")
    return rsqrtRange(at(0));
  if (name == "reciprocal")
    return unary(at(0), reciprocal, at(0).bounds.contains(0.0), false);
  if (name == "tanh")
    return boundedBy(at(0), {-1.0, 1.0}, [](double x) { return std::tanh(x); });
  if (name == "sigmoid")
    return sigmoidRange(at(0));
  if (name == "select")
    return FloatRange::either(at(1), at(2));
  if (name == "reduce_max" || name == "reduce_min")
    return at(0);
  if (name == "reduce_sum") {
    auto axis = op->getAttrOfType<IntegerAttr>("axis");
    auto type = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    double extent = kInf;
    if (axis && type && !type.isDynamicDim(axis.getInt()))
      extent = type.getDimSize(axis.getInt());
    Interval reach = at(0).bounds.isBounded() ? times(at(0).reach, extent)
                                              : at(0).reach;
    return FloatRange(times(at(0).bounds, extent), reach, at(0).mayBeInf,
                      at(0).mayBeNaN, at(0).source);
  }
  if (name == "matmul") {
    auto type = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    double extent = type && !type.isDynamicDim(2) ? type.getDimSize(2) : kInf;
    FloatRange product = mulRanges(at(0), at(1));
    Interval reach = product.bounds.isBounded()
                         ? times(product.reach, extent)
                         : product.reach;
    product.bounds = times(product.bounds, extent);
    product.reach = reach;
    return product;
  }
  if (name == "cast")
    return isFloatLike(op->getOperand(0).getType())
               ? std::optional<FloatRange>(at(0))
               : std::nullopt;
  // Data movement: the values of the float operands.
  if (name == "reshape" || name == "transpose" || name == "slice" ||
      name == "tile" || name == "concat" || name == "identity" ||
      name == "reverse" || name == "pad") {
    std::optional<FloatRange> joined;
    for (auto [operand, range] : llvm::zip(op->getOperands(), operands))
      if (isFloatLike(operand.getType()))
        joined = joined ? FloatRange::either(*joined, range) : range;
    return joined;
  }
  return std::nullopt;
}
} // namespace

namespace {
/// The transfer function of `op` (not an op of a linalg body): the ranges
/// of its results, into `results`, from `operands` (its operands' ranges,
/// maybe uninitialized) and what `read` gives for the values it reads
/// otherwise. False while a float operand is uninitialized.
bool transfer(Operation *op, ArrayRef<FloatRange> operands, RangeReader read,
              SmallVectorImpl<FloatRange> &results) {
  // Wait for every float operand.
  SmallVector<FloatRange> ranges;
  for (auto [operand, range] : llvm::zip(op->getOperands(), operands)) {
    if (!isFloatLike(operand.getType())) {
      ranges.push_back(FloatRange::unbounded());
      continue;
    }
    if (range.isUninitialized())
      return false;
    ranges.push_back(range);
  }
  results.assign(op->getNumResults(), FloatRange());
  auto set = [&](unsigned index, const FloatRange &range) {
    results[index] = range;
  };
  auto joinedFloatOperands = [&]() {
    FloatRange joined = FloatRange::empty();
    for (auto [operand, range] : llvm::zip(op->getOperands(), ranges))
      if (isFloatLike(operand.getType()))
        joined = FloatRange::either(joined, range);
    return joined;
  };

  for (auto [index, result] : llvm::enumerate(op->getResults())) {
    if (!isFloatLike(result.getType())) {
      set(index, FloatRange::unbounded());
      continue;
    }
    Attribute attr;
    if (op->hasTrait<OpTrait::ConstantLike>() &&
        matchPattern(result, m_Constant(&attr))) {
      std::optional<FloatRange> range = constantRange(attr, result);
      set(index, range ? *range : FloatRange::unbounded());
      continue;
    }
    if (isa<tensor::EmptyOp>(op)) {
      set(index, FloatRange::empty());
      continue;
    }
    if (isa<GradSeedOp>(op)) {
      // dL/dL: ones.
      set(index, FloatRange::bounded(Interval::point(1.0), result));
      continue;
    }
    if (isa<GradientOp>(op)) {
      set(index, ranges[0]);
      continue;
    }
    if (isa<ScaleOp>(op)) {
      set(index, mulRanges(ranges[0], ranges[1]));
      continue;
    }
    if (isa<linalg::SoftmaxOp>(op)) {
      FloatRange input = ranges[0];
      set(index, FloatRange({0.0, 1.0}, {0.0, 1.0}, false,
                            input.mayBeNaN || input.mayBeInf));
      continue;
    }
    if (isa<linalg::LinalgOp>(op)) {
      set(index, visitLinalg(op, index, operands, read));
      continue;
    }
    // Data movement: the values of the float operands (a destination's
    // contents included: insert_slice, pad).
    if (isa<tensor::ExtractSliceOp, tensor::InsertSliceOp,
            tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::CastOp,
            tensor::ReshapeOp, tensor::ExtractOp, tensor::InsertOp,
            tensor::FromElementsOp, tensor::SplatOp, tensor::ConcatOp>(op)) {
      set(index, joinedFloatOperands());
      continue;
    }
    if (auto pad = dyn_cast<tensor::PadOp>(op)) {
      FloatRange padValue = FloatRange::unbounded();
      if (Value constant = pad.getConstantPaddingValue())
        padValue = read(constant);
      set(index, FloatRange::either(ranges[0], padValue));
      continue;
    }
    std::optional<FloatRange> range = interpret(op, ranges);
    if (!range)
      range = interpretTosa(op, ranges);
    if (!range) {
      // Unknown op: unbounded; what its operands reach still reaches it.
      FloatRange unknown = FloatRange::unbounded();
      FloatRange joined = joinedFloatOperands();
      if (!joined.reach.isEmpty()) {
        unknown.reach = hull(unknown.reach, joined.reach);
        unknown.source = joined.source;
      }
      range = unknown;
    }
    set(index, *range);
  }
  return true;
}
} // namespace

LogicalResult FloatRangeAnalysis::visitOperation(
    Operation *op, ArrayRef<const FloatRangeLattice *> operands,
    ArrayRef<FloatRangeLattice *> results) {
  // The ops of linalg bodies are interpreted with their op.
  if (isa_and_nonnull<linalg::LinalgOp>(op->getParentOp())) {
    setAllToEntryStates(results);
    return success();
  }
  SmallVector<FloatRange> operandRanges, resultRanges;
  for (const FloatRangeLattice *lattice : operands)
    operandRanges.push_back(lattice->getValue());
  if (!transfer(op, operandRanges,
                [&](Value value) { return getRangeFor(op, value); },
                resultRanges))
    return success();
  for (auto [lattice, range] : llvm::zip(results, resultRanges))
    propagateIfChanged(lattice, lattice->join(range));
  return success();
}

//===----------------------------------------------------------------------===//
// FloatRanges
//===----------------------------------------------------------------------===//

/// The block of `func` when the solver's fixpoint is one forward sweep over
/// it: `func` has one block without successors, calls or region control
/// flow, and the only regions in it are linalg bodies of ops without
/// regions (interpreted with their op, which every solver visit of a body
/// op leaves unbounded) and tensor.pad bodies that only yield (their value
/// comes from above: a pad value computed in the body would reach the pad
/// only on the solver's second visit, joined with the first). Each value is
/// then defined before its uses and every block is live, so the solver
/// visits each op once with its operands' final ranges. Null otherwise.
static Block *getSweepableBlock(Operation *func) {
  if (func->getNumRegions() != 1 || !func->getRegion(0).hasOneBlock())
    return nullptr;
  // Ops the sparse framework gives results without the transfer function.
  auto isControlFlow = [](Operation &op) {
    return op.getNumSuccessors() != 0 ||
           isa<RegionBranchOpInterface, CallOpInterface>(op);
  };
  Block *block = &func->getRegion(0).front();
  for (Operation &op : *block) {
    if (isControlFlow(op))
      return nullptr;
    if (op.getNumRegions() == 0)
      continue;
    if (auto pad = dyn_cast<tensor::PadOp>(op)) {
      if (!pad.getRegion().hasOneBlock() ||
          pad.getRegion().front().getOperations().size() != 1)
        return nullptr;
      continue;
    }
    if (!isa<linalg::LinalgOp>(op))
      return nullptr;
    for (Region &region : op.getRegions()) {
      if (!region.hasOneBlock())
        return nullptr;
      for (Operation &bodyOp : region.front())
        if (bodyOp.getNumRegions() != 0 || isControlFlow(bodyOp))
          return nullptr;
    }
  }
  return block;
}

FloatRanges::FloatRanges(Operation *func, bool alwaysSolve) {
  if (Block *block = alwaysSolve ? nullptr : getSweepableBlock(func)) {
    sweep(block);
    return;
  }
  solver = std::make_unique<DataFlowSolver>();
  loadBaselineAnalyses(*solver);
  solver->load<FloatRangeAnalysis>();
  // A failure means an analysis could not run; lookup() then finds no
  // state and callers treat values as unknown.
  (void)solver->initializeAndRun(func);
}

FloatRanges::~FloatRanges() = default;

void FloatRanges::sweep(Block *block) {
  sweptBlock = block;
  swept.reserve(block->getNumArguments() + block->getOperations().size());
  for (BlockArgument arg : block->getArguments())
    swept[arg] = getEntryRange(arg);
  // What the solver's lattices hold: uninitialized until set, the body
  // values of a linalg op unbounded.
  auto stateOf = [&](Value value) {
    auto it = swept.find(value);
    if (it != swept.end())
      return it->second;
    return isInLinalgBody(value) ? FloatRange::unbounded() : FloatRange();
  };
  SmallVector<FloatRange> operands, results;
  for (Operation &op : *block) {
    if (op.getNumResults() == 0)
      continue;
    operands.clear();
    for (Value operand : op.getOperands())
      operands.push_back(stateOf(operand));
    auto read = [&](Value value) {
      FloatRange range = stateOf(value);
      return range.isUninitialized() ? FloatRange::unbounded() : range;
    };
    if (!transfer(&op, operands, read, results))
      continue;
    for (auto [result, range] : llvm::zip(op.getResults(), results))
      swept[result] = range;
  }
}

bool FloatRanges::isInLinalgBody(Value value) const {
  Block *block = value.getParentBlock();
  Operation *parent = block ? block->getParentOp() : nullptr;
  return parent && parent->getBlock() == sweptBlock &&
         isa<linalg::LinalgOp>(parent);
}

const FloatRange *FloatRanges::lookup(Value value) const {
  if (!isFloatLike(value.getType()))
    return nullptr;
  if (!solver) {
    auto it = swept.find(value);
    if (it != swept.end())
      return it->second.isUninitialized() ? nullptr : &it->second;
    return isInLinalgBody(value) ? &unboundedBodyValue : nullptr;
  }
  const FloatRangeLattice *lattice =
      solver->lookupState<FloatRangeLattice>(value);
  if (!lattice || lattice->getValue().isUninitialized())
    return nullptr;
  return &lattice->getValue();
}

std::string FloatRanges::describeValue(Value value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Operation *parent = arg.getOwner()->getParentOp();
    if (isa<FunctionOpInterface>(parent) && arg.getOwner()->isEntryBlock())
      os << "argument #" << arg.getArgNumber();
    else
      os << "block argument #" << arg.getArgNumber() << " of "
         << parent->getName() << " at " << formatLocation(parent->getLoc());
    return text;
  }
  Operation *def = value.getDefiningOp();
  os << def->getName() << " at " << formatLocation(def->getLoc());
  if (def->getNumResults() > 1)
    os << " (result #" << cast<OpResult>(value).getResultNumber() << ")";
  return text;
}

bool FloatRanges::isLossScale(Value source) {
  auto arg = dyn_cast_or_null<BlockArgument>(source);
  if (!arg || !arg.getOwner()->isEntryBlock())
    return false;
  auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  return func && getArgRole(func, arg.getArgNumber()) == ArgRole::LossScale;
}

std::string FloatRanges::describeSource(const FloatRange &range) {
  if (!range.source)
    return "";
  Value source = range.source;
  if (isLossScale(source))
    return "the loss scale (" + describeValue(source) + ", its initial value)";
  if (auto arg = dyn_cast<BlockArgument>(source)) {
    auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
    if (func && arg.getOwner()->isEntryBlock())
      return describeValue(source) + " (mpt.range)";
  }
  if (isa_and_nonnull<GradSeedOp>(source.getDefiningOp()))
    return "the backward seed (" + describeValue(source) + ")";
  return describeValue(source);
}
