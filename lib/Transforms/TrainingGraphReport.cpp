//===- TrainingGraphReport.cpp - --mpt-training-graph-report --------------===//
#include "mpt/Analysis/ReportUtils.h"
#include "mpt/Analysis/TrainingGraph.h"
#include "mpt/Transforms/Passes.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mpt {
#define GEN_PASS_DEF_TRAININGGRAPHREPORT
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
constexpr TrainingRegion kRegions[] = {
    TrainingRegion::Forward, TrainingRegion::Backward, TrainingRegion::Update,
    TrainingRegion::Unused};

std::string typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

struct TrainingGraphReportPass
    : public mpt::impl::TrainingGraphReportBase<TrainingGraphReportPass> {
  using Base::Base;
  std::shared_ptr<ReportOutput> report;

  LogicalResult initialize(MLIRContext *context) override {
    // Open the output before any IR is processed: a bad path fails the run
    // up front, without a partial report.
    FailureOr<std::shared_ptr<ReportOutput>> opened =
        openReport(UnknownLoc::get(context), getArgument(), output);
    if (failed(opened))
      return failure();
    report = *opened;
    return success();
  }

  void runOnOperation() override {
    SmallVector<FunctionOpInterface> funcs =
        getReportedFunctions(getOperation(), allFunctions);

    // Analyse everything first: a contract violation fails the pass before
    // anything is written.
    bool ok = true;
    for (FunctionOpInterface func : funcs)
      ok &= succeeded(getChildAnalysis<TrainingGraph>(func).emitFindings());
    if (!ok)
      return signalPassFailure();

    if (format == ReportFormat::Json)
      printJson(funcs, report->os());
    else
      printText(funcs, report->os());
    if (failed(commitReport(*report, getOperation().getLoc(), getArgument())))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }

  void printText(ArrayRef<FunctionOpInterface> funcs, llvm::raw_ostream &os) {
    for (FunctionOpInterface func : funcs) {
      auto &graph = getChildAnalysis<TrainingGraph>(func);
      os << "mpt training-graph report: @" << func.getName() << " ("
         << formatLocation(func.getLoc()) << ")\n";
      if (!graph.isTrainingStep())
        os << "  no training markers: every op counts as forward\n";
      os << "  ops:";
      for (TrainingRegion region : kRegions)
        os << " " << stringifyTrainingRegion(region) << " "
           << graph.getNumOps(region);
      os << "\n";
      if (auto loss = graph.getLossResultIndex())
        os << "  loss: result #" << *loss << " "
           << func.getResultTypes()[*loss] << "\n";
      if (GradSeedOp seed = graph.getSeedOp())
        os << "  backward seed: mpt.grad_seed at "
           << formatLocation(seed.getLoc()) << "\n";
      else if (Value seed = graph.getSeed())
        os << "  backward seed: argument #"
           << cast<BlockArgument>(seed).getArgNumber() << " (loss_grad)\n";

      // Each parameter with the gradient that updates it.
      llvm::DenseMap<unsigned, GradientOp> gradOfParam;
      for (GradientOp grad : graph.getGradients())
        if (auto param = graph.getParamOfGradient(grad))
          gradOfParam[*param] = grad;
      os << "  params: " << graph.getParams().size() << "\n";
      for (unsigned param : graph.getParams()) {
        os << "    arg #" << param << " " << func.getArgumentTypes()[param];
        if (GradientOp grad = gradOfParam.lookup(param))
          os << "  gradient at " << formatLocation(grad.getLoc());
        else
          os << "  no gradient";
        os << "\n";
      }
      os << "  gradients: " << graph.getGradients().size() << "\n";
      for (GradientOp grad : graph.getGradients()) {
        os << "    " << grad.getType() << " at "
           << formatLocation(grad.getLoc());
        if (auto param = graph.getParamOfGradient(grad))
          os << " -> updates arg #" << *param;
        os << "\n";
      }
      os << "  memory estimate:\n";
      printMemoryEstimate(graph.estimateMemory(), os, "    ");
    }
  }

  void printJson(ArrayRef<FunctionOpInterface> funcs, llvm::raw_ostream &os) {
    llvm::json::Array functions;
    for (FunctionOpInterface func : funcs) {
      auto &graph = getChildAnalysis<TrainingGraph>(func);
      llvm::json::Object ops;
      for (TrainingRegion region : kRegions)
        ops[stringifyTrainingRegion(region)] =
            static_cast<int64_t>(graph.getNumOps(region));
      llvm::json::Array params, gradients;
      for (unsigned param : graph.getParams())
        params.push_back(llvm::json::Object{
            {"arg", static_cast<int64_t>(param)},
            {"type", typeString(func.getArgumentTypes()[param])}});
      for (GradientOp grad : graph.getGradients()) {
        llvm::json::Object entry{{"type", typeString(grad.getType())},
                                 {"loc", formatLocation(grad.getLoc())}};
        if (auto param = graph.getParamOfGradient(grad))
          entry["param_arg"] = static_cast<int64_t>(*param);
        gradients.push_back(std::move(entry));
      }
      llvm::json::Object entry{
          {"function", func.getName()},
          {"loc", formatLocation(func.getLoc())},
          {"training_step", graph.isTrainingStep()},
          {"ops", std::move(ops)},
          {"params", std::move(params)},
          {"gradients", std::move(gradients)},
          {"memory", memoryEstimateToJson(graph.estimateMemory())}};
      if (auto loss = graph.getLossResultIndex())
        entry["loss_result"] = static_cast<int64_t>(*loss);
      functions.push_back(std::move(entry));
    }
    writeJson(os, llvm::json::Object{{"functions", std::move(functions)}});
  }
};
} // namespace
