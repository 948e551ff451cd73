//===- LowerVectorPrints.cpp - vector.print to LLVM, on the module --------===//
#include "mpt/Conversion/CPUPasses.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mpt {
#define GEN_PASS_DEF_LOWERVECTORPRINTS
#include "mpt/Conversion/CPUPasses.h.inc"
} // namespace mpt

using namespace mlir;

namespace {
struct LowerVectorPrintsPass
    : mpt::impl::LowerVectorPrintsBase<LowerVectorPrintsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool hasPrint = false;
    module.walk([&](vector::PrintOp) {
      hasPrint = true;
      return WalkResult::interrupt();
    });
    if (!hasPrint)
      return;
    MLIRContext *context = &getContext();
    LLVMTypeConverter converter(context);
    RewritePatternSet patterns(context);
    populateVectorToLLVMConversionPatterns(converter, patterns);
    // Only the prints: every other op is legal here.
    ConversionTarget target(*context);
    target.addIllegalOp<vector::PrintOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
