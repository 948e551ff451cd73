//===- GPUCodegen.cpp - the --mpt-gpu-codegen pipeline --------------------===//
//
// Bufferize, lower the matmuls to Tensor Core kernels and run the upstream
// NVVM pipeline (gpu-lower-to-nvvm-pipeline: nvgpu to nvvm, outlining, LLVM
// lowering), whose last step, gpu-module-to-binary, serializes each
// gpu.module to PTX (format=isa) or a cubin (format=bin, by the CUDA
// toolkit's ptxas).
//
//===----------------------------------------------------------------------===//
#include "mpt/Pipelines/GPUCodegen.h"
#include "mpt/Conversion/CPUPasses.h"
#include "mpt/Conversion/Passes.h"
#include "mpt/Pipelines/Registration.h"
#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void mpt::buildGPUCodegenPipeline(OpPassManager &pm,
                                  const GPUCodegenOptions &options) {
  // Tensor-level steps (autocast output) have elementwise arith on tensors,
  // which bufferizes once it is linalg.
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));

  pm.addPass(createMatmulToTensorCore(options.getMatmulToTensorCoreOptions()));
  // What did not reach Tensor Cores runs as loops on the host, where bf16
  // casts are expanded to integer arithmetic (no native x86 conversion).
  // FP8 casts (autocast's, and the FP8 reads of a SIMT fallback kernel)
  // have no LLVM lowering at all: they become integer arithmetic too.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addNestedPass<func::FuncOp>(createExpandFp8Casts());
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addNestedPass<func::FuncOp>(arith::createArithExpandOpsPass(expand));

  // The upstream pipeline converts nvgpu to nvvm (TMA descriptors become
  // pointers) before it outlines the kernels: outlining earlier would put
  // nvgpu types into kernel signatures, which do not lower.
  gpu::GPUToNVVMPipelineOptions nvvm;
  nvvm.cubinChip = stringifyTensorCoreChip(options.chip).str();
  // PTX ISA 7.6 has everything sm_80 uses; wgmma/TMA need 8.0.
  nvvm.cubinFeatures =
      options.chip == TensorCoreChip::SM90a ? "+ptx80" : "+ptx76";
  nvvm.cubinFormat = options.format;
  nvvm.optLevel = 3;
  gpu::buildLowerToNVVMPassPipeline(pm, nvvm);
  if (!options.dumpDir.empty()) {
    DumpGPUBinariesOptions dump;
    dump.dir = options.dumpDir;
    pm.addPass(createDumpGPUBinaries(dump));
  }
}

void mpt::registerGPUCodegenPipeline() {
  registerModulePipeline<GPUCodegenOptions>(
      "mpt-gpu-codegen",
      "Bufferize, lower matmuls to Tensor Core kernels and compile them to "
      "PTX or cubin (chip=sm_80|sm_90a format=isa|bin [dump-dir=DIR])",
      buildGPUCodegenPipeline);
}
