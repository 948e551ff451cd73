//===- InitAll.cpp - register mpt's dialect and passes --------------------===//
#include "mpt/InitAll.h"
#include "mpt/IR/MPTDialect.h"
#include "mpt/Pipelines/LowerToCPU.h"
#include "mpt/Pipelines/MixedPrecision.h"
#include "mpt/Transforms/Passes.h"
#include "mpt/Conversion/Passes.h"

#include "mlir/IR/DialectRegistry.h"

void mpt::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<mpt::MPTDialect>();
}

void mpt::registerAllPasses() {
  registerMPTTransformsPasses();
  registerMPTConversionPasses();
  registerLowerToCPUPipeline();
  registerMixedPrecisionPipeline();
}
