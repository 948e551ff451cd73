//===- LossScalingReport.cpp - --mpt-loss-scaling-report ------------------===//
//
// Says what --mpt-insert-loss-scaling inserted, read back from the IR (the
// mpt loss-scaling ops and the state arguments), so that it also describes
// steps scaled by another tool or written by hand.
//
//===----------------------------------------------------------------------===//
#include "mpt/Analysis/ReportUtils.h"
#include "mpt/IR/MPTOps.h"
#include "mpt/IR/TrainingContract.h"
#include "mpt/Transforms/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

namespace mpt {
#define GEN_PASS_DEF_LOSSSCALINGREPORT
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
/// A guarded result: which result and which argument it falls back to.
struct GuardedResult {
  unsigned result;
  std::optional<unsigned> arg;
};

/// What loss scaling one function contains.
struct LossScalingSummary {
  std::string mode = "none";
  std::optional<unsigned> scaleArg, trackerArg;
  std::optional<double> scaleInitialValue, constantScale;
  SmallVector<ScaleOp> seedScales;
  SmallVector<UnscaleAndCheckOp> unscales;
  SmallVector<UpdateScaleOp> updates;
  SmallVector<GuardedResult> guarded;
  unsigned numGradientsUnscaled = 0;
};

std::optional<double> getNumber(Attribute attr) {
  if (auto f = dyn_cast_if_present<FloatAttr>(attr))
    return f.getValueAsDouble();
  if (auto i = dyn_cast_if_present<IntegerAttr>(attr))
    return static_cast<double>(i.getInt());
  return std::nullopt;
}

LossScalingSummary summarize(FunctionOpInterface func) {
  LossScalingSummary summary;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    std::optional<ArgRole> role = getArgRole(func, i);
    if (role == ArgRole::LossScale) {
      summary.scaleArg = i;
      summary.scaleInitialValue =
          getNumber(func.getArgAttr(i, MPTDialect::kInitialValueAttrName));
    } else if (role == ArgRole::LossScaleGrowthTracker) {
      summary.trackerArg = i;
    }
  }
  func.walk([&](Operation *op) {
    if (auto scale = dyn_cast<ScaleOp>(op)) {
      summary.seedScales.push_back(scale);
      DenseElementsAttr constant;
      if (matchPattern(scale.getScale(), m_Constant(&constant)) &&
          constant.isSplat())
        summary.constantScale =
            constant.getSplatValue<APFloat>().convertToDouble();
    } else if (auto unscale = dyn_cast<UnscaleAndCheckOp>(op)) {
      summary.unscales.push_back(unscale);
      summary.numGradientsUnscaled += unscale.getGradients().size();
    } else if (auto update = dyn_cast<UpdateScaleOp>(op)) {
      summary.updates.push_back(update);
    }
  });
  // Guarded results: returned values produced by mpt.guard_update.
  for (Block &block : func.getFunctionBody()) {
    if (block.empty() || !block.back().hasTrait<OpTrait::ReturnLike>())
      continue;
    for (auto [i, operand] : llvm::enumerate(block.back().getOperands()))
      if (operand.getDefiningOp<GuardUpdateOp>())
        summary.guarded.push_back(
            {static_cast<unsigned>(i), getUpdatedArg(func, i)});
  }
  if (summary.scaleArg || !summary.updates.empty())
    summary.mode = "dynamic";
  else if (!summary.seedScales.empty() || !summary.unscales.empty())
    summary.mode = "static";
  return summary;
}

/// "mpt.grad_seed at file:line:col" or "argument #N (loss_grad)".
std::string describeSeed(ScaleOp scale) {
  Value seed = scale.getInput();
  if (auto arg = dyn_cast<BlockArgument>(seed))
    return llvm::formatv("argument #{0} (loss_grad)", arg.getArgNumber());
  Operation *def = seed.getDefiningOp();
  return llvm::formatv("'{0}' at {1}", def->getName().getStringRef(),
                       formatLocation(def->getLoc()));
}

struct LossScalingReportPass
    : public mpt::impl::LossScalingReportBase<LossScalingReportPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<FunctionOpInterface> funcs =
        getReportedFunctions(getOperation(), allFunctions);

    FailureOr<std::shared_ptr<ReportOutput>> report =
        openReport(getOperation().getLoc(), getArgument(), output);
    if (failed(report))
      return signalPassFailure();
    if (format == ReportFormat::Json)
      printJson(funcs, (*report)->os());
    else
      printText(funcs, (*report)->os());
    if (failed(commitReport(**report, getOperation().getLoc(), getArgument())))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }

  void printText(ArrayRef<FunctionOpInterface> funcs, llvm::raw_ostream &os) {
    for (FunctionOpInterface func : funcs) {
      LossScalingSummary s = summarize(func);
      os << "mpt loss-scaling report: @" << func.getName() << " ("
         << formatLocation(func.getLoc()) << ")\n";
      os << "  mode: " << s.mode << "\n";
      if (s.mode == "none")
        continue;
      if (s.scaleArg) {
        os << "  loss scale: argument #" << *s.scaleArg;
        if (s.scaleInitialValue)
          os << ", initial value " << llvm::format("%g", *s.scaleInitialValue);
        os << "\n";
      } else if (s.constantScale) {
        os << "  loss scale: constant " << llvm::format("%g", *s.constantScale)
           << "\n";
      }
      if (s.trackerArg)
        os << "  growth tracker: argument #" << *s.trackerArg << "\n";
      for (UpdateScaleOp update : s.updates)
        os << "  scale update at " << formatLocation(update.getLoc())
           << ": growth_factor "
           << llvm::format("%g", update.getGrowthFactor().convertToDouble())
           << ", backoff_factor "
           << llvm::format("%g", update.getBackoffFactor().convertToDouble())
           << ", growth_interval " << update.getGrowthInterval()
           << ", min_scale "
           << llvm::format("%g", update.getMinScale().convertToDouble())
           << "\n";
      for (ScaleOp scale : s.seedScales)
        os << "  seed scaled: " << describeSeed(scale) << "\n";
      os << "  gradients unscaled and checked: " << s.numGradientsUnscaled
         << " (in " << s.unscales.size() << " overflow check"
         << (s.unscales.size() == 1 ? "" : "s") << ")\n";
      os << "  guarded results: " << s.guarded.size() << "\n";
      for (const GuardedResult &g : s.guarded) {
        os << "    result #" << g.result;
        if (g.arg)
          os << " keeps argument #" << *g.arg << " on overflow";
        os << "\n";
      }
    }
  }

  void printJson(ArrayRef<FunctionOpInterface> funcs, llvm::raw_ostream &os) {
    llvm::json::Array functions;
    for (FunctionOpInterface func : funcs) {
      LossScalingSummary s = summarize(func);
      llvm::json::Object entry{{"function", func.getName()},
                               {"loc", formatLocation(func.getLoc())},
                               {"mode", s.mode}};
      if (s.scaleArg)
        entry["scale_arg"] = static_cast<int64_t>(*s.scaleArg);
      if (s.scaleInitialValue)
        entry["scale_initial_value"] = *s.scaleInitialValue;
      if (s.constantScale)
        entry["constant_scale"] = *s.constantScale;
      if (s.trackerArg)
        entry["tracker_arg"] = static_cast<int64_t>(*s.trackerArg);
      llvm::json::Array updates, seeds, guarded;
      for (UpdateScaleOp update : s.updates)
        updates.push_back(llvm::json::Object{
            {"loc", formatLocation(update.getLoc())},
            {"growth_factor", update.getGrowthFactor().convertToDouble()},
            {"backoff_factor", update.getBackoffFactor().convertToDouble()},
            {"growth_interval",
             static_cast<int64_t>(update.getGrowthInterval())},
            {"min_scale", update.getMinScale().convertToDouble()}});
      for (ScaleOp scale : s.seedScales)
        seeds.push_back(describeSeed(scale));
      for (const GuardedResult &g : s.guarded) {
        llvm::json::Object item{{"result", static_cast<int64_t>(g.result)}};
        if (g.arg)
          item["arg"] = static_cast<int64_t>(*g.arg);
        guarded.push_back(std::move(item));
      }
      entry["scale_updates"] = std::move(updates);
      entry["seeds_scaled"] = std::move(seeds);
      entry["gradients_unscaled"] =
          static_cast<int64_t>(s.numGradientsUnscaled);
      entry["overflow_checks"] = static_cast<int64_t>(s.unscales.size());
      entry["guarded_results"] = std::move(guarded);
      functions.push_back(std::move(entry));
    }
    writeJson(os, llvm::json::Object{{"functions", std::move(functions)}});
  }
};
} // namespace
