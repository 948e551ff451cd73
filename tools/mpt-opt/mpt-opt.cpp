//===- mpt-opt.cpp - mpt's optimizer driver -------------------------------===//
//
// mlir-opt with the mpt dialect and passes: every upstream dialect (func,
// arith, math, linalg, tensor, tosa, scf, gpu, nvgpu, nvvm, vector, memref,
// bufferization, transform, llvm, ...) with its interface extensions, every
// upstream pass, and every mpt pass and pipeline.
//
//===----------------------------------------------------------------------===//
#include "mpt/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/ADT/StringRef.h"

#include <vector>

namespace mpt::test {
void registerTestTrainingGraphPass();
void registerTestTensorCoreSchedulesPass();
} // namespace mpt::test

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
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      static_cast<int>(args.size()), args.data(),
      "mpt: mixed-precision training compiler driver\n", registry));
}
