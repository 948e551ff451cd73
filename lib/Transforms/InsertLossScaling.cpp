//===- InsertLossScaling.cpp - --mpt-insert-loss-scaling ------------------===//
//
// Rewrites one training step (docs/TrainingGraphContract.md) so that it
// scales its backward seed, unscales and checks its gradients, skips the
// update when they overflowed and, in dynamic mode, updates the scale it
// receives as an argument. The inserted work is expressed with the mpt
// loss-scaling ops; --mpt-lower-loss-scaling lowers them.
//
//===----------------------------------------------------------------------===//
#include "mpt/Analysis/TrainingGraph.h"
#include "mpt/IR/MPTDialect.h"
#include "mpt/IR/MPTOps.h"
#include "mpt/IR/TrainingContract.h"
#include "mpt/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include <cfloat>
#include <cmath>
#include <cstdint>

namespace mpt {
#define GEN_PASS_DEF_INSERTLOSSSCALING
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

StringRef mpt::stringifyLossScaleMode(LossScaleMode mode) {
  switch (mode) {
  case LossScaleMode::None:
    return "none";
  case LossScaleMode::Static:
    return "static";
  case LossScaleMode::Dynamic:
    return "dynamic";
  }
  llvm_unreachable("unknown loss-scale mode");
}

namespace {
/// An option value as the user would write it ("65536", "0.5", "inf").
std::string formatOption(double value) {
  return llvm::formatv("{0}", llvm::format("%g", value)).str();
}

bool isLossScalingOp(Operation *op) {
  return isa<ScaleOp, UnscaleAndCheckOp, UpdateScaleOp, GuardUpdateOp>(op);
}

/// Whether `func` takes part in the training-graph contract at all: a
/// training marker, a loss result or a result that updates an argument.
/// Other functions (helpers, drivers) are not steps and are left alone.
bool looksLikeStep(func::FuncOp func, const TrainingGraph &graph) {
  if (graph.isTrainingStep())
    return true;
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    if (isLossResult(func, i) || getUpdatedArg(func, i))
      return true;
  return false;
}

struct InsertLossScalingPass
    : public mpt::impl::InsertLossScalingBase<InsertLossScalingPass> {
  using Base::Base;

  // Options are checked once, before any function is touched; they have no
  // source location.
  LogicalResult initialize(MLIRContext *context) override {
    auto fail = [&]() {
      return emitError(UnknownLoc::get(context)) << "mpt-insert-loss-scaling: ";
    };
    // The scale lives in an FP32 tensor: it must be a finite FP32 number.
    if (!std::isfinite(initScale) || initScale <= 0.0 || initScale > FLT_MAX)
      return fail() << "init-scale must be finite, > 0 and at most the FP32 "
                       "maximum, got "
                    << formatOption(initScale);
    // The factors are stored as f32 attributes: check them as stored too
    // (1.00000001 rounds to 1).
    float growthF32 = static_cast<float>(growthFactor);
    float backoffF32 = static_cast<float>(backoffFactor);
    if (!std::isfinite(growthFactor) || growthFactor > FLT_MAX ||
        !(growthF32 > 1.0f))
      return fail() << "growth-factor must be finite and > 1 in FP32, got "
                    << formatOption(growthFactor);
    if (!(backoffFactor > 0.0 && backoffFactor < 1.0) ||
        !(backoffF32 > 0.0f && backoffF32 < 1.0f))
      return fail() << "backoff-factor must be in (0, 1) in FP32, got "
                    << formatOption(backoffFactor);
    if (growthInterval < 1 || growthInterval > INT32_MAX)
      return fail() << "growth-interval must be in [1, 2^31-1] (the tracker "
                       "is an i32), got "
                    << std::to_string(growthInterval);
    if (!std::isfinite(minScale) || minScale < 0.0)
      return fail() << "min-scale must be finite and >= 0, got "
                    << formatOption(minScale);
    if (minScale > initScale)
      return fail() << "min-scale (" << formatOption(minScale)
                    << ") must not exceed init-scale ("
                    << formatOption(initScale) << ")";
    return success();
  }

  void runOnOperation() override {
    if (mode == LossScaleMode::None) {
      markAllAnalysesPreserved();
      return;
    }
    ModuleOp module = getOperation();
    // Dynamic mode re-signs the steps: their calls, collected once.
    llvm::DenseMap<StringAttr, SmallVector<func::CallOp>> callsTo;
    if (mode == LossScaleMode::Dynamic)
      module.walk([&](func::CallOp call) {
        callsTo[call.getCalleeAttr().getAttr()].push_back(call);
      });
    bool changed = false, failedAny = false, keepGraphs = true;
    for (func::FuncOp func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      auto &graph = getChildAnalysis<TrainingGraph>(func);
      if (failed(graph.emitFindings())) {
        failedAny = true;
        continue;
      }
      if (!looksLikeStep(func, graph))
        continue;
      if (failed(checkStep(func, graph)) ||
          failed(checkCalls(func, callsTo.lookup(func.getSymNameAttr())))) {
        failedAny = true;
        continue;
      }
      changed = true;
      bool graphKept = canKeepGraph(func, graph);
      keepGraphs &= graphKept;
      if (failed(rewrite(func, graph, graphKept)))
        failedAny = true;
    }
    if (failedAny)
      return signalPassFailure();
    if (!changed)
      markAllAnalysesPreserved();
    else if (keepGraphs)
      markAnalysesPreserved<TrainingGraph>();
  }

  /// Whether the training graph of `func` stays what a new analysis of the
  /// rewritten step would find once rewrite() has added its ops to it. The
  /// rewrite puts mpt.scale between the seed and its readers, so the scaled
  /// seed has the seed's region; mpt.unscale_and_check between the gradients
  /// and their readers, so it is an update (its results depend on gradients
  /// and feed no gradient, the analysis checks it), as are the guards and
  /// mpt.update_scale (they depend on the overflow flag and only feed the
  /// update results); a static scale serves the scaled seed. Every other op
  /// reaches, and is reached by, the same seed, gradients, loss and updated
  /// results as before, and the markers, parameters and loss keep their
  /// numbers (new arguments and results are appended). That holds where the
  /// seed is an `mpt.grad_seed` in the backward, no gradient reaches the
  /// loss and the loss result is no updated result; otherwise the next
  /// pass builds the graph again.
  static bool canKeepGraph(func::FuncOp func, const TrainingGraph &graph) {
    GradSeedOp seedOp = graph.getSeedOp();
    if (!seedOp || graph.getRegion(seedOp) != TrainingRegion::Backward)
      return false;
    for (GradientOp grad : graph.getGradients())
      if (graph.getRegion(grad) != TrainingRegion::Backward)
        return false;
    std::optional<unsigned> loss = graph.getLossResultIndex();
    return !loss || !getUpdatedArg(func, *loss);
  }

  /// Dynamic mode appends the scale state to the step's arguments and
  /// results; a call written against the old signature would no longer
  /// verify. (A call that already passes the state, as a test driver may,
  /// is fine.)
  LogicalResult checkCalls(func::FuncOp func, ArrayRef<func::CallOp> calls) {
    if (mode != LossScaleMode::Dynamic)
      return success();
    for (func::CallOp call : calls) {
      if (call.getNumOperands() != func.getNumArguments())
        continue;
      InFlightDiagnostic diag = call.emitError()
          << "calls @" << func.getSymName()
          << ", which dynamic loss scaling gives two more arguments and "
             "results (the loss scale and its growth tracker); calls are not "
             "rewritten: pass and return the scale state here, or use "
             "mode=static";
      diag.attachNote(func.getLoc()) << "the step";
      return failure();
    }
    return success();
  }

  /// The bad inputs: each one diagnostic at its location.
  LogicalResult checkStep(func::FuncOp func, const TrainingGraph &graph) {
    // Scaling twice would multiply the seed by scale^2 and unscale only once.
    Operation *scalingOp = nullptr;
    func.walk([&](Operation *op) {
      if (!isLossScalingOp(op))
        return WalkResult::advance();
      scalingOp = op;
      return WalkResult::interrupt();
    });
    if (scalingOp)
      return scalingOp->emitError() << "the step is already loss-scaled ('"
                                    << scalingOp->getName().getStringRef()
                                    << "'); run --mpt-insert-loss-scaling once";
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
      std::optional<ArgRole> role = getArgRole(func, i);
      if (role == ArgRole::LossScale || role == ArgRole::LossScaleGrowthTracker)
        return func.emitError()
               << "the step is already loss-scaled (argument #" << i
               << " has mpt.role = \"" << stringifyArgRole(*role)
               << "\"); run --mpt-insert-loss-scaling once";
    }
    // A step whose scaling was already lowered keeps this mark.
    if (auto mark = func->getAttrOfType<StringAttr>(kLossScalingAttrName))
      return func.emitError()
             << "the step is already loss-scaled (" << kLossScalingAttrName
             << " = \"" << mark.getValue()
             << "\"); run --mpt-insert-loss-scaling once";

    Value seed = graph.getSeed();
    if (!seed)
      return func.emitError()
             << "loss scaling needs the backward seed, an 'mpt.grad_seed' or "
                "a \"loss_grad\" argument; the step has none";
    auto seedType = dyn_cast<RankedTensorType>(seed.getType());
    if (!seedType || !isa<FloatType>(seedType.getElementType()))
      return func.emitError()
             << "loss scaling needs a backward seed that is a ranked float "
                "tensor; the \"loss_grad\" argument #"
             << cast<BlockArgument>(seed).getArgNumber() << " is "
             << seed.getType();
    // A constant scale the seed's type cannot hold makes every step
    // overflow and be skipped.
    auto seedElementType = cast<FloatType>(seedType.getElementType());
    double largestSeed =
        llvm::APFloat::getLargest(seedElementType.getFloatSemantics())
            .convertToDouble();
    if (mode == LossScaleMode::Static && initScale > largestSeed)
      return emitError(seed.getLoc())
             << "init-scale " << formatOption(initScale)
             << " overflows the backward seed's element type "
             << seedElementType << " (largest finite value "
             << formatOption(largestSeed)
             << "): every step would be skipped; use a smaller init-scale "
                "or mode=dynamic";
    if (graph.getGradients().empty())
      return func.emitError()
             << "loss scaling needs the gradients, marked with "
                "'mpt.gradient'; the step has none";

    // One found-inf flag over all gradients must dominate every guarded
    // result: the body is one block and the markers are at its top level.
    if (!func.getBody().hasOneBlock())
      return func.emitError()
             << "loss scaling needs a step whose body is a single block "
                "(express control flow with scf); this one has "
             << func.getBody().getBlocks().size() << " blocks";
    Block *body = &func.getBody().front();
    for (GradientOp grad : graph.getGradients())
      if (grad->getBlock() != body)
        return grad.emitError()
               << "loss scaling needs every 'mpt.gradient' at the top level "
                  "of the step (one overflow check covers them all); this "
                  "one is nested in '"
               << grad->getParentOp()->getName().getStringRef() << "'";
    return success();
  }

  /// Rewrites the step; with `keepGraph`, adds the new ops to `graph` with
  /// the regions canKeepGraph() gives them.
  LogicalResult rewrite(func::FuncOp func, TrainingGraph &graph,
                        bool keepGraph) {
    auto record = [&](Operation *op, TrainingRegion region) {
      if (keepGraph)
        graph.addOp(op, region);
    };
    MLIRContext *ctx = &getContext();
    func->setAttr(kLossScalingAttrName,
                  StringAttr::get(ctx, stringifyLossScaleMode(mode)));
    IRRewriter rewriter(ctx);
    Block *body = &func.getBody().front();
    Location loc = func.getLoc();
    auto scaleType = RankedTensorType::get({}, Float32Type::get(ctx));
    auto trackerType = RankedTensorType::get({}, IntegerType::get(ctx, 32));

    // The scale: a constant (static) or a new trailing argument (dynamic).
    Value scale, tracker;
    float initScaleF32 = static_cast<float>(initScale);
    if (mode == LossScaleMode::Static) {
      rewriter.setInsertionPointToStart(body);
      scale = arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(scaleType,
                                 rewriter.getF32FloatAttr(initScaleF32)));
      record(scale.getDefiningOp(), TrainingRegion::Backward);
    } else {
      unsigned numArgs = func.getNumArguments();
      NamedAttribute scaleAttrs[] = {
          rewriter.getNamedAttr(MPTDialect::kRoleAttrName,
                                rewriter.getStringAttr("loss_scale")),
          rewriter.getNamedAttr(MPTDialect::kInitialValueAttrName,
                                rewriter.getF32FloatAttr(initScaleF32))};
      NamedAttribute trackerAttrs[] = {
          rewriter.getNamedAttr(
              MPTDialect::kRoleAttrName,
              rewriter.getStringAttr("loss_scale_growth_tracker")),
          rewriter.getNamedAttr(MPTDialect::kInitialValueAttrName,
                                rewriter.getI32IntegerAttr(0))};
      if (failed(
              func.insertArguments({numArgs, numArgs}, {scaleType, trackerType},
                                   {rewriter.getDictionaryAttr(scaleAttrs),
                                    rewriter.getDictionaryAttr(trackerAttrs)},
                                   {loc, loc})))
        return func.emitError("cannot append the loss-scale arguments");
      scale = func.getArgument(numArgs);
      tracker = func.getArgument(numArgs + 1);
    }

    // Scale the seed right where it is defined.
    Value seed = graph.getSeed();
    if (GradSeedOp seedOp = graph.getSeedOp())
      rewriter.setInsertionPointAfter(seedOp);
    else if (Operation *constant = scale.getDefiningOp())
      rewriter.setInsertionPointAfter(constant);
    else
      rewriter.setInsertionPointToStart(body);
    auto scaled = ScaleOp::create(rewriter, seed.getLoc(), seed, scale);
    record(scaled, TrainingRegion::Backward);
    seed.replaceAllUsesExcept(scaled.getResult(), scaled);

    // Unscale and check before the first op that reads a gradient. A marker
    // that comes after that point moves up together with the ops it needs
    // (the backward pass never depends on the update, the analysis checks
    // it).
    Operation *firstReader = body->getTerminator();
    SmallVector<Value> gradients;
    for (GradientOp grad : graph.getGradients()) {
      gradients.push_back(grad.getGradient());
      for (Operation *user : grad.getGradient().getUsers()) {
        Operation *top = body->findAncestorOpInBlock(*user);
        if (top && top->isBeforeInBlock(firstReader))
          firstReader = top;
      }
    }
    // One backward slice over all late markers (the ops they need that are
    // not above the first reader), then one move of the whole slice in
    // program order: moving marker by marker would renumber the block for
    // every marker.
    BackwardSliceOptions options;
    options.omitBlockArguments = true;
    options.omitUsesFromAbove = false;
    options.filter = [&](Operation *op) {
      return op->getBlock() == body && !op->isBeforeInBlock(firstReader);
    };
    llvm::SetVector<Operation *> toMove;
    llvm::DenseSet<Value> gradientValues(gradients.begin(), gradients.end());
    for (GradientOp grad : graph.getGradients()) {
      if (!firstReader->isBeforeInBlock(grad))
        continue;
      size_t firstNew = toMove.size();
      if (failed(getBackwardSlice(grad.getOperation(), &toMove, options)))
        return grad.emitError() << "cannot compute the ops this gradient needs";
      // A gradient computed from an op that reads another gradient cannot
      // be checked together with it before that read.
      for (Operation *op : toMove.getArrayRef().drop_front(firstNew)) {
        WalkResult found = op->walk([&](Operation *nested) {
          for (Value operand : nested->getOperands())
            if (gradientValues.contains(operand)) {
              InFlightDiagnostic diag =
                  grad.emitError()
                  << "this gradient is computed from an op that reads "
                     "another gradient; loss scaling checks all gradients "
                     "at once, before any op reads one";
              diag.attachNote(nested->getLoc())
                  << "this '" << nested->getName().getStringRef()
                  << "' reads a gradient";
              return WalkResult::interrupt();
            }
          return WalkResult::advance();
        });
        if (found.wasInterrupted())
          return failure();
      }
      toMove.insert(grad.getOperation());
    }
    // Only side-effect-free computations may be reordered with the ops
    // between the first reader and the markers.
    for (Operation *op : toMove)
      if (!isMemoryEffectFree(op)) {
        Operation *grad = op;
        for (GradientOp marker : graph.getGradients())
          if (toMove.contains(marker.getOperation()))
            grad = marker.getOperation();
        return grad->emitError()
               << "cannot move this gradient before the first op that reads "
                  "a gradient (its computation has side effects); loss "
                  "scaling needs all gradients before the optimizer update";
      }
    if (!toMove.empty()) {
      SmallVector<Operation *> ordered;
      for (Operation *op = firstReader; op; op = op->getNextNode())
        if (toMove.contains(op))
          ordered.push_back(op);
      for (Operation *op : ordered)
        rewriter.moveOpBefore(op, firstReader);
    }
    rewriter.setInsertionPoint(firstReader);
    SmallVector<Location> gradientLocs;
    for (GradientOp grad : graph.getGradients())
      gradientLocs.push_back(grad.getLoc());
    auto unscale = UnscaleAndCheckOp::create(
        rewriter, rewriter.getFusedLoc(gradientLocs), gradients, scale);
    record(unscale, TrainingRegion::Update);
    for (auto [grad, unscaled] :
         llvm::zip_equal(gradients, unscale.getUnscaled()))
      grad.replaceAllUsesExcept(unscaled, unscale);
    Value foundInf = unscale.getFoundInf();

    // Skip the step: every updated state keeps its input on overflow, but
    // the forward's own state (the random generator's offset, running
    // statistics) advances, as PyTorch's does when GradScaler skips a step.
    Operation *ret = body->getTerminator();
    rewriter.setInsertionPoint(ret);
    for (unsigned i = 0, e = func.getNumResults(); i < e; ++i) {
      std::optional<unsigned> arg = getUpdatedArg(func, i);
      if (!arg)
        continue;
      std::optional<ArgRole> role = getArgRole(func, *arg);
      if (role == ArgRole::RngState || role == ArgRole::Buffer)
        continue;
      Value original = func.getArgument(*arg);
      Value updated = ret->getOperand(i);
      if (updated == original)
        continue;
      auto guard = GuardUpdateOp::create(rewriter, updated.getLoc(), updated,
                                         original, foundInf);
      record(guard, TrainingRegion::Update);
      ret->setOperand(i, guard);
    }

    if (mode == LossScaleMode::Dynamic) {
      auto update = UpdateScaleOp::create(
          rewriter, ret->getLoc(), scaleType, trackerType, scale, tracker,
          foundInf, rewriter.getF32FloatAttr(static_cast<float>(growthFactor)),
          rewriter.getF32FloatAttr(static_cast<float>(backoffFactor)),
          rewriter.getI32IntegerAttr(static_cast<int32_t>(growthInterval)),
          rewriter.getF32FloatAttr(static_cast<float>(minScale)));
      record(update, TrainingRegion::Update);
      unsigned numResults = func.getNumResults();
      unsigned scaleArg = cast<BlockArgument>(scale).getArgNumber();
      NamedAttribute scaleResultAttr = rewriter.getNamedAttr(
          MPTDialect::kUpdatesAttrName, rewriter.getI64IntegerAttr(scaleArg));
      NamedAttribute trackerResultAttr =
          rewriter.getNamedAttr(MPTDialect::kUpdatesAttrName,
                                rewriter.getI64IntegerAttr(scaleArg + 1));
      if (failed(func.insertResults(
              {numResults, numResults}, {scaleType, trackerType},
              {rewriter.getDictionaryAttr(scaleResultAttr),
               rewriter.getDictionaryAttr(trackerResultAttr)})))
        return func.emitError("cannot append the loss-scale results");
      ret->insertOperands(ret->getNumOperands(),
                          {update.getNewScale(), update.getNewTracker()});
    }
    return success();
  }
};
} // namespace
