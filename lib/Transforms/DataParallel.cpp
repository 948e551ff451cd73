//===- DataParallel.cpp - --mpt-data-parallel -----------------------------===//
//
// Makes one training step (docs/TrainingGraphContract.md) data-parallel:
// every rank runs it on its shard of the batch, the gradients are
// all-reduced (in buckets) between the backward pass and the update, the
// loss is all-reduced for logging, and loss scaling's found-inf flag is
// all-reduced with max so that all ranks skip the same steps, as are FP8
// autocast's amaxes, so that all ranks keep the same scales. The
// all-reduces are mpt.all_reduce ops on tensors; --mpt-lower-all-reduce
// lowers them to the mpi dialect. docs/Distributed.md is the user guide.
//
//===----------------------------------------------------------------------===//
#include "mpt/Analysis/TrainingGraph.h"
#include "mpt/IR/MPTDialect.h"
#include "mpt/IR/MPTOps.h"
#include "mpt/IR/TrainingContract.h"
#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mpt {
#define GEN_PASS_DEF_DATAPARALLEL
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

static StringRef stringifyReduceDtype(ReduceDtype dtype) {
  switch (dtype) {
  case ReduceDtype::F32:
    return "f32";
  case ReduceDtype::BF16:
    return "bf16";
  case ReduceDtype::F16:
    return "f16";
  }
  llvm_unreachable("unknown reduce dtype");
}

/// The reassociation between a tensor of rank `rank` and its 1-D form: one
/// group of every dimension (none for a 0-D tensor).
static SmallVector<ReassociationIndices> flatReassociation(int64_t rank) {
  if (rank == 0)
    return {};
  return {llvm::to_vector(llvm::seq<int64_t>(0, rank))};
}

/// `value` (a ranked tensor of static shape) as a 1-D tensor of the same
/// elements, row-major.
static Value flatten(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  auto flatType =
      RankedTensorType::get({type.getNumElements()}, type.getElementType());
  SmallVector<ReassociationIndices> groups = flatReassociation(type.getRank());
  if (type.getRank() == 1)
    return value;
  if (type.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, flatType, value, groups);
  return tensor::CollapseShapeOp::create(b, loc, flatType, value, groups);
}

/// The inverse of flatten: `flat` (1-D) reshaped to `type`.
static Value unflatten(OpBuilder &b, Location loc, Value flat,
                       RankedTensorType type) {
  SmallVector<ReassociationIndices> groups = flatReassociation(type.getRank());
  if (type.getRank() == 1)
    return flat;
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, flat, groups);
  return tensor::ExpandShapeOp::create(b, loc, type, flat, groups);
}

/// Converts a float tensor to `to` (extf or truncf), or returns it.
static Value convertFloat(OpBuilder &b, Location loc, Value value,
                          Type toElement) {
  auto type = cast<RankedTensorType>(value.getType());
  auto from = cast<FloatType>(type.getElementType());
  auto to = cast<FloatType>(toElement);
  if (from == to)
    return value;
  auto resultType = type.clone(to);
  if (from.getWidth() < to.getWidth())
    return arith::ExtFOp::create(b, loc, resultType, value);
  return arith::TruncFOp::create(b, loc, resultType, value);
}

namespace {
struct DataParallelPass
    : public mpt::impl::DataParallelBase<DataParallelPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    if (bucketBytes < 4)
      return emitError(UnknownLoc::get(context))
             << "mpt-data-parallel: bucket-bytes must be at least 4 (one "
                "f32), got "
             << static_cast<int64_t>(bucketBytes);
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return markAllAnalysesPreserved();
    auto &graph = getAnalysis<TrainingGraph>();
    if (failed(graph.emitFindings()))
      return signalPassFailure();
    // Helpers and drivers (no marker, no loss) are not steps.
    if (!graph.isTrainingStep() && !graph.getLossResultIndex())
      return markAllAnalysesPreserved();
    if (failed(checkStep(func, graph)))
      return signalPassFailure();
    rewrite(func, graph);
  }

  LogicalResult checkStep(func::FuncOp func, const TrainingGraph &graph) {
    // Twice would all-reduce averages again: harmless for the gradients
    // (the mean of equal values), but two sets of collectives per step.
    if (auto mark = func->getAttrOfType<StringAttr>(kDataParallelAttrName))
      return func.emitError()
             << "the step is already data-parallel (" << kDataParallelAttrName
             << " = \"" << mark.getValue()
             << "\"); run --mpt-data-parallel once";
    // One walk for an existing all-reduce and for the overflow check.
    AllReduceOp existing;
    bool hasCheck = false;
    func.walk([&](Operation *op) {
      if (auto allReduce = dyn_cast<AllReduceOp>(op)) {
        existing = allReduce;
        return WalkResult::interrupt();
      }
      hasCheck |= isa<UnscaleAndCheckOp>(op);
      return WalkResult::advance();
    });
    if (existing)
      return existing.emitError()
             << "the step is already data-parallel ('mpt.all_reduce'); run "
                "--mpt-data-parallel once";
    if (graph.getGradients().empty())
      return func.emitError()
             << "data parallelism needs the gradients, marked with "
                "'mpt.gradient'; the step has none";
    if (func->hasAttr(kLossScalingAttrName) && !hasCheck)
      return func.emitError()
             << "the step's loss scaling is already lowered: its found-inf "
                "flag can no longer be all-reduced; run --mpt-data-parallel "
                "after --mpt-insert-loss-scaling and before "
                "--mpt-lower-loss-scaling";
    if (!func.getBody().hasOneBlock())
      return func.emitError()
             << "data parallelism needs a step whose body is a single block "
                "(express control flow with scf); this one has "
             << func.getBody().getBlocks().size() << " blocks";
    Block *body = &func.getBody().front();
    for (GradientOp grad : graph.getGradients()) {
      if (grad->getBlock() != body)
        return grad.emitError()
               << "data parallelism needs every 'mpt.gradient' at the top "
                  "level of the step (its all-reduce follows it); this one "
                  "is nested in '"
               << grad->getParentOp()->getName().getStringRef() << "'";
      auto elementType = grad.getType().getElementType();
      if (elementType.getIntOrFloatBitWidth() > 32)
        return grad.emitError()
               << "data parallelism reduces gradients in f32; this one is "
               << grad.getType();
    }
    return success();
  }

  void rewrite(func::FuncOp func, const TrainingGraph &graph) {
    MLIRContext *ctx = &getContext();
    Block *body = &func.getBody().front();
    OpBuilder b(ctx);
    Type f32 = Float32Type::get(ctx);
    TypeAttr wire;
    if (reduceDtype == ReduceDtype::BF16)
      wire = TypeAttr::get(BFloat16Type::get(ctx));
    else if (reduceDtype == ReduceDtype::F16)
      wire = TypeAttr::get(Float16Type::get(ctx));
    ReduceKind gradKind = average ? ReduceKind::Mean : ReduceKind::Sum;

    // The markers in program order, each with the first top-level op that
    // reads its gradient.
    SmallVector<GradientOp> markers(graph.getGradients());
    llvm::sort(markers, [](GradientOp a, GradientOp b) {
      return a->isBeforeInBlock(b);
    });
    auto firstReader = [&](GradientOp grad) -> Operation * {
      Operation *first = nullptr;
      for (Operation *user : grad->getUsers()) {
        Operation *top = body->findAncestorOpInBlock(*user);
        if (!first || top->isBeforeInBlock(first))
          first = top;
      }
      return first;
    };

    // Buckets: consecutive markers, at most bucketBytes of f32 each, and
    // closed before a marker that comes after a reader of the bucket's
    // gradients (the all-reduce follows the bucket's last marker and must
    // precede every reader).
    SmallVector<SmallVector<GradientOp>> buckets;
    Operation *bucketFirstReader = nullptr;
    int64_t bucketSize = 0;
    for (GradientOp grad : markers) {
      int64_t bytes = 4 * grad.getType().getNumElements();
      bool close = !buckets.empty() &&
                   (bucketSize + bytes > bucketBytes ||
                    (bucketFirstReader &&
                     bucketFirstReader->isBeforeInBlock(grad)));
      if (buckets.empty() || close) {
        buckets.emplace_back();
        bucketFirstReader = nullptr;
        bucketSize = 0;
      }
      buckets.back().push_back(grad);
      bucketSize += bytes;
      if (Operation *reader = firstReader(grad))
        if (!bucketFirstReader || reader->isBeforeInBlock(bucketFirstReader))
          bucketFirstReader = reader;
    }

    for (ArrayRef<GradientOp> bucket : buckets) {
      GradientOp last = bucket.back();
      Location loc = last.getLoc();
      b.setInsertionPointAfter(last);
      // The bucket packs the markers' inputs, and each marker moves to its
      // reduced gradient: a marker stands at the complete (all ranks')
      // gradient, and what reads it (the unscale, the update) reads that.
      // A marker left before the packing would flow into every gradient of
      // its bucket, and the training graph could no longer tell its
      // parameter from others of the same type.
      SmallVector<Value> pieces;
      for (GradientOp grad : bucket)
        pieces.push_back(convertFloat(b, grad.getLoc(),
                                      flatten(b, loc, grad.getInput()), f32));
      Value packed = pieces.size() == 1
                         ? pieces.front()
                         : Value(tensor::ConcatOp::create(
                               b, loc, /*dim=*/int64_t(0), pieces));
      auto reduced = AllReduceOp::create(b, loc, packed.getType(), packed,
                                         gradKind, wire);
      int64_t offset = 0;
      for (GradientOp grad : bucket) {
        RankedTensorType type = grad.getType();
        int64_t size = type.getNumElements();
        Value flat = reduced.getResult();
        if (bucket.size() > 1)
          flat = tensor::ExtractSliceOp::create(
              b, loc, reduced.getResult(), ArrayRef<OpFoldResult>{b.getIndexAttr(offset)},
              ArrayRef<OpFoldResult>{b.getIndexAttr(size)},
              ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
        offset += size;
        Value restored = unflatten(
            b, loc, convertFloat(b, loc, flat, type.getElementType()), type);
        grad->moveAfter(restored.getDefiningOp());
        grad.getInputMutable().assign(restored);
        b.setInsertionPointAfter(grad);
      }
    }

    // found-inf: max over the ranks, before the guards and the scale update
    // read it.
    func.walk([&](UnscaleAndCheckOp check) {
      Value flag = check.getFoundInf();
      Location loc = check.getLoc();
      b.setInsertionPointAfter(check);
      auto flagType = cast<RankedTensorType>(flag.getType());
      auto asI32 = arith::ExtUIOp::create(
          b, loc, flagType.clone(b.getI32Type()), flag);
      Value flat = flatten(b, loc, asI32);
      auto reduced = AllReduceOp::create(b, loc, flat.getType(), flat,
                                         ReduceKind::Max, TypeAttr());
      Value back = arith::TruncIOp::create(
          b, loc, flagType,
          unflatten(b, loc, reduced, flagType.clone(b.getI32Type())));
      flag.replaceAllUsesExcept(back, asI32);
    });

    // FP8 delayed scaling: this step's amaxes (the row the step records in
    // its amax history, --mpt-autocast="dtype=fp8") are maxed over the
    // ranks before anything reads them, as Transformer Engine reduces them
    // over the data-parallel group: every rank then records the same
    // history and computes the same scales.
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
      if (getArgRole(func, i) != ArgRole::Fp8AmaxHistory)
        continue;
      Value history = func.getArgument(i);
      for (Operation *user : llvm::to_vector(history.getUsers())) {
        auto record = dyn_cast<tensor::InsertSliceOp>(user);
        if (!record || record.getDest() != history)
          continue;
        Value current = record.getSource();
        auto type = dyn_cast<RankedTensorType>(current.getType());
        if (!type || type.getRank() != 1 || !current.getDefiningOp())
          continue;
        b.setInsertionPointAfterValue(current);
        auto reduced = AllReduceOp::create(b, current.getLoc(), type, current,
                                           ReduceKind::Max, TypeAttr());
        current.replaceAllUsesExcept(reduced.getResult(),
                                     reduced.getOperation());
      }
    }

    // The loss every rank returns (and mpt-run logs) is the whole batch's.
    if (std::optional<unsigned> lossIndex = graph.getLossResultIndex()) {
      auto ret = cast<func::ReturnOp>(body->getTerminator());
      Value loss = ret.getOperand(*lossIndex);
      auto type = dyn_cast<RankedTensorType>(loss.getType());
      if (type && type.hasStaticShape() &&
          isa<FloatType>(type.getElementType()) &&
          type.getElementType().getIntOrFloatBitWidth() <= 32) {
        Location loc = loss.getLoc();
        b.setInsertionPoint(ret);
        Value flat = convertFloat(b, loc, flatten(b, loc, loss), f32);
        auto reduced = AllReduceOp::create(b, loc, flat.getType(), flat,
                                           ReduceKind::Mean, TypeAttr());
        ret.setOperand(*lossIndex,
                       unflatten(b, loc,
                                 convertFloat(b, loc, reduced,
                                              type.getElementType()),
                                 type));
      }
    }

    func->setAttr(kDataParallelAttrName,
                  StringAttr::get(ctx, stringifyReduceDtype(reduceDtype)));
  }

};
} // namespace
