//===- InitAll.cpp - register mpt's dialect and passes --------------------===//
#include "mpt/InitAll.h"
#include "mpt/IR/MPTDialect.h"
#include "mpt/Pipelines/LowerToCPU.h"
#include "mpt/Pipelines/MixedPrecision.h"
#include "mpt/Transforms/Passes.h"
#include "mpt/Conversion/CPUPasses.h"
#include "mpt/Conversion/Passes.h"
#include "mpt/Conversion/TensorCoreTransformOps.h"
#include "mpt/Pipelines/GPUCodegen.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"

void mpt::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<mpt::MPTDialect>();
  // transform.mpt.*: the Tensor Core schedule's own transform ops.
  mpt::registerTensorCoreTransformExtension(registry);
  // mpt-gpu-codegen serializes gpu.modules through LLVM IR (NVVM target).
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerGPUDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
  // --mpt-lower-to-cpu="parallel=1" leaves omp ops for LLVM IR translation.
  mlir::registerOpenMPDialectTranslation(registry);
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
}

void mpt::registerAllPasses() {
  registerMPTTransformsPasses();
  registerMPTConversionPasses();
  registerMPTCPUPasses();
  registerLowerToCPUPipeline();
  registerMixedPrecisionPipeline();
  registerGPUCodegenPipeline();
}

void mpt::printPipelinesAndPasses() {
  // The pipelines registered above, in the order a step goes through them.
  static constexpr llvm::StringLiteral pipelines[] = {
      "mpt-mixed-precision", "mpt-lower-to-cpu", "mpt-gpu-codegen"};
  llvm::SmallVector<const mlir::PassPipelineInfo *> infos;
  // The descriptions start after the widest option (as --help aligns them).
  size_t descIndent = 0;
  for (llvm::StringLiteral name : pipelines)
    if (const mlir::PassPipelineInfo *info =
            mlir::PassPipelineInfo::lookup(name)) {
      infos.push_back(info);
      descIndent = std::max(descIndent, info->getOptionWidth() + 4);
    }
  llvm::outs() << "Pass Pipelines:\n";
  for (const mlir::PassPipelineInfo *info : infos)
    info->printHelpStr(/*indent=*/2, descIndent);
  // Only mpt's passes when only they are registered (mpt-opt --mpt-help).
  mlir::printRegisteredPasses();
}
