//===- GPUCodegen.h - the --mpt-gpu-codegen pipeline -----------*- C++ -*-===//
//
// Bufferizes, lowers the eligible matmuls to Tensor Core kernels
// (--mpt-matmul-to-tensorcore), the rest to host loops, and runs the
// upstream NVVM pipeline, whose gpu-module-to-binary serializes each kernel
// to PTX (format=isa) or a cubin (format=bin, assembled by ptxas). With
// dump-dir, the PTX/cubin files are also written there. docs/TensorCore.md.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_PIPELINES_GPUCODEGEN_H
#define MPT_PIPELINES_GPUCODEGEN_H

#include "mpt/Conversion/Passes.h"

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mpt {

struct GPUCodegenOptions : public mlir::PassPipelineOptions<GPUCodegenOptions> {
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("isa (PTX text), bin (cubin) or fatbin"),
      llvm::cl::init("isa")};
  Option<std::string> dumpDir{
      *this, "dump-dir",
      llvm::cl::desc("Also write each kernel's PTX/cubin into this directory "
                     "(<kernel>.<chip>.ptx|cubin)"),
      llvm::cl::init("")};
  // --mpt-matmul-to-tensorcore's chip, tile-m/n/k, warp-m/n, stages and
  // general, generated from its records (not its report options).
#define GEN_PIPELINE_OPTIONS_MATMULTOTENSORCORE
#include "mpt/Conversion/PipelineOptions.h.inc"
};

/// Adds the passes of --mpt-gpu-codegen to `pm`, a module pass manager.
void buildGPUCodegenPipeline(mlir::OpPassManager &pm,
                             const GPUCodegenOptions &options);

/// Registers --mpt-gpu-codegen with the global pass registry.
void registerGPUCodegenPipeline();

} // namespace mpt

#endif // MPT_PIPELINES_GPUCODEGEN_H
