//===- TestTrainingGraph.cpp - remarks of the TrainingGraph analysis -----===//
//
// --mpt-test-training-graph emits one remark per op with the region the
// TrainingGraph analysis assigns it, so that lit tests can pin every
// classification rule with `expected-remark`.
//
//===----------------------------------------------------------------------===//
#include "mpt/Analysis/TrainingGraph.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mpt;

namespace {
struct TestTrainingGraphPass
    : PassWrapper<TestTrainingGraphPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestTrainingGraphPass)
  StringRef getArgument() const final { return "mpt-test-training-graph"; }
  StringRef getDescription() const final {
    return "Emit a remark with the training region of every op";
  }
  void runOnOperation() override {
    auto &graph = getAnalysis<TrainingGraph>();
    if (failed(graph.emitFindings()))
      return signalPassFailure();
    getOperation().walk([&](Operation *op) {
      // Ops directly in the function or in scf control flow; bodies of
      // other region ops share their op's region.
      Operation *parent = op->getParentOp();
      if (op->hasTrait<OpTrait::IsTerminator>() ||
          !isa<func::FuncOp, scf::ForOp, scf::IfOp, scf::WhileOp,
               scf::ExecuteRegionOp>(parent))
        return;
      op->emitRemark() << stringifyTrainingRegion(graph.getRegion(op));
    });
    markAllAnalysesPreserved();
  }
};
} // namespace

namespace mpt::test {
void registerTestTrainingGraphPass() {
  PassRegistration<TestTrainingGraphPass>();
}
} // namespace mpt::test
