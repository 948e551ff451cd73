//===- TestTensorCoreSchedules.cpp - print the embedded schedules --------===//
//
// --mpt-test-tensorcore-schedules prints every instantiation of the embedded
// Tensor Core schedules and kernel templates that the configuration table
// gives (getScheduleExamples), separated by `// -----` lines, so that
// `mpt-opt --split-input-file` parses and verifies each
// (test/Conversion/tensorcore-schedules.mlir): a typo in a schedule fails
// that test. It also emits, as remarks, the errors of a missing and of an
// unused parameter.
//
//===----------------------------------------------------------------------===//
#include "mpt/Conversion/TensorCoreSchedules.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mpt::tensorcore;

namespace {
struct TestTensorCoreSchedulesPass
    : PassWrapper<TestTensorCoreSchedulesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestTensorCoreSchedulesPass)
  StringRef getArgument() const final {
    return "mpt-test-tensorcore-schedules";
  }
  StringRef getDescription() const final {
    return "Print every instantiation of the embedded Tensor Core schedules";
  }
  void runOnOperation() override {
    Location loc = getOperation().getLoc();
    std::vector<ScheduleExample> examples =
        getScheduleExamples(&getContext());
    for (const ScheduleExample &example : examples) {
      std::string error;
      std::optional<std::string> text =
          instantiateSchedule(example.file, example.params, error);
      if (!text) {
        emitError(loc) << error;
        return signalPassFailure();
      }
      if (&example != &examples.front())
        llvm::outs() << "// -----\n";
      llvm::outs() << "// " << getScheduleFileName(example.file)
                   << ": " << example.label << "\n"
                   << *text;
    }
    // The two errors of instantiateSchedule.
    ScheduleParams params = examples.front().params;
    std::string error;
    params.pop_back();
    if (!instantiateSchedule(examples.front().file, params, error))
      emitRemark(loc) << error;
    params = examples.front().params;
    params.push_back({"UNUSED", "1"});
    if (!instantiateSchedule(examples.front().file, params, error))
      emitRemark(loc) << error;
  }
};
} // namespace

namespace mpt::test {
void registerTestTensorCoreSchedulesPass() {
  PassRegistration<TestTensorCoreSchedulesPass>();
}
} // namespace mpt::test
