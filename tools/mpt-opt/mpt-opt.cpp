//===- mpt-opt.cpp - mpt's optimizer driver -------------------------------===//
//
// mlir-opt with the mpt dialect and passes: every upstream dialect (func,
// arith, math, linalg, tensor, tosa, scf, gpu, nvgpu, nvvm, vector, memref,
// bufferization, transform, llvm, ...) with its interface extensions, every
// upstream pass, and every mpt pass and pipeline.
//
// One difference from mlir-opt: unless --verify-each is given, the IR is
// verified once, after the last pass (--mpt-verify), instead of after every
// pass that changed it. A verification costs about a quarter of parsing and
// printing the step, more than most mpt passes (docs/CompileTime.md).
//
//===----------------------------------------------------------------------===//
#include "mpt/InitAll.h"
#include "mpt/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cstdio>

#include <vector>

namespace mpt::test {
void registerTestTrainingGraphPass();
void registerTestTensorCoreSchedulesPass();
} // namespace mpt::test

namespace {
/// mlir-opt's configuration, whose pipeline can be followed by one
/// verification of its result.
class MptOptConfig : public mlir::MlirOptMainConfig {
public:
  explicit MptOptConfig(mlir::MlirOptMainConfig config)
      : MlirOptMainConfig(std::move(config)) {}

  void verifyResultOnce() {
    passPipelineCallback =
        [setup = std::move(passPipelineCallback)](
            mlir::PassManager &pm) -> mlir::LogicalResult {
      if (setup && mlir::failed(setup(pm)))
        return mlir::failure();
      // No pass: the parser verified what will be printed.
      if (pm.size() != 0)
        pm.addPass(mpt::createVerify());
      return mlir::success();
    };
  }
};
} // namespace

int main(int argc, char **argv) {
  // --mpt-help: mpt's own pipelines and passes with their options, without
  // the few hundred upstream ones --help lists (registered only after this).
  for (int i = 1; i < argc; ++i)
    if (llvm::StringRef(argv[i]) == "--mpt-help") {
      mpt::registerAllPasses();
      mpt::printPipelinesAndPasses();
      return 0;
    }
  mlir::registerAllPasses();
  mpt::registerAllPasses();
  mpt::test::registerTestTrainingGraphPass();
  mpt::test::registerTestTensorCoreSchedulesPass();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mpt::registerAllDialects(registry);
  // A diagnostic does not dump the whole op in generic form (hundreds of
  // lines for a training step) unless asked with
  // --mlir-print-op-on-diagnostic: the location says where.
  std::vector<char *> args(argv, argv + argc);
  bool asked = false;
  for (char *arg : args)
    asked |= llvm::StringRef(arg).contains("mlir-print-op-on-diagnostic");
  static char quiet[] = "--mlir-print-op-on-diagnostic=false";
  if (!asked)
    args.insert(args.begin() + 1, quiet);
  int argCount = static_cast<int>(args.size());
  char **argValues = args.data();
  llvm::InitLLVM initLLVM(argCount, argValues);

  // mlir-opt's main (MlirOptMain(argc, argv, ...)), with the configuration
  // adjusted between parsing the options and running.
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argCount, argValues, "mpt: mixed-precision training compiler driver\n",
      registry);
  MptOptConfig config(mlir::MlirOptMainConfig::createFromCLOptions());
  if (config.shouldListPasses()) {
    mlir::printRegisteredPasses();
    return 0;
  }
  llvm::cl::Option *verifyEach =
      llvm::cl::getRegisteredOptions().lookup("verify-each");
  if (!verifyEach || verifyEach->getNumOccurrences() == 0)
    config.verifyPasses(false);
  if (!config.shouldVerifyPasses())
    config.verifyResultOnce();

  if (inputFilename == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                    "interrupt)\n";
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
