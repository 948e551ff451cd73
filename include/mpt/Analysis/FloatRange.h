//===- FloatRange.h - value ranges of the float values of a step -*- C++ -*-===//
//
// A sparse forward dataflow analysis on the upstream DataFlowFramework (the
// way IntegerRangeAnalysis does integers): for every float value (scalar or
// tensor; a tensor's range covers all its elements) an interval, whether it
// may be inf or NaN, and what it reaches because of bounded sources.
//
// Two intervals are kept per value:
//  * `bounds`, sound: every element lies in it. Data arguments, parameters and
//    optimizer state are unbounded unless the user gives `mpt.range = [lo,
//    hi]` on the argument; the analysis never invents a bound for them.
//  * `reach`, what the value reaches when every unbounded input is of order
//    one ([-1, 1]) and accumulations of unbounded terms do not grow: the
//    magnitudes that constants, fills, masks, selects, user ranges and the
//    loss scale push into the value. A -1e9 mask added to unbounded logits
//    gives bounds [-inf, +inf] but reach [-1e9 - 1, 1]: autocast reads the
//    reach (an op goes low only where what it reads and writes reaches no
//    magnitude the low type cannot hold), the report prints both.
//
// `source` is the bounded source of the reach's largest magnitude (a
// constant, an argument with `mpt.range`, the loss scale).
//
//===----------------------------------------------------------------------===//
#ifndef MPT_ANALYSIS_FLOATRANGE_H
#define MPT_ANALYSIS_FLOATRANGE_H

#include "mlir/Analysis/DataFlow/SparseAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"
#include <limits>
#include <memory>
#include <optional>
#include <string>

namespace mpt {

/// A closed interval of doubles; bounds may be infinite. Empty when
/// lo > hi (the contents of a tensor.empty).
struct Interval {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();

  static Interval all() { return {}; }
  static Interval point(double v) { return {v, v}; }
  static Interval empty() {
    return {std::numeric_limits<double>::infinity(),
            -std::numeric_limits<double>::infinity()};
  }
  bool isEmpty() const { return lo > hi; }
  bool isBounded() const;
  bool contains(double v) const { return lo <= v && v <= hi; }
  /// The largest magnitude in the interval (0 when empty).
  double magnitude() const;
  bool operator==(const Interval &rhs) const {
    return (isEmpty() && rhs.isEmpty()) || (lo == rhs.lo && hi == rhs.hi);
  }
};

class FloatRange {
public:
  /// The uninitialized state of the dataflow lattice.
  FloatRange() = default;
  FloatRange(Interval bounds, Interval reach, bool mayBeInf, bool mayBeNaN,
             mlir::Value source = nullptr)
      : initialized(true), bounds(bounds), reach(reach), mayBeInf(mayBeInf),
        mayBeNaN(mayBeNaN), source(source) {}

  /// An input nothing is known about: unbounded, reach [-1, 1], finite.
  static FloatRange unbounded();
  /// A bounded source: `source` gives the interval to bounds and reach.
  static FloatRange bounded(Interval interval, mlir::Value source);
  /// No values (tensor.empty).
  static FloatRange empty();

  bool isUninitialized() const { return !initialized; }

  /// The lattice's join: the values of both, and a value that keeps growing
  /// (a loop's) widens to infinity after a few growths.
  static FloatRange join(const FloatRange &lhs, const FloatRange &rhs);
  /// The values of either, as one op's result (a select's, a concat's):
  /// not a growth. (Counted as one, an insert_slice into a loop's carried
  /// tensor grew on every visit and the analysis never ended.)
  static FloatRange either(const FloatRange &lhs, const FloatRange &rhs);
  bool operator==(const FloatRange &rhs) const;
  void print(llvm::raw_ostream &os) const;

  bool initialized = false;
  Interval bounds, reach;
  bool mayBeInf = false, mayBeNaN = false;
  /// x - max(x) along a row: <= 0 and every row holds a 0.
  bool shiftedByMax = false;
  /// exp(x - max(x)): in [0, 1] and every row holds a 1 (its sum is >= 1).
  bool rowHoldsOne = false;
  /// The bounded source of reach's largest magnitude; null for none.
  mlir::Value source;
  /// How often a join grew this value (loops): after a few growths the
  /// grown bounds widen to infinity so that the fixpoint is reached.
  unsigned growths = 0;
};

class FloatRangeLattice : public mlir::dataflow::Lattice<FloatRange> {
public:
  using Lattice::Lattice;
};

class FloatRangeAnalysis
    : public mlir::dataflow::SparseForwardDataFlowAnalysis<FloatRangeLattice> {
public:
  using SparseForwardDataFlowAnalysis::SparseForwardDataFlowAnalysis;

  /// Function arguments: their `mpt.range`, the loss scale's initial value,
  /// or unbounded.
  void setToEntryState(FloatRangeLattice *lattice) override;

  mlir::LogicalResult
  visitOperation(mlir::Operation *op,
                 llvm::ArrayRef<const FloatRangeLattice *> operands,
                 llvm::ArrayRef<FloatRangeLattice *> results) override;

private:
  /// The range of a value read inside `op` (a linalg body's capture).
  FloatRange getRangeFor(mlir::Operation *op, mlir::Value value);
};

/// The ranges of every float value of a function: an MLIR analysis
/// (getAnalysis<FloatRanges>() on a function). A function of one block
/// without control flow (a training step) is one forward sweep of the
/// transfer functions in program order, which is the fixpoint the solver
/// would reach; any other runs the dataflow solver (with the dead-code and
/// constant-propagation analyses) once. Linear in the size of a function
/// without loops.
class FloatRanges {
public:
  /// `alwaysSolve`: run the solver also where the sweep would do (to test
  /// the sweep against it).
  explicit FloatRanges(mlir::Operation *func, bool alwaysSolve = false);
  ~FloatRanges();

  /// The range of `value`, or null when it is not a float value or is in
  /// dead code.
  const FloatRange *lookup(mlir::Value value) const;

  /// "arith.constant at f.mlir:3:9", "argument #2 (mpt.range)", "the loss
  /// scale (argument #5, initial value 65536)": where a range's reach comes
  /// from; empty when it has no bounded source.
  static std::string describeSource(const FloatRange &range);
  /// Whether `source` is the step's loss-scale argument.
  static bool isLossScale(mlir::Value source);
  /// "the result of linalg.generic at f.mlir:3:9", "argument #2".
  static std::string describeValue(mlir::Value value);

private:
  void sweep(mlir::Block *block);
  /// Whether `value` is a value of a linalg body in the swept block.
  bool isInLinalgBody(mlir::Value value) const;

  /// The solver, when the function is not swept.
  std::unique_ptr<mlir::DataFlowSolver> solver;
  /// The swept block and the ranges of its values.
  mlir::Block *sweptBlock = nullptr;
  llvm::DenseMap<mlir::Value, FloatRange> swept;
  /// What a linalg body's values are to the solver.
  FloatRange unboundedBodyValue = FloatRange::unbounded();
};

/// The finite bound of `range`'s reach whose magnitude exceeds `limit`, if
/// any. Infinite ends are not counted: an infinity the value may really hold
/// converts to a low type exactly and computes the same in f32, and one the
/// analysis widened to is not a bound.
std::optional<double> findBoundBeyond(const FloatRange &range, double limit);

/// Formats a bound: "-1e+09", "+inf", "-inf".
std::string formatBound(double value);

} // namespace mpt

#endif // MPT_ANALYSIS_FLOATRANGE_H
