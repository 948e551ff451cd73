//===- Autocast.cpp - the --mpt-autocast pass -----------------------------===//
#include "mpt/Analysis/PrecisionPlan.h"
#include "mpt/Analysis/TrainingGraph.h"
#include "mpt/Transforms/Autocast.h"
#include "mpt/Transforms/Passes.h"

namespace mpt {
#define GEN_PASS_DEF_MPTAUTOCAST
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
struct MptAutocastPass : public mpt::impl::MptAutocastBase<MptAutocastPass> {
  using MptAutocastBase::MptAutocastBase;

  // The policy may load dialects to check op names: build it before the
  // functions run in parallel. Copies of the pass share it.
  LogicalResult initialize(MLIRContext *context) override {
    PolicyOptions options = PolicyOptions::get(dtype, policy, allow, deny,
                                               infer, clear, policyLevel);
    options.lossRegionF32 = lossRegion;
    precisionPolicy = PrecisionPolicy::buildShared(context, options);
    return success(precisionPolicy != nullptr);
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return markAllAnalysesPreserved();
    auto &graph = getAnalysis<TrainingGraph>();
    if (!graph.isValid() ||
        (graph.isTrainingStep() &&
         failed(checkNoOtherLowType(
             func, precisionPolicy->getLowType(&getContext())))))
      return signalPassFailure();
    PrecisionPlan plan(func, *precisionPolicy, graph);
    applyPrecisionPlan(func, plan);
    SmallVector<WorkingCopy> copies;
    if (masterWeights &&
        failed(addWorkingCopies(
            func, precisionPolicy->getLowType(&getContext()), copies)))
      return signalPassFailure();
  }

  std::shared_ptr<const PrecisionPolicy> precisionPolicy;
};
} // namespace
