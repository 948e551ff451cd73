//===- RecomputeInBackward.cpp - --mpt-recompute-in-backward --------------===//
//
// Forward values the backward reads, computed again in the backward from
// values it keeps anyway, so that they die in the forward. See the pass
// description in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "mpt/Analysis/TrainingGraph.h"
#include "mpt/IR/TrainingContract.h"
#include "mpt/IR/MPTOps.h"
#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mpt {
#define GEN_PASS_DEF_RECOMPUTEINBACKWARD
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

/// A value is small next to the one recomputed from it at this ratio: it is
/// then kept for the backward instead (statistics, per-channel parameters).
static constexpr uint64_t kSmallInputRatio = 16;

/// Bytes of a statically shaped tensor of numbers; nullopt otherwise.
static std::optional<uint64_t> getTensorBytes(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() ||
      !type.getElementType().isIntOrFloat())
    return std::nullopt;
  uint64_t count = 1;
  for (int64_t dim : type.getShape())
    count = llvm::SaturatingMultiply(count, static_cast<uint64_t>(dim));
  return llvm::SaturatingMultiply(
      count, static_cast<uint64_t>((type.getElementTypeBitWidth() + 7) / 8));
}

static bool isReshape(Operation *op) {
  return isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op);
}

/// Whether copying `op` costs one pass over its operands and result: a
/// reshape, an elementwise op on tensors, or a linalg.generic with parallel
/// loops only, projected-permutation maps (elementwise with broadcasts), a
/// body of side-effect-free scalar ops, and an init it does not read.
static bool isRecomputable(Operation *op) {
  if (op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return false;
  if (isReshape(op))
    return true;
  if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
    if (!generic.hasPureTensorSemantics() || generic.getNumDpsInits() != 1 ||
        generic.getNumReductionLoops() != 0 ||
        generic.payloadUsesValueFromOperand(generic.getDpsInitOperand(0)))
      return false;
    for (AffineMap map : generic.getIndexingMapsArray())
      if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
        return false;
    for (Operation &bodyOp : generic.getBody()->without_terminator())
      if (bodyOp.getNumRegions() != 0 || !isMemoryEffectFree(&bodyOp))
        return false;
    // A new init must be made: from a tensor.empty, or a static shape.
    Value init = generic.getDpsInitOperand(0)->get();
    return init.getDefiningOp<tensor::EmptyOp>() ||
           cast<RankedTensorType>(init.getType()).hasStaticShape();
  }
  // Autocast's casts of whole tensors (arith.truncf/extf), and the like.
  return op->hasTrait<OpTrait::Elementwise>() && op->getNumRegions() == 0 &&
         isMemoryEffectFree(op) &&
         llvm::all_of(op->getOperandTypes(),
                      [](Type type) { return isa<RankedTensorType>(type); });
}

namespace {
/// How one kept value is computed again.
struct RecomputePlan {
  /// The forward ops to copy, producers first.
  SmallVector<Operation *> ops;
  /// Small values the copies read that the backward did not keep before.
  SmallVector<Value> smallInputs;
};

class Recomputer {
public:
  Recomputer(Block &body, const TrainingGraph &graph, unsigned maxOps)
      : body(body), graph(graph), maxOps(maxOps) {}

  /// Recomputes what it can; returns the number of values recomputed.
  unsigned run();

private:
  Operation *getTopLevelOp(Operation *op) const {
    return body.findAncestorOpInBlock(*op);
  }
  bool isBackward(Operation *op) const {
    Operation *top = getTopLevelOp(op);
    return top && (copies.contains(top) ||
                   graph.getRegion(top) == TrainingRegion::Backward);
  }
  bool isForwardOp(Operation *op) const {
    return op->getBlock() == &body && !copies.contains(op) &&
           graph.getRegion(op) == TrainingRegion::Forward;
  }
  /// The backward reads of `value`, or failure when a backward op writes
  /// into it (an init) and the value cannot be replaced by a copy.
  FailureOr<SmallVector<OpOperand *>> getBackwardReads(Value value) const;
  /// Whether the backward has `value` anyway: an argument, a constant, a
  /// value it keeps.
  bool isAvailable(Value value) const;
  bool plan(Value value, bool isRoot, uint64_t rootBytes, unsigned &numOps,
            unsigned &numVisited, llvm::SmallPtrSetImpl<Value> &planned,
            RecomputePlan &result) const;
  /// Makes the copies, points `reads` at them and erases the forward ops
  /// left unread (added to `erased`).
  void apply(const RecomputePlan &plan, ArrayRef<OpOperand *> reads,
             llvm::DenseSet<Operation *> &erased);

  Block &body;
  const TrainingGraph &graph;
  unsigned maxOps;
  /// Forward values the backward reads and that are not recomputed.
  llvm::DenseSet<Value> kept;
  /// The copies made so far (backward ops the graph does not know).
  llvm::DenseSet<Operation *> copies;
};
} // namespace

FailureOr<SmallVector<OpOperand *>>
Recomputer::getBackwardReads(Value value) const {
  SmallVector<OpOperand *> reads;
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    // The seed reads only the loss's shape; a return is no read.
    if (isa<GradSeedOp>(user) || user->hasTrait<OpTrait::IsTerminator>() ||
        !isBackward(user))
      continue;
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(user))
      if (dps.isDpsInit(&use))
        return failure();
    reads.push_back(&use);
  }
  return reads;
}

bool Recomputer::isAvailable(Value value) const {
  if (isa<BlockArgument>(value))
    return cast<BlockArgument>(value).getOwner() == &body;
  Operation *def = value.getDefiningOp();
  return def->hasTrait<OpTrait::ConstantLike>() || kept.contains(value);
}

/// Adds to `result` the ops that compute `value` from available values,
/// producers first. `rootBytes` is the size of the value the plan is for.
bool Recomputer::plan(Value value, bool isRoot, uint64_t rootBytes,
                      unsigned &numOps, unsigned &numVisited,
                      llvm::SmallPtrSetImpl<Value> &planned,
                      RecomputePlan &result) const {
  if (planned.contains(value))
    return true;
  if (!isRoot) {
    if (isAvailable(value))
      return true;
    std::optional<uint64_t> bytes = getTensorBytes(value);
    if (bytes && *bytes * kSmallInputRatio <= rootBytes) {
      result.smallInputs.push_back(value);
      planned.insert(value);
      return true;
    }
  }
  Operation *def = value.getDefiningOp();
  // Reshapes are free, but a chain of them is still bounded.
  if (!def || !isForwardOp(def) || !isRecomputable(def) ||
      ++numVisited > 4 * maxOps || (!isReshape(def) && ++numOps > maxOps))
    return false;
  auto generic = dyn_cast<linalg::GenericOp>(def);
  for (OpOperand &operand : def->getOpOperands()) {
    // A generic's init is replaced by a new tensor.empty.
    if (generic && generic.isDpsInit(&operand))
      continue;
    if (!plan(operand.get(), /*isRoot=*/false, rootBytes, numOps, numVisited,
              planned, result))
      return false;
  }
  result.ops.push_back(def);
  planned.insert(value);
  return true;
}

void Recomputer::apply(const RecomputePlan &plan, ArrayRef<OpOperand *> reads,
                       llvm::DenseSet<Operation *> &erased) {
  // Before the first backward reader, so that every reader sees the copy.
  Operation *first = nullptr;
  for (OpOperand *read : reads) {
    Operation *top = getTopLevelOp(read->getOwner());
    if (!first || top->isBeforeInBlock(first))
      first = top;
  }
  OpBuilder builder(first);
  IRMapping mapping;
  Value copy;
  for (Operation *op : plan.ops) {
    // A generic's new init first: the copy must come after it.
    Value newInit;
    if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
      Value init = generic.getDpsInitOperand(0)->get();
      auto type = cast<RankedTensorType>(init.getType());
      if (auto empty = init.getDefiningOp<tensor::EmptyOp>())
        newInit = builder.clone(*empty)->getResult(0);
      else
        newInit = tensor::EmptyOp::create(builder, op->getLoc(),
                                          type.getShape(),
                                          type.getElementType());
      copies.insert(newInit.getDefiningOp());
    }
    Operation *clone = builder.clone(*op, mapping);
    if (newInit)
      cast<linalg::GenericOp>(clone).getDpsInitOperand(0)->set(newInit);
    clone->setAttr(kRecomputedAttrName, builder.getUnitAttr());
    copies.insert(clone);
    copy = clone->getResult(0);
  }
  for (OpOperand *read : reads)
    read->set(copy);
  // The forward ops nothing reads any more (the value had no forward
  // reader, or an intermediate only fed it).
  for (Operation *op : llvm::reverse(plan.ops))
    if (op->use_empty()) {
      erased.insert(op);
      op->erase();
    }
}

unsigned Recomputer::run() {
  SmallVector<Operation *> forwardOps;
  for (Operation &op : body)
    if (graph.getRegion(&op) == TrainingRegion::Forward &&
        op.getNumResults() != 0)
      forwardOps.push_back(&op);
  // Ops a plan erased are not visited (their addresses are only compared).
  llvm::DenseSet<Operation *> erased;
  unsigned numRecomputed = 0;
  for (Operation *op : forwardOps) {
    if (erased.contains(op))
      continue;
    for (Value value : op->getResults()) {
      if (!isa<RankedTensorType>(value.getType()))
        continue;
      FailureOr<SmallVector<OpOperand *>> reads = getBackwardReads(value);
      if (succeeded(reads) && reads->empty())
        continue;
      std::optional<uint64_t> bytes = getTensorBytes(value);
      RecomputePlan recompute;
      llvm::SmallPtrSet<Value, 16> planned;
      unsigned numOps = 0, numVisited = 0;
      // Only a copy that computes something frees memory: a reshape of a
      // kept value is a view of it.
      if (failed(reads) || !bytes ||
          !plan(value, /*isRoot=*/true, *bytes, numOps, numVisited, planned,
                recompute) ||
          numOps == 0) {
        kept.insert(value);
        continue;
      }
      uint64_t smallBytes = 0;
      for (Value small : recompute.smallInputs)
        smallBytes += getTensorBytes(small).value_or(0);
      if (smallBytes * 4 > *bytes) {
        kept.insert(value);
        continue;
      }
      kept.insert(recompute.smallInputs.begin(), recompute.smallInputs.end());
      apply(recompute, *reads, erased);
      ++numRecomputed;
      // `op` may be gone.
      break;
    }
  }
  return numRecomputed;
}

namespace {
struct RecomputeInBackwardPass
    : public mpt::impl::RecomputeInBackwardBase<RecomputeInBackwardPass> {
  using RecomputeInBackwardBase::RecomputeInBackwardBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return markAllAnalysesPreserved();
    auto &graph = getAnalysis<TrainingGraph>();
    if (failed(graph.emitFindings()))
      return signalPassFailure();
    if (!graph.isTrainingStep() || !func.getBody().hasOneBlock() ||
        maxOps == 0)
      return markAllAnalysesPreserved();
    Recomputer(func.getBody().front(), graph, maxOps).run();
  }
};
} // namespace
