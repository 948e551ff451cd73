//===- Autocast.cpp - apply a precision plan, tidy casts ------------------===//
//
// Ops are rewritten in place, in program order. When an op's result turns
// low precision, its existing users get an `arith.extf` of it placed right
// after the op; a later low-precision user asking for the low value looks
// through that extf. So users that stay f32 keep reading f32 and, for ops,
// no truncf(extf(x)) round trip is built. Carried values (scf.for, scf.if,
// scf.while: RegionFlow.h) change type in two steps around the op rewrites
// (the IR is consistent again after the second); a cast they create before
// its value's producer turns low becomes a round trip that cleanupCasts
// removes.
//
// This file implements mpt/Transforms/Autocast.h but for its FP8 and MX
// parts (AutocastFp8.cpp, AutocastMx.cpp) and readLowCopiesInBackward
// (ReadLowCopies.cpp); the --mpt-autocast pass is AutocastPass.cpp.
//
//===----------------------------------------------------------------------===//
#include "mpt/Transforms/Autocast.h"
#include "mpt/Analysis/ReportUtils.h"
#include "mpt/IR/MPTDialect.h"
#include "mpt/IR/TrainingContract.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mpt;

namespace {
class PlanRewriter {
public:
  PlanRewriter(const PrecisionPlan &plan, MLIRContext *context)
      : plan(plan), builder(context),
        lowType(plan.getPolicy().getLowType()) {}

  void run(SmallVectorImpl<Operation *> *keptDeadOps) {
    // Carried values: the loop's own argument turns low first, so the ops
    // of the body see it; yields and results follow once the body is done.
    for (const CarriedValue &value : plan.getCarriedValues())
      if (value.precision == OpPrecision::Low)
        retypeCarriedEntry(value);
    for (Operation *op : plan.getOps())
      if (plan.isLow(op))
        rewrite(op);
    for (const CarriedValue &value : plan.getCarriedValues())
      if (value.precision == OpPrecision::Low)
        retypeCarriedExit(value);
    for (Operation *replaced : replacedDefs) {
      if (!replaced->use_empty())
        continue;
      if (keptDeadOps)
        keptDeadOps->push_back(replaced);
      else
        replaced->erase();
    }
  }

private:
  static bool isFloatTensor(Type type) {
    auto tensor = dyn_cast<TensorType>(type);
    return tensor && isa<FloatType>(tensor.getElementType());
  }
  Type toLow(Type type) { return cast<TensorType>(type).clone(lowType); }

  void setInsertionAfterDefinition(Value value) {
    if (Operation *def = value.getDefiningOp())
      builder.setInsertionPointAfter(def);
    else
      setInsertionAfterArgumentCasts(cast<BlockArgument>(value).getOwner());
  }

  /// Casts of block arguments go at the start of the block, in the order
  /// they are created. The end of that run of casts is remembered per block
  /// and only scanned forward: a step has one cast per parameter, and
  /// rescanning from the start for each would be quadratic.
  void setInsertionAfterArgumentCasts(Block *block) {
    Operation *&last = lastArgumentCast[block];
    auto it = last ? std::next(last->getIterator()) : block->begin();
    while (it != block->end() && isa<arith::ExtFOp, arith::TruncFOp>(*it) &&
           isa<BlockArgument>(it->getOperand(0)) &&
           cast<BlockArgument>(it->getOperand(0)).getOwner() == block)
      ++it;
    last = it == block->begin() ? nullptr : &*std::prev(it);
    builder.setInsertionPoint(block, it);
  }

  /// `value` as `type`: itself, the input of the extf that produced it
  /// (extension is exact, so that input is the same number), or one cast
  /// placed right after its producer and shared by all users.
  Value getCast(Value value, Type type) {
    if (value.getType() == type)
      return value;
    if (auto ext = value.getDefiningOp<arith::ExtFOp>())
      if (ext.getIn().getType() == type)
        return ext.getIn();
    Value &cached = casts[{value, type}];
    if (cached)
      return cached;
    OpBuilder::InsertionGuard guard(builder);
    setInsertionAfterDefinition(value);
    cached = createCast(value, type);
    return cached;
  }

  /// The cast of a constant is a constant (folded as the greedy driver
  /// would): the step does not round it on every run.
  Value createCast(Value value, Type type) {
    unsigned from = getElementTypeOrSelf(value.getType()).getIntOrFloatBitWidth();
    unsigned to = getElementTypeOrSelf(type).getIntOrFloatBitWidth();
    Value cast =
        to > from
            ? builder.createOrFold<arith::ExtFOp>(value.getLoc(), type, value)
            : builder.createOrFold<arith::TruncFOp>(value.getLoc(), type, value);
    // A constant read only by what now reads its folded cast goes.
    if (Operation *def = value.getDefiningOp();
        def && def->hasTrait<OpTrait::ConstantLike>() && cast.getDefiningOp() &&
        cast.getDefiningOp()->hasTrait<OpTrait::ConstantLike>())
      replacedDefs.insert(def);
    return cast;
  }

  /// Storage for an init the body never reads: a low-precision
  /// tensor.empty next to the original one, or a cast.
  Value getStorage(Value value, Type type) {
    auto empty = value.getDefiningOp<tensor::EmptyOp>();
    if (!empty || value.getType() == type)
      return getCast(value, type);
    Value &cached = empties[{value, type}];
    if (cached)
      return cached;
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointAfter(empty);
    cached = tensor::EmptyOp::create(builder, empty.getLoc(), type,
                                     empty.getDynamicSizes());
    replacedDefs.insert(empty);
    return cached;
  }

  /// Gives a body argument the low element type; its users keep computing
  /// in f32 (opmath) through an extf at the start of the body.
  void retypeBodyArgument(BlockArgument arg) {
    Type oldType = arg.getType();
    if (oldType == lowType)
      return;
    arg.setType(lowType);
    if (arg.use_empty())
      return;
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(arg.getOwner());
    Value ext = arith::ExtFOp::create(builder, arg.getLoc(), oldType, arg);
    arg.replaceAllUsesExcept(ext, ext.getDefiningOp());
  }

  /// Gives `result` a low-precision type; users that were there keep
  /// reading f32 through an extf right after the op.
  void retypeResult(OpResult result) {
    Type oldType = result.getType();
    Type newType = toLow(oldType);
    if (oldType == newType)
      return;
    result.setType(newType);
    if (result.use_empty())
      return;
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointAfter(result.getOwner());
    Value ext = arith::ExtFOp::create(builder, result.getLoc(), oldType, result);
    result.replaceAllUsesExcept(ext, ext.getDefiningOp());
  }

  /// A carried value's entry (RegionFlow.h): the operands the op itself
  /// forwards (an scf.for's init) and its region arguments (the iter_arg)
  /// turn low; users of an argument keep reading f32 through an extf at the
  /// start of its block until their own rewrite.
  void retypeCarriedEntry(const CarriedValue &value) {
    for (OpOperand *init : value.group.getEntrySources())
      init->set(getCast(init->get(), toLow(init->get().getType())));
    for (BlockArgument arg : value.group.getRegionArguments()) {
      Type oldType = arg.getType();
      Type newType = toLow(oldType);
      if (oldType == newType)
        continue;
      arg.setType(newType);
      if (arg.use_empty())
        continue;
      OpBuilder::InsertionGuard guard(builder);
      setInsertionAfterArgumentCasts(arg.getOwner());
      Value ext = arith::ExtFOp::create(builder, arg.getLoc(), oldType, arg);
      arg.replaceAllUsesExcept(ext, ext.getDefiningOp());
    }
  }

  /// A carried value's exit: the terminators' operands (yields, an
  /// scf.while's condition arguments) and the op's results.
  void retypeCarriedExit(const CarriedValue &value) {
    for (OpOperand *operand : value.group.getTerminatorSources())
      operand->set(getCast(operand->get(), toLow(operand->get().getType())));
    for (OpResult result : value.group.getResults())
      retypeResult(result);
  }

  /// Truncates the value a body yields for a low result.
  void truncateYield(Operation *yield, unsigned index) {
    Value yielded = yield->getOperand(index);
    if (yielded.getType() == lowType)
      return;
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(yield);
    yield->setOperand(index, builder.createOrFold<arith::TruncFOp>(
                                 yield->getLoc(), lowType, yielded));
  }

  void rewrite(Operation *op) {
    const OpDecision &decision = plan.getDecision(op);
    bool allow = decision.opClass == OpClass::Allow;

    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      // The fill value must have the output's element type; the plan made
      // sure it fits.
      OpOperand *value = fill.getDpsInputOperand(0);
      if (isa<FloatType>(value->get().getType())) {
        value->set(getCast(value->get(), lowType));
        retypeBodyArgument(fill.getBlock()->getArgument(0));
      }
    }
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      Block *body = linalgOp.getBlock();
      for (OpOperand &operand : op->getOpOperands()) {
        if (!isFloatTensor(operand.get().getType()))
          continue;
        bool init = linalgOp.isDpsInit(&operand);
        if (allow && init)
          continue; // f32 accumulator
        if (plan.keepsF32(operand))
          continue; // f32 statistics of a low normalisation
        Type type = toLow(operand.get().getType());
        unsigned index = operand.getOperandNumber();
        BlockArgument arg;
        if (body->getNumArguments() == op->getNumOperands() ||
            (index < body->getNumArguments() && !init))
          arg = body->getArgument(index);
        bool read = arg && !arg.use_empty();
        operand.set(init && !read ? getStorage(operand.get(), type)
                                  : getCast(operand.get(), type));
        if (arg)
          retypeBodyArgument(arg);
      }
      if (allow)
        return;
      for (OpResult result : op->getResults()) {
        if (!isFloatTensor(result.getType()))
          continue;
        retypeResult(result);
        truncateYield(body->getTerminator(), result.getResultNumber());
      }
      return;
    }

    if (allow) {
      rewriteTosaAllowOp(op);
      return;
    }
    for (OpOperand &operand : op->getOpOperands())
      if (isFloatTensor(operand.get().getType()))
        operand.set(getCast(operand.get(), toLow(operand.get().getType())));
    for (OpResult result : op->getResults())
      if (isFloatTensor(result.getType()))
        retypeResult(result);
    if (auto pad = dyn_cast<tensor::PadOp>(op))
      truncateYield(pad.getRegion().front().getTerminator(), 0);
  }

  /// A TOSA zero point in the low type: a new constant next to the old one
  /// (TOSA wants zero points to be constants), else a cast.
  Value getZeroPoint(Value value, Type type) {
    DenseFPElementsAttr attr;
    Operation *def = value.getDefiningOp();
    if (value.getType() == type || !def ||
        !matchPattern(value, m_Constant(&attr)) || !attr.isSplat())
      return getCast(value, type);
    Value &cached = zeroPoints[{value, type}];
    if (cached)
      return cached;
    APFloat zero = attr.getSplatValue<APFloat>();
    bool losesInfo = false;
    zero.convert(cast<FloatType>(lowType).getFloatSemantics(),
                 APFloat::rmNearestTiesToEven, &losesInfo);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointAfter(def);
    cached = tosa::ConstOp::create(
        builder, def->getLoc(), type,
        DenseElementsAttr::get(cast<ShapedType>(type), zero));
    replacedDefs.insert(def);
    return cached;
  }

  /// TOSA's low-precision profiles (getTosaLowPrecisionRule): tosa.matmul
  /// takes f16/bf16 inputs and zero points and returns f32; the
  /// convolutions take low-precision input, weight, bias and zero points,
  /// accumulate in f32 (acc_type) and return the low type.
  void rewriteTosaAllowOp(Operation *op) {
    const TosaLowPrecisionRule *rule = getTosaLowPrecisionRule(op);
    assert(rule && "the plan lowers only TOSA ops it has a rule for");
    for (unsigned i = 0, e = rule->numLowOperands + rule->numZeroPoints;
         i < e; ++i) {
      OpOperand &operand = op->getOpOperand(i);
      if (!isFloatTensor(operand.get().getType()))
        continue;
      Type type = toLow(operand.get().getType());
      operand.set(i >= rule->numLowOperands ? getZeroPoint(operand.get(), type)
                                            : getCast(operand.get(), type));
    }
    if (!rule->lowResult)
      return;
    op->setAttr("acc_type", TypeAttr::get(Float32Type::get(op->getContext())));
    retypeResult(op->getResult(0));
  }

  const PrecisionPlan &plan;
  OpBuilder builder;
  Type lowType;
  llvm::DenseMap<std::pair<Value, Type>, Value> casts, empties, zeroPoints;
  /// The last cast of a block argument at the start of each block (null:
  /// none yet), see setInsertionAfterArgumentCasts.
  llvm::DenseMap<Block *, Operation *> lastArgumentCast;
  /// tensor.empty and zero-point constants replaced by low-precision ones:
  /// erased at the end if nothing else uses them.
  llvm::SetVector<Operation *> replacedDefs;
};
} // namespace

void mpt::applyPrecisionPlan(FunctionOpInterface func,
                             const PrecisionPlan &plan,
                             SmallVectorImpl<Operation *> *keptDeadOps) {
  PlanRewriter(plan, func->getContext()).run(keptDeadOps);
  if (plan.getPolicy().getLevel() == PolicyLevel::Promote)
    readLowCopiesInBackward(func,
                            plan.getPolicy().getLowType());
  cleanupCasts(func, keptDeadOps);
}

LogicalResult mpt::addWorkingCopies(FunctionOpInterface func, Type lowType,
                                   SmallVectorImpl<WorkingCopy> &added) {
  Region &body = func.getFunctionBody();
  SmallVector<Operation *> returns;
  for (Block &block : body)
    if (!block.empty() && block.back().hasTrait<OpTrait::ReturnLike>())
      returns.push_back(&block.back());
  bool hasParams = llvm::any_of(
      llvm::seq<unsigned>(0, func.getNumArguments()),
      [&](unsigned i) { return getArgRole(func, i) == ArgRole::Param; });
  if (!hasParams)
    return success();
  if (returns.size() != 1)
    return func.emitError()
           << "master-weights needs a function with one return; this one has "
           << returns.size();
  Operation *ret = returns.front();
  MLIRContext *context = func->getContext();
  OpBuilder builder(context);

  // Which result updates each argument: one pass over the results (not one
  // per parameter).
  unsigned numArgs = func.getNumArguments();
  unsigned numResults = func.getNumResults();
  llvm::DenseMap<unsigned, unsigned> resultOf;
  for (unsigned r = 0; r < numResults; ++r)
    if (std::optional<unsigned> arg = getUpdatedArg(func, r))
      resultOf.try_emplace(*arg, r);

  // The f32 parameters whose low-precision copy the step makes at its
  // entry and whose next value it returns.
  struct Copy {
    unsigned param, result;
    arith::TruncFOp entryCast;
  };
  SmallVector<Copy> copies;
  for (unsigned param = 0; param < numArgs; ++param) {
    if (getArgRole(func, param) != ArgRole::Param)
      continue;
    Value master = func.getArgument(param);
    auto masterType = dyn_cast<TensorType>(master.getType());
    auto result = resultOf.find(param);
    if (!masterType || !masterType.getElementType().isF32() ||
        result == resultOf.end())
      continue;
    Type copyType = masterType.clone(lowType);
    arith::TruncFOp entryCast;
    for (Operation *user : master.getUsers())
      if (auto trunc = dyn_cast<arith::TruncFOp>(user))
        if (trunc.getType() == copyType)
          entryCast = trunc;
    if (entryCast)
      copies.push_back({param, result->second, entryCast});
  }
  if (copies.empty())
    return success();

  // All working copies appended at once: each insertion rebuilds the
  // function's type and attributes, so one per copy would be quadratic.
  SmallVector<unsigned> argIndices(copies.size(), numArgs);
  SmallVector<Type> copyTypes;
  SmallVector<DictionaryAttr> argAttrs;
  SmallVector<Location> argLocs;
  NamedAttribute role(StringAttr::get(context, MPTDialect::kRoleAttrName),
                      StringAttr::get(context, "optimizer_state"));
  for (Copy &copy : copies) {
    copyTypes.push_back(copy.entryCast.getType());
    NamedAttribute of(
        StringAttr::get(context, MPTDialect::kWorkingCopyOfAttrName),
        IntegerAttr::get(IntegerType::get(context, 64), copy.param));
    argAttrs.push_back(DictionaryAttr::get(context, {role, of}));
    argLocs.push_back(func.getArgument(copy.param).getLoc());
  }
  if (failed(func.insertArguments(argIndices, copyTypes, argAttrs, argLocs)))
    return func.emitError("cannot append the working-copy arguments");

  SmallVector<unsigned> resultIndices(copies.size(), numResults);
  SmallVector<DictionaryAttr> resultAttrs;
  SmallVector<Value> nextCopies;
  for (auto [i, copy] : llvm::enumerate(copies)) {
    unsigned arg = numArgs + i;
    copy.entryCast.getResult().replaceAllUsesWith(func.getArgument(arg));
    copy.entryCast.erase();
    // The next step's working copy: the updated master, truncated next to
    // where it is computed.
    Value updated = ret->getOperand(copy.result);
    if (Operation *def = updated.getDefiningOp())
      builder.setInsertionPointAfter(def);
    else
      builder.setInsertionPointToStart(
          cast<BlockArgument>(updated).getOwner());
    nextCopies.push_back(arith::TruncFOp::create(builder, updated.getLoc(),
                                                 copyTypes[i], updated));
    NamedAttribute updates(
        StringAttr::get(context, MPTDialect::kUpdatesAttrName),
        IntegerAttr::get(IntegerType::get(context, 64), arg));
    resultAttrs.push_back(DictionaryAttr::get(context, updates));
    added.push_back({copy.param, arg, numResults + static_cast<unsigned>(i)});
  }
  if (failed(func.insertResults(resultIndices, copyTypes, resultAttrs)))
    return func.emitError("cannot append the working-copy results");
  ret->insertOperands(ret->getNumOperands(), nextCopies);
  return success();
}

static bool isCast(Operation *op) {
  return isa<arith::ExtFOp, arith::TruncFOp>(op);
}

bool mpt::cleanupCasts(Operation *root,
                       SmallVectorImpl<Operation *> *detachedOps) {
  bool changed = false;
  SmallVector<Operation *> castOps;
  root->walk([&](Operation *op) {
    if (isCast(op))
      castOps.push_back(op);
  });

  // truncf(extf(x)) is x when the types match: extension is exact.
  for (Operation *op : castOps) {
    auto trunc = dyn_cast<arith::TruncFOp>(op);
    if (!trunc)
      continue;
    auto ext = trunc.getIn().getDefiningOp<arith::ExtFOp>();
    if (ext && ext.getIn().getType() == trunc.getType() &&
        !trunc.use_empty()) {
      trunc.getResult().replaceAllUsesWith(ext.getIn());
      changed = true;
    }
  }

  // One cast per value and type, right after the producer, which
  // dominates every user of the value.
  llvm::DenseMap<std::tuple<Value, Type, OperationName>, Operation *> kept;
  for (Operation *op : castOps) {
    if (op->use_empty())
      continue;
    auto key = std::make_tuple(op->getOperand(0), op->getResult(0).getType(),
                               op->getName());
    auto [it, inserted] = kept.insert({key, op});
    if (inserted)
      continue;
    Operation *first = it->second;
    Value input = op->getOperand(0);
    if (Operation *def = input.getDefiningOp()) {
      if (first->getPrevNode() != def || first->getBlock() != def->getBlock())
        first->moveAfter(def);
    } else {
      Block *owner = cast<BlockArgument>(input).getOwner();
      if (first->getBlock() != owner || first != &owner->front())
        first->moveBefore(&owner->front());
    }
    op->getResult(0).replaceAllUsesWith(first->getResult(0));
    changed = true;
  }

  // Unused casts, users before producers. A caller that still reads them
  // (the report prints the plan, which may name input casts) gets them
  // detached, with their operands dropped so their producers can go too.
  for (Operation *op : llvm::reverse(castOps)) {
    if (!op->use_empty())
      continue;
    changed = true;
    if (!detachedOps) {
      op->erase();
      continue;
    }
    op->dropAllReferences();
    op->remove();
    detachedOps->push_back(op);
  }
  return changed;
}

CastCounts mpt::countCasts(Operation *root) {
  CastCounts counts;
  root->walk([&](Operation *op) {
    if (!isCast(op))
      return;
    if (isa<TensorType>(op->getResult(0).getType()))
      ++counts.tensorCasts;
    else if (op->getParentOfType<linalg::LinalgOp>())
      ++counts.bodyCasts;
  });
  return counts;
}

//===----------------------------------------------------------------------===//
// Report
//===----------------------------------------------------------------------===//

namespace {
struct Totals {
  unsigned low = 0, fp32 = 0, unchanged = 0;
};
} // namespace

static StringRef precisionName(const OpDecision &d, StringRef lowName) {
  switch (d.precision) {
  case OpPrecision::Low:
    return lowName;
  case OpPrecision::FP32:
    return "f32";
  case OpPrecision::Unchanged:
    return "unchanged";
  }
  llvm_unreachable("unknown precision");
}

/// A contraction with FP8 or MX operands is listed with their format.
static std::string precisionName(const OpDecision &d, StringRef lowName,
                                 const AutocastSummary &summary,
                                 Operation *op) {
  auto it = summary.contractionFormats.find(op);
  if (it != summary.contractionFormats.end())
    return it->second;
  return precisionName(d, lowName).str();
}

/// The plan's reason, with "<low> inputs" of a contraction that gets FP8
/// or MX operands naming them instead.
static std::string describe(const PrecisionPlan &plan, StringRef lowName,
                            const AutocastSummary &summary, Operation *op) {
  std::string text = plan.describe(op);
  auto it = summary.contractionFormats.find(op);
  if (it == summary.contractionFormats.end())
    return text;
  std::string from = (lowName + " inputs").str();
  size_t at = text.find(from);
  if (at != std::string::npos)
    text.replace(at, from.size(), it->second + " operands");
  auto scales = summary.contractionScales.find(op);
  if (scales != summary.contractionScales.end())
    text += "; " + scales->second;
  return text;
}

std::string mpt::describeDecision(const PrecisionPlan &plan,
                                  const AutocastSummary &summary,
                                  Operation *op) {
  const OpDecision &d = plan.getDecision(op);
  StringRef lowName = plan.getPolicy().getLowTypeName();
  return (op->getName().getStringRef() + " [" +
          stringifyTrainingRegion(d.region) + "] " +
          precisionName(d, lowName, summary, op) + ": " +
          describe(plan, lowName, summary, op))
      .str();
}

static Totals countTotals(const PrecisionPlan &plan) {
  Totals totals;
  for (Operation *op : plan.getOps()) {
    switch (plan.getDecision(op).precision) {
    case OpPrecision::Low:
      ++totals.low;
      break;
    case OpPrecision::FP32:
      ++totals.fp32;
      break;
    case OpPrecision::Unchanged:
      ++totals.unchanged;
      break;
    }
  }
  return totals;
}

void mpt::printPrecisionReport(
    ArrayRef<std::tuple<FunctionOpInterface, const PrecisionPlan *,
                        AutocastSummary>>
        functions,
    bool json, llvm::raw_ostream &os) {
  if (json) {
    llvm::json::Array entries;
    for (auto &[constFunc, plan, summary] : functions) {
      FunctionOpInterface func = constFunc;
      StringRef lowName = plan->getPolicy().getLowTypeName();
      Totals totals = countTotals(*plan);
      llvm::json::Array ops;
      for (Operation *op : plan->getOps()) {
        const OpDecision &d = plan->getDecision(op);
        ops.push_back(llvm::json::Object{
            {"op", op->getName().getStringRef()},
            {"loc", formatLocation(op->getLoc())},
            {"region", stringifyTrainingRegion(d.region)},
            {"class", stringifyOpClass(d.opClass)},
            {"precision", precisionName(d, lowName, summary, op)},
            {"reason", describe(*plan, lowName, summary, op)}});
      }
      llvm::json::Array copies;
      for (const WorkingCopy &copy : summary.workingCopies)
        copies.push_back(llvm::json::Object{
            {"param_arg", static_cast<int64_t>(copy.param)},
            {"working_copy_arg", static_cast<int64_t>(copy.arg)},
            {"working_copy_result", static_cast<int64_t>(copy.result)}});
      llvm::json::Array carriedValues;
      for (const CarriedValue &value : plan->getCarriedValues())
        carriedValues.push_back(llvm::json::Object{
            {"op", value.owner->getName().getStringRef()},
            {"loc", formatLocation(value.owner->getLoc())},
            {"index", static_cast<int64_t>(value.index)},
            {"precision",
             value.precision == OpPrecision::Low ? lowName : "f32"},
            {"reason", plan->describe(value)}});
      entries.push_back(llvm::json::Object{
          {"carried_values", std::move(carriedValues)},
          {"working_copies", std::move(copies)},
          {"training_step", summary.trainingStep},
          {"function", func.getName()},
          {"loc", formatLocation(func.getLoc())},
          {"dtype", summary.scaledDtype.empty() ? lowName.str()
                                                 : summary.scaledDtype},
          {"policy_level",
           stringifyPolicyLevel(plan->getPolicy().getLevel())},
          {"ops_by_precision",
           llvm::json::Object{{lowName, static_cast<int64_t>(totals.low)},
                              {"f32", static_cast<int64_t>(totals.fp32)},
                              {"unchanged",
                               static_cast<int64_t>(totals.unchanged)}}},
          {"casts_inserted",
           static_cast<int64_t>(summary.castsAfter.tensorCasts) -
               static_cast<int64_t>(summary.castsBefore.tensorCasts)},
          {"tensor_casts",
           llvm::json::Object{
               {"before",
                static_cast<int64_t>(summary.castsBefore.tensorCasts)},
               {"after",
                static_cast<int64_t>(summary.castsAfter.tensorCasts)}}},
          {"body_casts",
           llvm::json::Object{
               {"before", static_cast<int64_t>(summary.castsBefore.bodyCasts)},
               {"after", static_cast<int64_t>(summary.castsAfter.bodyCasts)}}},
          {"memory_before", memoryEstimateToJson(summary.memoryBefore)},
          {"memory_after", memoryEstimateToJson(summary.memoryAfter)},
          {"ops", std::move(ops)}});
      if (!summary.fp8Scaling.empty())
        entries.back().getAsObject()->try_emplace("fp8_scaling",
                                                  summary.fp8Scaling);
    }
    writeJson(os, llvm::json::Object{{"functions", std::move(entries)}});
    return;
  }
  for (auto &[constFunc, plan, summary] : functions) {
    FunctionOpInterface func = constFunc;
    StringRef lowName = plan->getPolicy().getLowTypeName();
    Totals totals = countTotals(*plan);
    os << "mpt precision report: @" << func.getName() << " ("
       << formatLocation(func.getLoc()) << "), dtype "
       << (summary.scaledDtype.empty()
               ? lowName.str()
               : summary.scaledDtype + " (" + lowName.str() +
                     " painting; contractions listed with their format)")
       << ", policy level "
       << stringifyPolicyLevel(plan->getPolicy().getLevel()) << "\n";
    if (!summary.fp8Scaling.empty())
      os << "  fp8 scaling: " << summary.fp8Scaling << "\n";
    if (!summary.trainingStep)
      os << "  no training markers: plain autocast, every op counts as "
            "forward\n";
    os << "  ops: " << lowName << " " << totals.low << ", f32 " << totals.fp32
       << ", unchanged " << totals.unchanged << "\n";
    // Cleanup may also merge casts the input already had, so before and
    // after are printed with the difference.
    os << "  casts inserted: "
       << static_cast<int64_t>(summary.castsAfter.tensorCasts) -
              static_cast<int64_t>(summary.castsBefore.tensorCasts)
       << " on tensors (" << summary.castsBefore.tensorCasts << " -> "
       << summary.castsAfter.tensorCasts << "); scalar casts in linalg bodies "
       << summary.castsBefore.bodyCasts << " -> "
       << summary.castsAfter.bodyCasts << " (f32 opmath)\n";
    for (const WorkingCopy &copy : summary.workingCopies)
      os << "  master weights: arg #" << copy.param
         << " (f32 master) has working copy arg #" << copy.arg << " ("
         << lowName << "), returned as result #" << copy.result << "\n";
    os << "  memory estimate before:\n";
    printMemoryEstimate(summary.memoryBefore, os, "    ");
    os << "  memory estimate after:\n";
    printMemoryEstimate(summary.memoryAfter, os, "    ");
    os << "  ops:\n";
    llvm::DenseMap<Operation *, SmallVector<const CarriedValue *>> carriedOf;
    for (const CarriedValue &value : plan->getCarriedValues())
      carriedOf[value.owner].push_back(&value);
    for (Operation *op : plan->getOps()) {
      os << "    " << formatLocation(op->getLoc()) << " "
         << describeDecision(*plan, summary, op) << "\n";
      for (const CarriedValue *value : carriedOf.lookup(op))
        os << "      carried value " << value->group.getLabel() << ": "
           << (value->precision == OpPrecision::Low ? lowName : "f32")
           << ": " << plan->describe(*value) << "\n";
    }
  }
}

//===----------------------------------------------------------------------===//
// Input check
//===----------------------------------------------------------------------===//

LogicalResult mpt::checkNoOtherLowType(FunctionOpInterface func,
                                       Type lowType) {
  // f16 and bf16 are the two low types; a step holding the other one was
  // autocast before, and painting it again would leave those ops as they
  // are.
  auto isOtherLow = [&](Type type) {
    Type element = getElementTypeOrSelf(type);
    return isa<Float16Type, BFloat16Type>(element) && element != lowType;
  };
  auto explain = [&](InFlightDiagnostic diag, Type type) {
    diag << getElementTypeOrSelf(type) << " but autocast runs with dtype "
         << lowType << ": the step was already autocast to "
         << getElementTypeOrSelf(type)
         << " (autocast the FP32 step, or use that dtype)";
    return failure();
  };
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
    if (isOtherLow(type))
      return explain(func.emitError() << "argument #" << i << " is ", type);
  Operation *found = nullptr;
  Type foundType;
  func.getFunctionBody().walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      if (isOtherLow(type)) {
        found = op;
        foundType = type;
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (found)
    return explain(found->emitError()
                       << "'" << found->getName().getStringRef()
                       << "' produces ",
                   foundType);
  return success();
}

LogicalResult AutocastConfig::initialize(MLIRContext *context,
                                         const AutocastOptions &options) {
  PolicyOptions policyOptions;
  policyOptions.dtype = options.dtype;
  policyOptions.policyFile = options.policy;
  policyOptions.allow.assign(options.allow.begin(), options.allow.end());
  policyOptions.deny.assign(options.deny.begin(), options.deny.end());
  policyOptions.infer.assign(options.infer.begin(), options.infer.end());
  policyOptions.clear.assign(options.clear.begin(), options.clear.end());
  policyOptions.level = options.policyLevel;
  policyOptions.lossRegionF32 = options.lossRegion;
  policy = PrecisionPolicy::buildShared(context, policyOptions);
  if (!policy)
    return failure();
  masterWeights = options.masterWeights;
  // FP8 and MX operands are cast from the f32 parameters each step: a
  // low-precision working copy would be a second, unused one.
  StringRef scaled;
  if (policy->isFp8()) {
    FailureOr<Fp8Options> parsed = Fp8Options::get(context, options);
    if (failed(parsed))
      return failure();
    fp8 = *parsed;
    scaled = "FP8";
  } else if (!policy->getMx().empty()) {
    mx = MxOptions::get(options);
    scaled = "MX";
  }
  if (!scaled.empty() && options.masterWeights)
    return emitError(UnknownLoc::get(context))
               << "master-weights is not supported with dtype="
               << stringifyAutocastDtype(options.dtype) << " (the " << scaled
               << " operands are cast from the f32 parameters each step)",
           failure();
  return success();
}
