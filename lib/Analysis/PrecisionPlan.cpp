//===- PrecisionPlan.cpp - the precision autocast gives each op -----------===//
//
// 1. Classify each op: the user's lists, then (for linalg ops) structure and
//    body, then mpt's default lists.
// 2. Force FP32 where a training rule or a range fact says so.
// 3. Paint like TensorFlow grappler's auto_mixed_precision, on the graph of
//    ops linked by the operands whose type follows the consumer's precision:
//    a. deny taints forward through infer/clear ops that lie on a path from
//       a deny op to an infer or deny op;
//    b. infer/clear ops both downstream and upstream of allow ops (through
//       untainted infer/clear ops) become low;
//    c. low spreads through clear ops in both directions (from an allow
//       op only to its inputs: its result is f32).
// Every step is a breadth-first search: linear in ops + operands.
//
//===----------------------------------------------------------------------===//
#include "mpt/Analysis/PrecisionPlan.h"
#include "mpt/Analysis/FloatRange.h"
#include "mpt/Analysis/RegionFlow.h"
#include "mpt/Support/Report.h"
#include "mpt/IR/MPTDialect.h"
#include "mpt/IR/MPTOps.h"
#include "mpt/IR/TrainingContract.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Format.h"
#include <cmath>
#include <deque>

using namespace mlir;
using namespace mpt;

bool mpt::isFloatEqualityCompare(Operation *op) {
  auto compare = dyn_cast<arith::CmpFOp>(op);
  if (!compare)
    return false;
  arith::CmpFPredicate predicate = compare.getPredicate();
  return predicate == arith::CmpFPredicate::OEQ ||
         predicate == arith::CmpFPredicate::UEQ ||
         predicate == arith::CmpFPredicate::ONE ||
         predicate == arith::CmpFPredicate::UNE;
}

StringRef mpt::stringifyOpClass(OpClass opClass) {
  switch (opClass) {
  case OpClass::Allow:
    return "allow";
  case OpClass::Deny:
    return "deny";
  case OpClass::Infer:
    return "infer";
  case OpClass::Clear:
    return "clear";
  case OpClass::Reduction:
    return "reduction";
  case OpClass::Marker:
    return "marker";
  case OpClass::Unlisted:
    return "unlisted";
  case OpClass::ControlFlow:
    return "control-flow";
  case OpClass::NoF32Data:
    return "none";
  }
  llvm_unreachable("unknown class");
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The body block argument of `operand` of a linalg op, or null where the
/// op's body has none (the init of linalg.map).
static BlockArgument getBodyArgument(linalg::LinalgOp op, OpOperand *operand) {
  Block *body = op.getBlock();
  if (!body)
    return nullptr;
  unsigned index = operand->getOperandNumber();
  if (body->getNumArguments() == op->getNumOperands())
    return body->getArgument(index);
  if (index < body->getNumArguments() && index < op.getNumDpsInputs())
    return body->getArgument(index);
  return nullptr;
}

/// Whether `op` is an op of the mpt dialect: a training marker or a loss
/// scaling op (when loss scaling ran first). They work in f32.
static bool isMarker(Operation *op) {
  return isa<MPTDialect>(op->getDialect());
}

void PrecisionPlan::getPrecisionOperands(Operation *op, OpClass opClass,
                                         SmallVectorImpl<OpOperand *> &out) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  for (OpOperand &operand : op->getOpOperands()) {
    // f32 tensors, or low-precision ones on a second run.
    auto tensor = dyn_cast<TensorType>(operand.get().getType());
    if (!tensor || !isa<FloatType>(tensor.getElementType()))
      continue;
    if (linalgOp && linalgOp.isDpsInit(&operand)) {
      // An allow op keeps its FP32 accumulator; an init the body never
      // reads carries no data.
      if (opClass == OpClass::Allow)
        continue;
      BlockArgument arg = getBodyArgument(linalgOp, &operand);
      if (!arg || arg.use_empty())
        continue;
    }
    out.push_back(&operand);
  }
}

namespace {
/// The float type facts of an op's operands and results.
struct TypeFacts {
  bool f32Tensor = false, lowTensor = false, otherFloatTensor = false,
       intTensor = false, floatScalar = false;
  std::string otherFloatName;
};
} // namespace

static TypeFacts getTypeFacts(Operation *op, Type lowType) {
  TypeFacts facts;
  auto visit = [&](Type type) {
    if (auto tensor = dyn_cast<TensorType>(type)) {
      Type element = tensor.getElementType();
      // An unranked float tensor (a tensor.cast for printMemrefF32) is left
      // alone: the arith casts autocast places need ranked tensors.
      if (!tensor.hasRank() && isa<FloatType>(element)) {
        facts.otherFloatTensor = true;
        if (facts.otherFloatName.empty())
          facts.otherFloatName = "unranked";
        return;
      }
      if (element.isF32())
        facts.f32Tensor = true;
      else if (element == lowType)
        facts.lowTensor = true;
      else if (isa<FloatType>(element)) {
        facts.otherFloatTensor = true;
        llvm::raw_string_ostream os(facts.otherFloatName);
        if (facts.otherFloatName.empty())
          element.print(os);
      } else if (element.isIntOrIndex()) {
        facts.intTensor = true;
      }
    } else if (isa<FloatType>(type)) {
      facts.floatScalar = true;
    }
  };
  for (Type type : op->getOperandTypes())
    visit(type);
  for (Type type : op->getResultTypes())
    visit(type);
  return facts;
}

/// Whether `exp` computes a logistic sigmoid 1 / (1 + exp(-x)) whose result
/// is bounded in (0, 1): safe in low precision although exp is denied.
static bool isSigmoidExp(Operation *exp) {
  auto isOne = [](Value v) {
    FloatAttr attr;
    return matchPattern(v, m_Constant(&attr)) &&
           attr.getValueAsDouble() == 1.0;
  };
  if (!exp->hasOneUse())
    return false;
  auto add = dyn_cast<arith::AddFOp>(*exp->user_begin());
  if (!add || !(isOne(add.getLhs()) || isOne(add.getRhs())) ||
      !add->hasOneUse())
    return false;
  auto div = dyn_cast<arith::DivFOp>(*add->user_begin());
  return div && div.getRhs() == add.getResult() && isOne(div.getLhs());
}

/// Policy level promote: a deny op whose result is bounded, so that an
/// elementwise body computing it in f32 may read and write low precision
/// (erf in GELU: PyTorch runs gelu in low precision too). Elementwise only:
/// a reduction of it still accumulates in f32.
static bool isBoundedDenyOp(Operation *bodyOp, const PrecisionPolicy &policy) {
  if (policy.getLevel() != PolicyLevel::Promote)
    return false;
  auto linalgOp = bodyOp->getParentOfType<linalg::LinalgOp>();
  return linalgOp && linalgOp.getNumReductionLoops() == 0 &&
         isa<math::ErfOp, math::ErfcOp>(bodyOp);
}

/// Whether a body op only moves or compares data (no float arithmetic).
static bool isNeutralBodyOp(Operation *op) {
  if (isa<linalg::YieldOp, linalg::IndexOp, arith::ConstantOp,
          arith::ExtFOp, arith::TruncFOp>(op))
    return true;
  auto isFloat = [](Type t) { return isa<FloatType>(t); };
  return llvm::none_of(op->getOperandTypes(), isFloat) &&
         llvm::none_of(op->getResultTypes(), isFloat);
}

namespace {
struct Classification {
  OpClass opClass;
  std::string detail;
};
} // namespace

static OpClass classOfList(OpList list) {
  switch (list) {
  case OpList::Allow:
    return OpClass::Allow;
  case OpList::Deny:
    return OpClass::Deny;
  case OpList::Infer:
    return OpClass::Infer;
  case OpList::Clear:
    return OpClass::Clear;
  }
  llvm_unreachable("unknown list");
}

static Classification classifyLinalg(linalg::LinalgOp op,
                                     const PrecisionPolicy &policy) {
  if (linalg::isaContractionOpInterface(op))
    return {OpClass::Allow, "structure: contraction"};
  if (linalg::isaConvolutionOpInterface(op))
    return {OpClass::Allow, "structure: convolution"};
  Operation *unlisted = nullptr;
  Operation *denied = nullptr, *boundedDenied = nullptr;
  bool computes = false, onlyClear = true;
  op->walk([&](Operation *bodyOp) {
    if (bodyOp == op.getOperation() || isNeutralBodyOp(bodyOp))
      return;
    computes = true;
    std::optional<OpList> list = policy.lookup(bodyOp->getName().getStringRef());
    if (list == OpList::Deny && isBoundedDenyOp(bodyOp, policy)) {
      if (!boundedDenied)
        boundedDenied = bodyOp;
    } else if (list == OpList::Deny && !denied && !isSigmoidExp(bodyOp))
      denied = bodyOp;
    else if (!list && !unlisted)
      unlisted = bodyOp;
    if (list != OpList::Clear)
      onlyClear = false;
  });
  if (denied) {
    // Which deny list: mpt's default, a policy file or an option.
    StringRef source = policy.getSource(denied->getName().getStringRef());
    return {OpClass::Deny,
            ("body uses " + denied->getName().getStringRef() + " (deny list" +
             (source.empty() || source == "default" ? "" : ", " + source) +
             ")")
                .str()};
  }
  if (op.getNumReductionLoops() > 0)
    return {OpClass::Reduction, "structure: reduction iterator"};
  if (unlisted)
    return {OpClass::Unlisted,
            ("body uses " + unlisted->getName().getStringRef() +
             ", which is on no list")
                .str()};
  if (!computes)
    return {OpClass::Clear, "structure: data movement only"};
  if (boundedDenied)
    return {OpClass::Infer,
            ("structure: elementwise arithmetic; body uses " +
             boundedDenied->getName().getStringRef() +
             " (deny list), bounded, in f32 opmath")
                .str()};
  if (onlyClear)
    return {OpClass::Clear, "structure: body uses only clear ops"};
  return {OpClass::Infer, "structure: elementwise arithmetic"};
}

static Classification classify(Operation *op, const PrecisionPolicy &policy) {
  StringRef name = op->getName().getStringRef();
  if (policy.isUserListed(name))
    return {classOfList(*policy.lookup(name)),
            (stringifyOpList(*policy.lookup(name)) + " list, " +
             policy.getSource(name))
                .str()};
  std::optional<OpList> list = policy.lookup(name);
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  // Generic ops (and ops on no list) are classified by structure and body:
  // frontends decompose layer_norm, softmax and losses into generics.
  if (linalgOp && (!list || isa<linalg::GenericOp, linalg::MapOp>(op)))
    return classifyLinalg(linalgOp, policy);
  if (list) {
    if (*list == OpList::Deny && isa<linalg::ReduceOp>(op))
      return {OpClass::Reduction, "default deny list (reduction)"};
    return {classOfList(*list),
            ("default " + stringifyOpList(*list) + " list").str()};
  }
  return {OpClass::Unlisted, "on no list"};
}

const TosaLowPrecisionRule *mpt::getTosaLowPrecisionRule(Operation *op) {
  static const std::pair<StringLiteral, TosaLowPrecisionRule> kRules[] = {
      // input, weight; input_zp, weight_zp; f32 result.
      {tosa::MatMulOp::getOperationName(), {2, 2, false}},
      // input, weight, bias; input_zp, weight_zp; low result.
      {tosa::Conv2DOp::getOperationName(), {3, 2, true}},
      {tosa::Conv3DOp::getOperationName(), {3, 2, true}},
      {tosa::DepthwiseConv2DOp::getOperationName(), {3, 2, true}},
      {tosa::TransposeConv2DOp::getOperationName(), {3, 2, true}},
  };
  StringRef name = op->getName().getStringRef();
  for (const auto &[ruleName, rule] : kRules)
    if (name == ruleName)
      return &rule;
  return nullptr;
}

/// Whether mpt knows how to give `op` low-precision types.
static bool canRewrite(Operation *op, OpClass opClass, const TypeFacts &facts) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    Block *body = linalgOp.getBlock();
    return body && (body->getNumArguments() == op->getNumOperands() ||
                    body->getNumArguments() == linalgOp.getNumDpsInputs());
  }
  // A pad is rewritten as a clear or infer op (its padding value cast);
  // on the allow list it would need a rule it has none of.
  if (isa<tensor::PadOp>(op))
    return opClass != OpClass::Allow;
  if (op->getNumRegions() != 0 || facts.floatScalar)
    return false;
  StringRef name = op->getName().getStringRef();
  if (name.starts_with("tosa.")) {
    // The allow ops are rewritten to TOSA's f16/bf16 profiles
    // (getTosaLowPrecisionRule). tosa.clamp's bounds are attributes of the
    // element type.
    if (opClass == OpClass::Allow)
      return getTosaLowPrecisionRule(op) != nullptr;
    return name != "tosa.clamp";
  }
  return opClass != OpClass::Allow;
}

//===----------------------------------------------------------------------===//
// Range facts
//===----------------------------------------------------------------------===//

/// What the range analysis' reach (unbounded inputs of order one) must
/// stay under, as a fraction of the low type's largest value: real
/// activations reach tens, and a value at the edge overflows in the next op.
static constexpr double kRangeMargin = 16.0;

namespace {
class RangeFacts {
public:
  RangeFacts(const PrecisionPolicy &policy, Operation *func)
      : policy(policy), floatRanges(func) {}

  /// Why `value` cannot be represented in the low type, or empty.
  StringRef getProblem(Value value) const {
    auto it = problems.find(value);
    return it == problems.end() ? StringRef() : StringRef(it->second);
  }

  /// Records the facts of `op`'s results (ops visited in program order).
  void visit(Operation *op, OpClass opClass) {
    if (op->hasTrait<OpTrait::ConstantLike>() && op->getNumResults() == 1) {
      Attribute attr;
      if (matchPattern(op->getResult(0), m_Constant(&attr))) {
        std::string problem = checkAttr(attr);
        if (!problem.empty())
          problems[op->getResult(0)] =
              problem + " (" + op->getName().getStringRef().str() + " at " +
              formatLocation(op->getLoc()) + ")";
      }
      return;
    }
    // linalg.fill and data movement carry their inputs' values.
    if (opClass != OpClass::Clear)
      return;
    for (Value operand : op->getOperands()) {
      StringRef problem = getProblem(operand);
      if (problem.empty())
        continue;
      for (Value result : op->getResults())
        problems[result] = problem.str();
      return;
    }
  }

  /// Why `value` must not be held in the low type, or empty: a constant
  /// fact, else what the range analysis says it reaches.
  std::string getValueProblem(Value value) const {
    if (StringRef problem = getProblem(value); !problem.empty())
      return problem.str();
    return checkReach(value);
  }

  /// Why `op` must not run in low precision, or empty: it reads (directly
  /// or in its body) or writes a value that does not fit.
  std::string checkConsumer(Operation *op, OpClass opClass) const {
    for (Value operand : op->getOperands()) {
      std::string problem = getValueProblem(operand);
      if (!problem.empty())
        return "reads " + problem;
    }
    // A body's constant names the cause better than the result it reaches.
    if (std::string problem = checkBody(op); !problem.empty())
      return problem;
    // An allow op's result is its f32 accumulator.
    if (opClass != OpClass::Allow)
      for (Value result : op->getResults())
        if (std::string problem = checkReach(result); !problem.empty())
          return "writes " + problem;
    return "";
  }

private:
  /// Why a value `op`'s regions read from above, or a constant in them,
  /// does not fit the low type, or empty.
  std::string checkBody(Operation *op) const {
    if (op->getNumRegions() == 0)
      return "";
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(op->getRegions(), above);
    for (Value value : above) {
      StringRef problem = getProblem(value);
      if (!problem.empty())
        return ("body reads " + problem).str();
    }
    std::string found;
    op->walk([&](arith::ConstantOp constant) {
      if (!found.empty())
        return;
      std::string problem = checkAttr(constant.getValue());
      if (!problem.empty())
        found = "body uses " + problem + " (at " +
                formatLocation(constant.getLoc()) + ")";
    });
    return found;
  }

  /// The range analysis' fact about a float tensor whose reach the low type
  /// cannot hold with margin, or empty.
  std::string checkReach(Value value) const {
    if (!isa<TensorType>(value.getType()))
      return "";
    const FloatRange *range = floatRanges.lookup(value);
    double limit = policy.getLowTypeMax() / kRangeMargin;
    std::optional<double> bound =
        range ? findBoundBeyond(*range, limit) : std::nullopt;
    // Only what a bounded source pushes into the value counts: a reach with
    // none is the product of order-one guesses about unbounded data (exp of
    // a guessed logit, 1/sqrt(eps) times a guessed deviation), not a bound,
    // and the rule does not invent bounds. What the loss scale pushes into
    // the backward is what scaling means to hold in the low type; an
    // overflow there skips the step and backs the scale off (GradScaler's
    // contract), it is not a reason to stay f32.
    if (!bound || !range->source || FloatRanges::isLossScale(range->source))
      return "";
    std::string text;
    llvm::raw_string_ostream os(text);
    os << FloatRanges::describeValue(value) << ", which reaches "
       << formatBound(*bound);
    if (std::string source = FloatRanges::describeSource(*range);
        range->source != value)
      os << " (bound from " << source << ")";
    os << "; " << policy.getLowTypeName() << " holds "
       << llvm::format("%g", policy.getLowTypeMax()) << ", with margin "
       << llvm::format("%g", kRangeMargin) << " up to "
       << llvm::format("%g", limit);
    return text;
  }

  /// Why a float constant does not fit the low type, or empty.
  std::string checkAttr(Attribute attr) const {
    auto check = [&](const APFloat &value) -> std::string {
      double v = value.convertToDouble();
      if (!std::isfinite(v) || v == 0.0)
        return "";
      double magnitude = std::fabs(v);
      std::string text;
      llvm::raw_string_ostream os(text);
      if (magnitude > policy.getLowTypeMax())
        os << "constant " << llvm::format("%g", v) << " overflows "
           << policy.getLowTypeName() << " (max "
           << llvm::format("%g", policy.getLowTypeMax()) << ")";
      else if (magnitude < policy.getLowTypeMinSubnormal())
        os << "constant " << llvm::format("%g", v) << " flushes to zero in "
           << policy.getLowTypeName() << " (smallest subnormal "
           << llvm::format("%g", policy.getLowTypeMinSubnormal()) << ")";
      return text;
    };
    if (auto floatAttr = dyn_cast<FloatAttr>(attr))
      return check(floatAttr.getValue());
    if (auto dense = dyn_cast<DenseFPElementsAttr>(attr)) {
      if (dense.isSplat())
        return check(dense.getSplatValue<APFloat>());
      for (const APFloat &value : dense.getValues<APFloat>()) {
        std::string problem = check(value);
        if (!problem.empty())
          return problem;
      }
    }
    return "";
  }

  const PrecisionPolicy &policy;
  FloatRanges floatRanges;
  llvm::DenseMap<Value, std::string> problems;
};
} // namespace

//===----------------------------------------------------------------------===//
// Painting
//===----------------------------------------------------------------------===//

namespace {
enum class NodeKind : uint8_t { None, Allow, Deny, Infer, Clear };

/// The op graph painting runs on, in compressed adjacency form.
struct PaintGraph {
  SmallVector<NodeKind> kind;
  SmallVector<unsigned> succBegin, succ, predBegin, pred;

  void build(unsigned numNodes,
             ArrayRef<std::pair<unsigned, unsigned>> edges) {
    auto compress = [&](bool forward, SmallVector<unsigned> &begin,
                        SmallVector<unsigned> &list) {
      begin.assign(numNodes + 1, 0);
      for (auto [from, to] : edges)
        ++begin[(forward ? from : to) + 1];
      for (unsigned i = 0; i < numNodes; ++i)
        begin[i + 1] += begin[i];
      list.assign(edges.size(), 0);
      SmallVector<unsigned> fill(begin.begin(), begin.end() - 1);
      for (auto [from, to] : edges)
        list[fill[forward ? from : to]++] = forward ? to : from;
    };
    compress(true, succBegin, succ);
    compress(false, predBegin, pred);
  }
  ArrayRef<unsigned> successors(unsigned n) const {
    return ArrayRef<unsigned>(succ).slice(succBegin[n],
                                          succBegin[n + 1] - succBegin[n]);
  }
  ArrayRef<unsigned> predecessors(unsigned n) const {
    return ArrayRef<unsigned>(pred).slice(predBegin[n],
                                          predBegin[n + 1] - predBegin[n]);
  }

  /// Breadth-first search from `roots` along successors (or predecessors),
  /// entering only nodes `canEnter` accepts. Calls `reached(node, from)`
  /// for each node entered, with the root it was reached from.
  void search(ArrayRef<unsigned> roots, bool forward,
              llvm::function_ref<bool(unsigned)> canEnter,
              llvm::function_ref<void(unsigned, unsigned)> reached) const {
    SmallVector<int> origin(kind.size(), -1);
    std::deque<unsigned> queue;
    for (unsigned root : roots) {
      if (origin[root] != -1)
        continue;
      origin[root] = root;
      queue.push_back(root);
    }
    while (!queue.empty()) {
      unsigned node = queue.front();
      queue.pop_front();
      for (unsigned next : forward ? successors(node) : predecessors(node)) {
        if (origin[next] != -1 || !canEnter(next))
          continue;
        origin[next] = origin[node];
        reached(next, origin[node]);
        queue.push_back(next);
      }
    }
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// Loss region
//===----------------------------------------------------------------------===//

/// Whether `value` holds only zeros and ones by construction: a comparison
/// converted to float (a one-hot matrix), products of such, and their
/// transposes, reshapes, slices and casts. Looks back at most `depth` ops.
static bool isZeroOneTensor(Value value, unsigned depth = 8) {
  if (depth == 0)
    return false;
  Operation *def = value.getDefiningOp();
  if (!def)
    return false;
  if (isa<linalg::TransposeOp, linalg::BroadcastOp>(def))
    return isZeroOneTensor(def->getOperand(0), depth - 1);
  if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp,
          tensor::ExtractSliceOp, arith::ExtFOp, arith::TruncFOp>(def))
    return isZeroOneTensor(def->getOperand(0), depth - 1);
  auto generic = dyn_cast<linalg::GenericOp>(def);
  if (!generic || generic.getNumDpsInits() != 1 ||
      generic.getNumReductionLoops() != 0)
    return false;
  Block *body = generic.getBody();
  Value yielded = body->getTerminator()->getOperand(0);
  // A body argument standing for a 0/1 input, or a conversion of an i1.
  // At most 16 body values are looked at (a chain of products that reuse
  // one value would otherwise be visited exponentially often).
  unsigned budget = 16;
  std::function<bool(Value)> zeroOne = [&](Value scalar) {
    if (budget == 0)
      return false;
    --budget;
    if (auto arg = dyn_cast<BlockArgument>(scalar)) {
      if (arg.getOwner() != body ||
          arg.getArgNumber() >= generic.getNumDpsInputs())
        return false;
      return isZeroOneTensor(
          generic.getDpsInputOperand(arg.getArgNumber())->get(), depth - 1);
    }
    Operation *op = scalar.getDefiningOp();
    if (!op || op->getBlock() != body)
      return false;
    if (isa<arith::UIToFPOp>(op))
      return op->getOperand(0).getType().isInteger(1);
    if (isa<arith::MulFOp>(op))
      return zeroOne(op->getOperand(0)) && zeroOne(op->getOperand(1));
    if (isa<arith::ExtFOp, arith::TruncFOp>(op))
      return zeroOne(op->getOperand(0));
    return false;
  };
  return zeroOne(yielded);
}

namespace {
/// What a value is computed from, for finding the model's layers.
enum class Provenance { Data, Constant, Parameters };
} // namespace

/// What `value` is computed from: parameters alone (and constants), as a
/// weight the model derives before a layer reads it (a transpose or cast,
/// but also weight norm, a QKV weight concatenated from three, LoRA's merged
/// weight); constants alone; or anything else (data, the seed, a loop's or
/// call's result). Memoized in `memo`, so that all queries of one function
/// are linear in its size; iterative (long chains of ops).
static Provenance getProvenance(Value value, FunctionOpInterface func,
                                llvm::DenseMap<Value, Provenance> &memo) {
  SmallVector<Value> stack{value};
  while (!stack.empty()) {
    Value v = stack.back();
    if (memo.count(v)) {
      stack.pop_back();
      continue;
    }
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      bool param = arg.getOwner()->getParentOp() == func.getOperation() &&
                   getArgRole(func, arg.getArgNumber()) == ArgRole::Param;
      memo[v] = param ? Provenance::Parameters : Provenance::Data;
      stack.pop_back();
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (isa<tensor::EmptyOp>(def) || matchPattern(v, m_Constant())) {
      memo[v] = Provenance::Constant;
      stack.pop_back();
      continue;
    }
    // Ops with regions other than linalg's bodies (loops, branches) and
    // the mpt markers are not followed.
    bool followed = (def->getNumRegions() == 0 || isa<linalg::LinalgOp>(def)) &&
                    !isa<MPTDialect>(def->getDialect());
    if (!followed) {
      memo[v] = Provenance::Data;
      stack.pop_back();
      continue;
    }
    bool pending = false;
    for (Value operand : def->getOperands())
      if (!memo.count(operand)) {
        stack.push_back(operand);
        pending = true;
      }
    if (pending)
      continue;
    Provenance result = Provenance::Constant;
    for (Value operand : def->getOperands()) {
      Provenance p = memo.lookup(operand);
      if (p == Provenance::Data) {
        result = Provenance::Data;
        break;
      }
      if (p == Provenance::Parameters)
        result = Provenance::Parameters;
    }
    for (Value r : def->getResults())
      memo[r] = result;
    stack.pop_back();
  }
  return memo.lookup(value);
}

/// Whether allow op `op` reads a parameter, or a weight computed from
/// parameters alone: a layer of the model, not a loss's
/// target-times-log-probability contraction.
static bool readsParameter(Operation *op, FunctionOpInterface func,
                           llvm::DenseMap<Value, Provenance> &memo) {
  return llvm::any_of(op->getOperands(), [&](Value operand) {
    return getProvenance(operand, func, memo) == Provenance::Parameters;
  });
}

/// The loss region of a training step, as PyTorch's fp32 list keeps loss
/// functions and their backward in f32: the forward ops after the last
/// contraction that reads a parameter (no such contraction is downstream of
/// them), and the backward ops that depend on the seed and on no backward
/// contraction. Maps each op to its side ("forward" / "backward").
static llvm::DenseMap<Operation *, StringRef>
findLossRegion(FunctionOpInterface func, ArrayRef<Operation *> ops,
               const TrainingGraph &graph,
               llvm::function_ref<bool(Operation *)> isAllow) {
  llvm::DenseMap<Operation *, StringRef> region;
  if (!graph.isTrainingStep())
    return region;
  llvm::DenseMap<Operation *, unsigned> indexOf;
  for (auto [index, op] : llvm::enumerate(ops))
    indexOf[op] = index;
  // The op of the plan that holds `op` (a linalg body op: its linalg op).
  auto planOpOf = [&](Operation *op) -> std::optional<unsigned> {
    for (; op && op != func.getOperation(); op = op->getParentOp())
      if (auto it = indexOf.find(op); it != indexOf.end())
        return it->second;
    return std::nullopt;
  };

  // Forward: upstream of a layer of the forward, in reverse program order.
  // A value that leaves through a terminator (a loop's yield) counts as
  // upstream.
  SmallVector<bool> upstreamOfLayer(ops.size(), false);
  llvm::DenseMap<Value, Provenance> provenance;
  for (unsigned index = ops.size(); index-- > 0;) {
    Operation *op = ops[index];
    if (graph.getRegion(op) != TrainingRegion::Forward)
      continue;
    bool upstream = isAllow(op) && readsParameter(op, func, provenance);
    for (Value result : op->getResults())
      for (Operation *user : result.getUsers()) {
        if (user->hasTrait<OpTrait::IsTerminator>() &&
            !isa<func::ReturnOp>(user)) {
          upstream = true;
          continue;
        }
        if (std::optional<unsigned> userIndex = planOpOf(user))
          upstream |= *userIndex != index && upstreamOfLayer[*userIndex];
      }
    upstreamOfLayer[index] = upstream;
    if (!upstream)
      region[op] = "forward";
  }

  // Backward: from the seed, in program order, up to a contraction.
  Value seed = graph.getSeed();
  SmallVector<bool> fromSeed(ops.size(), false), afterContraction(ops.size(),
                                                                  false);
  for (auto [index, op] : llvm::enumerate(ops)) {
    for (Value operand : op->getOperands()) {
      if (operand == seed) {
        fromSeed[index] = true;
        continue;
      }
      Operation *def = operand.getDefiningOp();
      std::optional<unsigned> defIndex = def ? planOpOf(def) : std::nullopt;
      if (!defIndex)
        continue;
      fromSeed[index] = fromSeed[index] || fromSeed[*defIndex];
      afterContraction[index] =
          afterContraction[index] || afterContraction[*defIndex] ||
          (fromSeed[*defIndex] && isAllow(ops[*defIndex]));
    }
    if (fromSeed[index] && !afterContraction[index] && !isAllow(op) &&
        graph.getRegion(op) == TrainingRegion::Backward)
      region[op] = "backward";
  }
  return region;
}

//===----------------------------------------------------------------------===//
// The painter
//===----------------------------------------------------------------------===//

namespace {
/// Builds a plan's decisions, one method per phase (the file comment's
/// steps), in the order run() calls them. Nodes 0..ops.size()-1 are the
/// plan's ops, the carried values come after them.
class PlanPainter {
public:
  PlanPainter(FunctionOpInterface func, const PrecisionPolicy &policy,
              const TrainingGraph &graph, SmallVectorImpl<Operation *> &ops,
              llvm::DenseMap<Operation *, OpDecision> &decisions,
              SmallVectorImpl<CarriedValue> &carried)
      : func(func), policy(policy), graph(graph),
        lowType(policy.getLowType()), ops(ops),
        decisions(decisions), carried(carried), ranges(policy, func) {}

  void run() {
    collectOps(func.getFunctionBody());
    if (policy.keepsLossRegionF32())
      lossRegion = findLossRegion(func, ops, graph, [&](Operation *op) {
        return classify(op, policy).opClass == OpClass::Allow;
      });
    collectExactlyComparedTensors();
    canLower.assign(ops.size(), false);
    paint.kind.assign(ops.size(), NodeKind::None);
    for (auto [index, op] : llvm::enumerate(ops))
      classifyOp(index, op);
    collectCarriedValues();
    buildGraph();
    paintDenyTaint();
    paintBetweenAllowOps();
    paintClearFollowers();
    decideAll();
  }

private:
  /// Ops in program order; control flow is entered, other regions (linalg
  /// bodies) belong to their op.
  void collectOps(Region &region) {
    for (Block &block : region)
      for (Operation &op : block) {
        if (op.hasTrait<OpTrait::IsTerminator>())
          continue;
        ops.push_back(&op);
        if (isa<RegionBranchOpInterface>(op))
          for (Region &nested : op.getRegions())
            collectOps(nested);
      }
  }

  /// Tensors whose elements a linalg body reads from above (tensor.extract
  /// of a captured tensor) and compares for equality, with the comparing
  /// op: torch-mlir recovers an adaptive max pooling's indices so, finding
  /// the input element equal to the pooled maximum. An infer/clear op
  /// reading such a tensor (the pooling) stays f32: in low precision its
  /// result would be the rounded maximum, equal to no f32 element, the
  /// index would stay -1 and the input's gradient 0.
  void collectExactlyComparedTensors() {
    func->walk([&](tensor::ExtractOp extract) {
      auto owner = extract->getParentOfType<linalg::LinalgOp>();
      Value tensor = extract.getTensor();
      if (!owner || owner->getRegion(0).isAncestor(tensor.getParentRegion()))
        return;
      SmallVector<Value, 2> elements = {extract.getResult()};
      for (Operation *user : extract->getUsers())
        if (isa<arith::ExtFOp, arith::TruncFOp>(user))
          elements.push_back(user->getResult(0));
      for (Value element : elements)
        for (Operation *user : element.getUsers())
          if (isFloatEqualityCompare(user))
            exactlyCompared.try_emplace(tensor, owner.getOperation());
    });
  }

  /// Steps 1 and 2 for one op: its class, then the training and range
  /// rules that keep it f32; sets its node kind for painting.
  void classifyOp(unsigned index, Operation *op) {
    OpDecision &decision = decisions[op];
    decision.region = graph.getRegion(op);
    nodeOf[op] = index;
    TypeFacts facts = getTypeFacts(op, lowType);

    if (isa<RegionBranchOpInterface, CallOpInterface>(op)) {
      decision.opClass = OpClass::ControlFlow;
      decision.reason = DecisionReason::ControlFlow;
      return;
    }
    if (isMarker(op)) {
      decision.opClass = OpClass::Marker;
      decision.precision = OpPrecision::FP32;
      decision.reason = DecisionReason::TrainingMarker;
      return;
    }
    bool noData = (!facts.f32Tensor && !facts.lowTensor) ||
                  facts.otherFloatTensor ||
                  op->hasTrait<OpTrait::ConstantLike>() ||
                  isa<tensor::EmptyOp, tensor::DimOp, tensor::RankOp>(op);
    if (noData) {
      decision.opClass = OpClass::NoF32Data;
      decision.reason = DecisionReason::NoF32Data;
      if (facts.otherFloatTensor)
        decision.detail = facts.otherFloatName + " tensors: left alone";
      else if (op->hasTrait<OpTrait::ConstantLike>() &&
               (facts.f32Tensor || facts.lowTensor))
        decision.detail = "constant: cast where a low-precision op reads it";
      else if (isa<tensor::EmptyOp>(op))
        decision.detail = "no data (tensor.empty)";
      else if (isa<tensor::DimOp, tensor::RankOp>(op))
        decision.detail = "reads the shape only";
      else if (facts.intTensor)
        decision.detail = "integer tensors: left alone";
      else
        decision.detail = "no f32 tensors";
      ranges.visit(op, OpClass::NoF32Data);
      return;
    }

    Classification classification = classify(op, policy);
    decision.opClass = classification.opClass;
    decision.classDetail = classification.detail;
    ranges.visit(op, decision.opClass);

    switch (decision.opClass) {
    case OpClass::Unlisted:
      decision.precision = OpPrecision::FP32;
      decision.reason = DecisionReason::Unlisted;
      return;
    case OpClass::Deny:
      decision.precision = OpPrecision::FP32;
      decision.reason = DecisionReason::DenyOp;
      paint.kind[index] = NodeKind::Deny;
      return;
    case OpClass::Reduction:
      decision.precision = OpPrecision::FP32;
      decision.reason = DecisionReason::ReductionOp;
      paint.kind[index] = NodeKind::Deny;
      return;
    default:
      break;
    }

    // Allow, infer, clear: training and range rules first.
    decision.precision = OpPrecision::FP32;
    if (graph.isTrainingStep() && decision.region == TrainingRegion::Update) {
      decision.reason = DecisionReason::UpdateRegion;
      paint.kind[index] = NodeKind::Deny;
      return;
    }
    if (auto it = lossRegion.find(op); it != lossRegion.end()) {
      decision.reason = DecisionReason::LossRegion;
      decision.detail = it->second.str();
      paint.kind[index] = NodeKind::Deny;
      return;
    }
    if (decision.opClass != OpClass::Allow)
      for (Value operand : op->getOperands())
        if (auto it = exactlyCompared.find(operand);
            it != exactlyCompared.end()) {
          decision.reason = DecisionReason::ComparedExactly;
          decision.cause = it->second;
          paint.kind[index] = NodeKind::Deny;
          return;
        }
    // A contraction with a one-hot operand in the backward is a sum of
    // gradient rows (an embedding's or an index's gradient): PyTorch runs it
    // in the gradient's type (embedding backward is not autocast), and in
    // f16 the gradient it reads could overflow (a pre-norm transformer's
    // embedding gradient: a layer norm's 1/std of 316 on a zero padding
    // row, at a loss scale GradScaler keeps).
    if (decision.opClass == OpClass::Allow && lowType.isF16() &&
        graph.isTrainingStep() && decision.region == TrainingRegion::Backward &&
        llvm::any_of(op->getOperands(),
                     [](Value operand) { return isZeroOneTensor(operand); })) {
      decision.reason = DecisionReason::RangeUnsafe;
      decision.detail = "a one-hot contraction in the backward (an embedding "
                        "or index gradient: a sum of gradient rows, which "
                        "PyTorch runs in the gradient's type); its f16 "
                        "gradient operand could overflow";
      paint.kind[index] = NodeKind::Deny;
      return;
    }
    std::string rangeProblem = ranges.checkConsumer(op, decision.opClass);
    if (!rangeProblem.empty()) {
      decision.reason = DecisionReason::RangeUnsafe;
      decision.detail = rangeProblem;
      paint.kind[index] = NodeKind::Deny;
      return;
    }
    if (!canRewrite(op, decision.opClass, facts)) {
      decision.reason = DecisionReason::NoLowPrecisionRewrite;
      return;
    }
    canLower[index] = true;
    paint.kind[index] = decision.opClass == OpClass::Allow ? NodeKind::Allow
                        : decision.opClass == OpClass::Infer
                            ? NodeKind::Infer
                            : NodeKind::Clear;
  }

  /// Values carried across control-flow boundaries (RegionFlow.h): one
  /// clear node each, numbered after the ops. Each has the values that flow
  /// into it (inits and yield operands); its members (iter_arg, result) are
  /// what its users read.
  void collectCarriedValues() {
    auto isCarriable = [&](Value value) {
      auto tensor = dyn_cast<TensorType>(value.getType());
      return tensor && (tensor.getElementType().isF32() ||
                        tensor.getElementType() == lowType);
    };
    for (Operation *op : ops) {
      auto branch = dyn_cast<RegionBranchOpInterface>(op);
      if (!branch || !isFullyForwarding(branch))
        continue;
      for (CarriedGroup &group : getCarriedGroups(branch)) {
        if (!llvm::all_of(group.members, isCarriable))
          continue;
        unsigned node = ops.size() + carried.size();
        for (Value member : group.members)
          carriedNodeOf[member] = node;
        SmallVector<Value, 2> &inputs = carriedInputs.emplace_back();
        for (OpOperand *source : group.sources)
          inputs.push_back(source->get());
        CarriedValue &value = carried.emplace_back();
        value.owner = op;
        value.index = group.getNumber();
        value.group = std::move(group);
      }
    }
    numNodes = ops.size() + carried.size();
    paint.kind.resize(numNodes, NodeKind::Clear);
    canLower.resize(numNodes, true);
    for (auto [k, value] : llvm::enumerate(carried)) {
      // The update region stays f32; so does a value that may hold a number
      // the low type cannot (a -1e9 init).
      if (graph.isTrainingStep() &&
          graph.getRegion(value.owner) == TrainingRegion::Update) {
        value.reason = DecisionReason::UpdateRegion;
      } else {
        for (Value input : carriedInputs[k])
          if (std::string problem = ranges.getValueProblem(input);
              !problem.empty()) {
            value.reason = DecisionReason::RangeUnsafe;
            value.detail = "carries " + problem;
            break;
          }
      }
      if (value.reason == DecisionReason::UpdateRegion ||
          value.reason == DecisionReason::RangeUnsafe) {
        paint.kind[ops.size() + k] = NodeKind::Deny;
        canLower[ops.size() + k] = false;
      }
    }
  }

  /// The node a value comes from: casts are transparent, a carried value is
  /// its node.
  std::optional<unsigned> nodeOfValue(Value value) const {
    while (true) {
      auto carriedIt = carriedNodeOf.find(value);
      if (carriedIt != carriedNodeOf.end())
        return carriedIt->second;
      Operation *def = value.getDefiningOp();
      if (!def)
        return std::nullopt;
      if (isa<arith::ExtFOp, arith::TruncFOp>(def) &&
          isa<TensorType>(value.getType())) {
        value = def->getOperand(0);
        continue;
      }
      auto it = nodeOf.find(def);
      if (it == nodeOf.end() || paint.kind[it->second] == NodeKind::None)
        return std::nullopt;
      return it->second;
    }
  }

  /// The graph painting runs on: edges along the operands whose type
  /// follows the consumer's precision, and into each carried value.
  void buildGraph() {
    SmallVector<std::pair<unsigned, unsigned>> edges;
    for (auto [index, op] : llvm::enumerate(ops)) {
      if (paint.kind[index] == NodeKind::None)
        continue;
      OpClass operandClass = paint.kind[index] == NodeKind::Allow
                                 ? OpClass::Allow
                                 : OpClass::Infer;
      SmallVector<OpOperand *> operands;
      PrecisionPlan::getPrecisionOperands(op, operandClass, operands);
      for (OpOperand *operand : operands)
        if (std::optional<unsigned> producer = nodeOfValue(operand->get()))
          edges.push_back({*producer, static_cast<unsigned>(index)});
    }
    for (auto [k, inputs] : llvm::enumerate(carriedInputs))
      for (Value input : inputs)
        if (std::optional<unsigned> producer = nodeOfValue(input))
          edges.push_back({*producer, static_cast<unsigned>(ops.size() + k)});
    paint.build(numNodes, edges);
    for (unsigned n = 0; n < numNodes; ++n) {
      if (isKind(n, NodeKind::Deny))
        denyNodes.push_back(n);
      if (isKind(n, NodeKind::Allow))
        allowNodes.push_back(n);
      if (isKind(n, NodeKind::Deny) || isKind(n, NodeKind::Infer))
        inferOrDenyNodes.push_back(n);
    }
  }

  /// 3a. Deny taints forward through infer/clear nodes that lie on a path
  /// from a deny node to an infer or deny node.
  void paintDenyTaint() {
    taintedBy.assign(numNodes, -1);
    auto isInferOrClearNode = [&](unsigned n) { return isInferOrClear(n); };
    paint.search(denyNodes, /*forward=*/true, isInferOrClearNode,
                 [&](unsigned n, unsigned from) { taintedBy[n] = from; });
    SmallVector<bool> reachesInferOrDeny(numNodes, false);
    for (unsigned n : inferOrDenyNodes)
      reachesInferOrDeny[n] = true;
    paint.search(inferOrDenyNodes, /*forward=*/false, isInferOrClearNode,
                 [&](unsigned n, unsigned) { reachesInferOrDeny[n] = true; });
    tainted.assign(numNodes, false);
    for (unsigned n = 0; n < numNodes; ++n)
      tainted[n] = taintedBy[n] != -1 && reachesInferOrDeny[n];
  }

  /// 3b. Untainted infer/clear nodes both downstream and upstream of allow
  /// nodes become low.
  void paintBetweenAllowOps() {
    auto paintable = [&](unsigned n) {
      return isInferOrClear(n) && !tainted[n];
    };
    SmallVector<bool> downstream(numNodes, false), upstream(numNodes, false);
    paint.search(allowNodes, /*forward=*/true, paintable,
                 [&](unsigned n, unsigned) { downstream[n] = true; });
    paint.search(allowNodes, /*forward=*/false, paintable,
                 [&](unsigned n, unsigned) { upstream[n] = true; });
    low.assign(numNodes, false);
    lowNodes.assign(allowNodes.begin(), allowNodes.end());
    for (unsigned n : allowNodes)
      low[n] = true;
    for (unsigned n = 0; n < numNodes; ++n)
      if (downstream[n] && upstream[n]) {
        low[n] = true;
        lowNodes.push_back(n);
      }
  }

  /// 3c. Clear nodes follow low neighbours both ways, at once: a clear node
  /// reached backwards may lead forward to another clear node.
  void paintClearFollowers() {
    followed.assign(numNodes, -1);
    auto followsLow = [&](unsigned n) {
      return isKind(n, NodeKind::Clear) && !tainted[n] && !low[n];
    };
    SmallVector<unsigned> queue(lowNodes);
    for (size_t head = 0; head < queue.size(); ++head) {
      unsigned node = queue[head];
      auto visit = [&](unsigned next) {
        if (!followsLow(next) || followed[next] != -1)
          return;
        followed[next] = node;
        queue.push_back(next);
      };
      // An allow op's result is f32 (its accumulator): a clear op after it
      // gains nothing from low precision, only a rounding.
      if (!isKind(node, NodeKind::Allow))
        for (unsigned next : paint.successors(node))
          visit(next);
      for (unsigned next : paint.predecessors(node))
        visit(next);
    }
  }

  /// The precision, reason and cause painting gives node `n`.
  void decide(unsigned n, OpPrecision &precision, DecisionReason &reason,
              Operation *&cause) const {
    if (isKind(n, NodeKind::Allow)) {
      precision = OpPrecision::Low;
      reason = DecisionReason::AllowOp;
    } else if (tainted[n]) {
      reason = DecisionReason::DenyTaint;
      cause = causeOf(taintedBy[n]);
    } else if (low[n]) {
      precision = OpPrecision::Low;
      reason = DecisionReason::BetweenAllowOps;
    } else if (followed[n] != -1) {
      precision = OpPrecision::Low;
      reason = DecisionReason::ClearFollowsLow;
      cause = causeOf(followed[n]);
    } else {
      reason = DecisionReason::NotBetweenAllowOps;
    }
  }

  /// Records the painting's decision of every node that can be lowered.
  void decideAll() {
    for (auto [index, op] : llvm::enumerate(ops)) {
      if (!canLower[index])
        continue;
      OpDecision &decision = decisions[op];
      decide(index, decision.precision, decision.reason, decision.cause);
    }
    for (auto [k, value] : llvm::enumerate(carried))
      if (canLower[ops.size() + k])
        decide(ops.size() + k, value.precision, value.reason, value.cause);
  }

  Operation *causeOf(unsigned node) const {
    return node < ops.size() ? ops[node] : carried[node - ops.size()].owner;
  }
  bool isKind(unsigned n, NodeKind k) const { return paint.kind[n] == k; }
  bool isInferOrClear(unsigned n) const {
    return isKind(n, NodeKind::Infer) || isKind(n, NodeKind::Clear);
  }

  FunctionOpInterface func;
  const PrecisionPolicy &policy;
  const TrainingGraph &graph;
  Type lowType;
  // The plan's state, filled here.
  SmallVectorImpl<Operation *> &ops;
  llvm::DenseMap<Operation *, OpDecision> &decisions;
  SmallVectorImpl<CarriedValue> &carried;

  RangeFacts ranges;
  llvm::DenseMap<Operation *, StringRef> lossRegion;
  /// collectExactlyComparedTensors: tensor -> the op whose body compares.
  llvm::DenseMap<Value, Operation *> exactlyCompared;
  llvm::DenseMap<Operation *, unsigned> nodeOf;
  /// Whether painting may lower each node (else its decision is final).
  SmallVector<bool> canLower;
  PaintGraph paint;
  unsigned numNodes = 0;
  /// Carried values: the node of each member (iter_arg, result), the
  /// values flowing into each (inits, yield operands).
  llvm::DenseMap<Value, unsigned> carriedNodeOf;
  SmallVector<SmallVector<Value, 2>> carriedInputs;
  SmallVector<unsigned> denyNodes, allowNodes, inferOrDenyNodes, lowNodes;
  /// Painting's results per node.
  SmallVector<int> taintedBy, followed;
  SmallVector<bool> tainted, low;
};
} // namespace

//===----------------------------------------------------------------------===//
// PrecisionPlan
//===----------------------------------------------------------------------===//

PrecisionPlan::PrecisionPlan(FunctionOpInterface func,
                             const PrecisionPolicy &policy,
                             const TrainingGraph &graph)
    : policy(policy) {
  PlanPainter(func, policy, graph, ops, decisions, carried).run();
  if (policy.getLevel() == PolicyLevel::Promote)
    promoteFollowers();
}

std::string PrecisionPlan::describe(const CarriedValue &value) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  StringRef low = policy.getLowTypeName();
  auto causeText = [&]() {
    return (value.cause->getName().getStringRef() + " at " +
            formatLocation(value.cause->getLoc()))
        .str();
  };
  switch (value.reason) {
  case DecisionReason::BetweenAllowOps:
    os << "carried value between allow ops: painted " << low;
    break;
  case DecisionReason::ClearFollowsLow:
    os << "carried value next to " << low << " op " << causeText()
       << ": painted " << low;
    break;
  case DecisionReason::DenyTaint:
    os << "carried value downstream of f32 op " << causeText()
       << " before another infer/deny op: stays f32";
    break;
  case DecisionReason::UpdateRegion:
    os << "carried value in the update region: stays f32";
    break;
  case DecisionReason::RangeUnsafe:
    os << "range: " << value.detail << ": kept f32";
    break;
  default:
    os << "carried value not between allow ops: stays f32";
    break;
  }
  return text;
}

const OpDecision &PrecisionPlan::getDecision(Operation *op) const {
  auto it = decisions.find(op);
  assert(it != decisions.end() && "op is not part of the plan");
  return it->second;
}

bool PrecisionPlan::isLow(Operation *op) const {
  auto it = decisions.find(op);
  return it != decisions.end() && it->second.precision == OpPrecision::Low;
}

std::string PrecisionPlan::describe(Operation *op) const {
  const OpDecision &d = getDecision(op);
  std::string text;
  llvm::raw_string_ostream os(text);
  StringRef low = policy.getLowTypeName();
  auto causeText = [&]() {
    return (d.cause->getName().getStringRef() + " at " +
            formatLocation(d.cause->getLoc()))
        .str();
  };
  switch (d.reason) {
  case DecisionReason::AllowOp:
    os << "allow (" << d.classDetail << "): " << low;
    if (const TosaLowPrecisionRule *rule = getTosaLowPrecisionRule(op);
        rule && rule->lowResult)
      os << " inputs and result, f32 accumulator (TOSA's " << low
         << " profile)";
    else
      os << " inputs, f32 accumulator and result";
    break;
  case DecisionReason::BetweenAllowOps:
    os << stringifyOpClass(d.opClass) << " (" << d.classDetail
       << ") between allow ops: painted " << low;
    break;
  case DecisionReason::ClearFollowsLow:
    os << "clear (" << d.classDetail << ") next to " << low << " op "
       << causeText() << ": painted " << low;
    break;
  case DecisionReason::DenyOp:
    os << "deny (" << d.classDetail << ")";
    break;
  case DecisionReason::ReductionOp:
    os << "reduction (" << d.classDetail << "): accumulates in f32";
    break;
  case DecisionReason::DenyTaint:
    os << stringifyOpClass(d.opClass) << " (" << d.classDetail
       << ") downstream of f32 op " << causeText()
       << " before another infer/deny op: stays f32";
    break;
  case DecisionReason::NotBetweenAllowOps:
    os << stringifyOpClass(d.opClass) << " (" << d.classDetail
       << ") not between allow ops: stays f32";
    break;
  case DecisionReason::UpdateRegion:
    os << stringifyOpClass(d.opClass)
       << " op in the update region: the optimizer runs in f32";
    break;
  case DecisionReason::LossRegion:
    os << stringifyOpClass(d.opClass) << " op in the loss region ("
       << (d.detail == "forward"
               ? "after the last forward contraction, before the loss"
               : "from the backward seed to the first backward contraction")
       << "): stays f32, as PyTorch's fp32 list keeps losses "
          "(loss-region=0 turns this off)";
    break;
  case DecisionReason::TrainingMarker:
    if (isa<GradientOp, GradSeedOp>(op))
      os << "training marker: gradients and the seed stay f32";
    else
      os << "loss scaling op: stays f32";
    break;
  case DecisionReason::RangeUnsafe:
    os << "range: " << d.detail << ": kept f32";
    break;
  case DecisionReason::ComparedExactly:
    os << stringifyOpClass(d.opClass) << " (" << d.classDetail
       << "): reads a tensor whose elements " << causeText()
       << " compares with its result (an argmax after a max pooling): "
          "kept f32, rounded it would equal none of them";
    break;
  case DecisionReason::NoLowPrecisionRewrite:
    os << stringifyOpClass(d.opClass) << " (" << d.classDetail
       << "), but mpt has no low-precision rewrite for this op: kept f32";
    break;
  case DecisionReason::Unlisted:
    os << "unlisted (" << d.classDetail << "): kept f32";
    break;
  case DecisionReason::ControlFlow:
    if (auto branch = dyn_cast<RegionBranchOpInterface>(op);
        branch && isFullyForwarding(branch))
      os << "control flow: its carried values are painted (listed below)";
    else if (isa<CallOpInterface>(op))
      os << "call: operands and results keep their types";
    else
      os << "control flow: carried values keep their types";
    break;
  case DecisionReason::NoF32Data:
    os << d.detail;
    break;
  case DecisionReason::FollowsLowInputs:
  case DecisionReason::FollowsF32Input:
  case DecisionReason::NoInputToFollow:
  case DecisionReason::BackwardNotPromoted:
    describePromotion(op, d, os);
    break;
  }
  return text;
}
