//===- PrecisionReport.cpp - the --mpt-precision-report pass --------------===//
//
// The report applies autocast to a copy of each function and prints the
// plan it applied, so it cannot disagree with `--mpt-autocast`.
//
//===----------------------------------------------------------------------===//
#include "mpt/Analysis/PrecisionPlan.h"
#include "mpt/Analysis/ReportUtils.h"
#include "mpt/Analysis/TrainingGraph.h"
#include "mpt/Transforms/Autocast.h"
#include "mpt/Transforms/Passes.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FormatVariadic.h"

namespace mpt {
#define GEN_PASS_DEF_PRECISIONREPORT
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
struct PrecisionReportPass
    : public mpt::impl::PrecisionReportBase<PrecisionReportPass> {
  using PrecisionReportBase::PrecisionReportBase;

#define GEN_PASS_OPTIONS_GET_AUTOCAST
#include "mpt/Transforms/PipelineOptions.h.inc"

  LogicalResult initialize(MLIRContext *context) override {
    return config.initialize(context, getAutocastOptions());
  }

  /// The memory estimate of `func` rewritten as --mpt-autocast would
  /// (with FP8 or MX operands), on a copy that is erased afterwards.
  FailureOr<MemoryEstimate> estimateScaled(func::FuncOp func) {
    func::FuncOp copy = func.clone();
    llvm::scope_exit erase([&] { copy.erase(); });
    // Every graph of a copy emits its findings: lint warnings the function
    // already gave are not repeated (once per process), new ones are.
    TrainingGraph graph(copy);
    (void)graph.emitFindings();
    PrecisionPlan plan(copy, *config.policy, graph);
    bool fp8 = config.policy->isFp8();
    SmallVector<Operation *> contractions =
        fp8 ? getFp8Contractions(plan) : getMxContractions(plan);
    applyPrecisionPlan(copy, plan);
    if (!contractions.empty() &&
        failed(fp8 ? applyFp8DelayedScaling(copy, contractions,
                                            graph.getSeed(), config.fp8)
                   : applyMxScaling(copy, contractions, graph.getSeed(),
                                    config.mx)))
      return failure();
    TrainingGraph scaled(copy);
    (void)scaled.emitFindings();
    return scaled.estimateMemory();
  }

  void runOnOperation() override {
    SmallVector<func::FuncOp> copies;
    // Ops the rewrite left unused, kept until the plan is printed: casts
    // detached from the copies, other ops still inside them.
    SmallVector<Operation *> deadOps;
    llvm::scope_exit eraseCopies([&] {
      for (Operation *op : deadOps)
        if (!op->getBlock())
          op->destroy();
      for (func::FuncOp copy : copies)
        copy.erase();
    });
    SmallVector<std::unique_ptr<TrainingGraph>> graphs;
    SmallVector<std::unique_ptr<PrecisionPlan>> plans;
    std::vector<std::tuple<FunctionOpInterface, const PrecisionPlan *,
                           AutocastSummary>>
        reports;
    // The steps (or every function, as asked), and any other function that
    // --mpt-autocast changes: a helper the step calls is rewritten as
    // inference code, and a report without it would not say what the
    // pipeline does to the module.
    llvm::SmallPtrSet<Operation *, 4> listed;
    for (FunctionOpInterface func :
         getReportedFunctions(getOperation(), allFunctions))
      listed.insert(func);
    for (FunctionOpInterface reported :
         getReportedFunctions(getOperation(), /*allFunctions=*/true)) {
      auto func = dyn_cast<func::FuncOp>(reported.getOperation());
      if (!func)
        continue;
      func::FuncOp copy = func.clone();
      copies.push_back(copy);
      auto graph = std::make_unique<TrainingGraph>(copy);
      if (failed(graph->emitFindings()) ||
          (graph->isTrainingStep() &&
           failed(checkNoOtherLowType(
               func, config.policy->getLowType()))))
        return signalPassFailure();
      AutocastSummary summary;
      summary.trainingStep = graph->isTrainingStep();
      summary.memoryBefore = graph->estimateMemory();
      summary.castsBefore = countCasts(copy);
      auto plan = std::make_unique<PrecisionPlan>(copy, *config.policy,
                                                  *graph);
      if (config.policy->isFp8()) {
        summary.scaledDtype = "fp8";
        summary.fp8Scaling =
            config.fp8.currentScaling
                ? std::string("current (each scale from this step's amax of "
                              "its tensor; no state)")
                : std::string(llvm::formatv(
                      "delayed (each scale from the tensor's {0}-step amax "
                      "history; the history and the scales are state the "
                      "step carries)",
                      config.fp8.amaxHistoryLen));
        summary.contractionFormats =
            describeFp8Contractions(*plan, graph->getSeed(), config.fp8,
                                    &summary.contractionScales);
      } else if (!config.policy->getMx().empty()) {
        summary.scaledDtype = config.policy->getMx().str();
        summary.contractionFormats =
            describeMxContractions(*plan, graph->getSeed(), config.mx);
      }
      std::optional<MemoryEstimate> scaledMemory;
      if (!summary.scaledDtype.empty()) {
        FailureOr<MemoryEstimate> estimate = estimateScaled(func);
        if (failed(estimate))
          return signalPassFailure();
        scaledMemory = *estimate;
      }
      applyPrecisionPlan(copy, *plan, &deadOps);
      if (masterWeights &&
          failed(addWorkingCopies(copy, config.policy->getLowType(),
                                  summary.workingCopies)))
        return signalPassFailure();
      summary.castsAfter = countCasts(copy);
      if (!listed.contains(func) &&
          summary.castsAfter.tensorCasts == summary.castsBefore.tensorCasts &&
          summary.castsAfter.bodyCasts == summary.castsBefore.bodyCasts)
        continue;
      if (scaledMemory) {
        summary.memoryAfter = *scaledMemory;
      } else {
        TrainingGraph rewritten(copy);
        (void)rewritten.emitFindings();
        summary.memoryAfter = rewritten.estimateMemory();
      }
      reports.push_back({copy, plan.get(), summary});
      graphs.push_back(std::move(graph));
      plans.push_back(std::move(plan));
    }

    FailureOr<std::shared_ptr<ReportOutput>> report =
        openReport(getOperation().getLoc(), getArgument(), output);
    if (failed(report))
      return signalPassFailure();
    printPrecisionReport(reports, format == ReportFormat::Json, (*report)->os());
    if (failed(commitReport(**report, getOperation().getLoc(), getArgument())))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }

  AutocastConfig config;
};
} // namespace
