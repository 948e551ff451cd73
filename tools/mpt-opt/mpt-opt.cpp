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

namespace mpt::test {
void registerTestTrainingGraphPass();
} // namespace mpt::test

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mpt::registerAllPasses();
  mpt::test::registerTestTrainingGraphPass();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mpt::registerAllDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "mpt: mixed-precision training compiler driver\n",
      registry));
}
