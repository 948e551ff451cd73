//===- AutocastPass.cpp - the --mpt-autocast pass -------------------------===//
//
// The pass: builds the policy, then for each function the plan
// (PrecisionPlan.h) and applies it with the API of Autocast.h (Autocast.cpp,
// AutocastFp8.cpp, AutocastMx.cpp).
//
//===----------------------------------------------------------------------===//
#include "mpt/Analysis/PrecisionPlan.h"
#include "mpt/Analysis/TrainingGraph.h"
#include "mpt/IR/TrainingContract.h"
#include "mpt/Transforms/Autocast.h"
#include "mpt/Transforms/Passes.h"

#include "mlir/IR/Remarks.h"
#include "llvm/ADT/Statistic.h"

namespace mpt {
#define GEN_PASS_DEF_AUTOCAST
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

/// The contractions a scaled format (FP8, MX) rewrites: `candidates`, or
/// a located error when the step already has the format (`attrName`) or,
/// being a training step, has no contraction that can take it.
static LogicalResult selectScaledContractions(
    func::FuncOp func, StringRef attrName, StringRef already, StringRef dtype,
    StringRef operands, StringRef which, SmallVector<Operation *> candidates,
    SmallVector<Operation *> &selected) {
  if (func->hasAttr(attrName))
    return func.emitError() << "the step already has " << already << " ('"
                            << attrName << "'): run autocast with dtype="
                            << dtype << " once, on the FP32 step";
  if (candidates.empty() && isContractStep(func))
    return func.emitError()
           << "dtype=" << dtype << ": no contraction of this step can take "
           << operands << " operands (" << which
           << " that autocast puts in low precision, with two inputs and "
              "static shapes, outside loops); use dtype=bf16";
  selected = std::move(candidates);
  return success();
}

namespace {
struct AutocastPass : public mpt::impl::AutocastBase<AutocastPass> {
  using AutocastBase::AutocastBase;

#define GEN_PASS_OPTIONS_GET_AUTOCAST
#include "mpt/Transforms/PipelineOptions.h.inc"

  // The policy may load dialects to check op names: build it before the
  // functions run in parallel. Copies of the pass share it.
  LogicalResult initialize(MLIRContext *context) override {
    return config.initialize(context, getAutocastOptions());
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return markAllAnalysesPreserved();
    auto &graph = getAnalysis<TrainingGraph>();
    if (failed(graph.emitFindings()) ||
        (graph.isTrainingStep() &&
         failed(checkNoOtherLowType(
             func, config.policy->getLowType()))))
      return signalPassFailure();
    PrecisionPlan plan(func, *config.policy, graph);
    countAndRemark(func, plan);
    // Two walks of the step for one statistic: only where statistics are
    // compiled in (LLVM_ENABLE_STATS; in a release build, as Debian's, they
    // count nothing).
#if LLVM_ENABLE_STATS
    CastCounts castsBefore = countCasts(func);
#endif
    SmallVector<Operation *> fp8Contractions, mxContractions;
    // Delayed scaling is state of a training step; a step without an FP8
    // contraction would only be a bf16 step under another name (and so
    // for MX).
    // FP8 scaling state is arguments and results of the function: a
    // private function that is not a step (a helper the step calls) cannot
    // get it without rewriting its callers, which a function pass does not
    // see. Its contractions keep the plan's 16-bit type. (A public function
    // without a seed, a forward pass an embedder calls, gets the state.)
    SmallVector<Operation *> fp8Candidates;
    if (config.policy->isFp8())
      fp8Candidates = getFp8Contractions(plan);
    if (!fp8Candidates.empty() && !graph.isTrainingStep() &&
        func.isPrivate() && !func->hasAttr(kFp8AttrName)) {
      func.emitWarning()
          << "dtype=fp8: @" << func.getSymName()
          << " is a private function and not a training step (no "
             "mpt.grad_seed), so its "
          << fp8Candidates.size()
          << " contraction(s) stay " << config.policy->getLowTypeName()
          << ": FP8 scaling state is arguments and results of the step; "
             "inline the function into the step (--inline) to give them "
             "FP8 operands";
      fp8Candidates.clear();
    } else if (config.policy->isFp8() &&
        failed(selectScaledContractions(
            func, kFp8AttrName, "FP8 scaling", "fp8", "FP8",
            "a linalg contraction or convolution", fp8Candidates,
            fp8Contractions)))
      return signalPassFailure();
    StringRef mx = config.policy->getMx();
    if (!mx.empty() &&
        failed(selectScaledContractions(
            func, kMxAttrName, "MX operands", mx, "MX",
            "a linalg contraction with one reduction dimension",
            getMxContractions(plan), mxContractions)))
      return signalPassFailure();
    applyPrecisionPlan(func, plan);
    if (!mxContractions.empty() &&
        failed(applyMxScaling(func, mxContractions, graph.getSeed(),
                              config.mx)))
      return signalPassFailure();
    if (!fp8Contractions.empty() &&
        failed(applyFp8DelayedScaling(func, fp8Contractions, graph.getSeed(),
                                      config.fp8)))
      return signalPassFailure();
    SmallVector<WorkingCopy> copies;
    if (masterWeights &&
        failed(addWorkingCopies(
            func, config.policy->getLowType(), copies)))
      return signalPassFailure();
#if LLVM_ENABLE_STATS
    unsigned castsAfter = countCasts(func).tensorCasts;
    if (castsAfter > castsBefore.tensorCasts)
      numCastsInserted += castsAfter - castsBefore.tensorCasts;
#endif
  }

  /// The plan's counts as pass statistics and, when MLIR's remark engine is
  /// on (mpt-opt --remarks-filter=mpt-autocast ...), each decision as an
  /// analysis remark: the line --mpt-precision-report prints for the op.
  void countAndRemark(func::FuncOp func, const PrecisionPlan &plan) {
    bool remarks = getContext().getRemarkEngine() != nullptr;
    for (Operation *op : plan.getOps()) {
      OpPrecision precision = plan.getDecision(op).precision;
      if (precision == OpPrecision::Low)
        ++numLowOps;
      else if (precision == OpPrecision::FP32)
        ++numF32Ops;
      if (!remarks)
        continue;
      // mpt-opt installs a remark engine whether or not a filter asks for
      // remarks; the remark is null when this category is filtered out,
      // and the description is only built for a remark that is emitted.
      auto remark =
          remark::analysis(op->getLoc(), remark::RemarkOpts::name("Precision")
                                             .category(getArgument())
                                             .function(func.getSymName()));
      if (remark)
        remark << StringRef(describeDecision(plan, AutocastSummary(), op));
    }
  }

  AutocastConfig config;
};
} // namespace
