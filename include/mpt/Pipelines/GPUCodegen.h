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
  Option<TensorCoreChip> chip{
      *this, "chip",
      llvm::cl::desc("sm_80 (mma.sync + cp.async) or sm_90a (wgmma + TMA)"),
      llvm::cl::init(TensorCoreChip::SM80),
      llvm::cl::values(clEnumValN(TensorCoreChip::SM80, "sm_80",
                                  "mma.sync + cp.async (Ampere and later)"),
                       clEnumValN(TensorCoreChip::SM90a, "sm_90a",
                                  "wgmma + TMA (Hopper)"))};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("isa (PTX text), bin (cubin) or fatbin"),
      llvm::cl::init("isa")};
  Option<std::string> dumpDir{
      *this, "dump-dir",
      llvm::cl::desc("Also write each kernel's PTX/cubin into this directory "
                     "(<kernel>.<chip>.ptx|cubin)"),
      llvm::cl::init("")};
  Option<GeneralMatmulPath> general{
      *this, "general",
      llvm::cl::desc("Matmuls that cannot use Tensor Cores: gpu (SIMT GPU "
                     "kernel when statically shaped) or host (host loops)"),
      llvm::cl::init(GeneralMatmulPath::Gpu),
      llvm::cl::values(
          clEnumValN(GeneralMatmulPath::Gpu, "gpu", "SIMT GPU kernel"),
          clEnumValN(GeneralMatmulPath::Host, "host", "host loops"))};
  Option<int64_t> tileM{*this, "tile-m",
                        llvm::cl::desc("sm_80 thread-block tile rows"),
                        llvm::cl::init(128)};
  Option<int64_t> tileN{*this, "tile-n",
                        llvm::cl::desc("sm_80 thread-block tile columns"),
                        llvm::cl::init(128)};
  Option<int64_t> tileK{*this, "tile-k",
                        llvm::cl::desc("sm_80 K extent of a shared stage"),
                        llvm::cl::init(32)};
  Option<int64_t> warpM{*this, "warp-m",
                        llvm::cl::desc("sm_80 rows per warp"),
                        llvm::cl::init(64)};
  Option<int64_t> warpN{*this, "warp-n",
                        llvm::cl::desc("sm_80 columns per warp"),
                        llvm::cl::init(64)};
  Option<int64_t> stages{*this, "stages",
                         llvm::cl::desc("sm_80 cp.async pipeline depth"),
                         llvm::cl::init(3)};
};

/// Adds the passes of --mpt-gpu-codegen to `pm`, a module pass manager.
void buildGPUCodegenPipeline(mlir::OpPassManager &pm,
                             const GPUCodegenOptions &options);

/// Registers --mpt-gpu-codegen with the global pass registry.
void registerGPUCodegenPipeline();

} // namespace mpt

#endif // MPT_PIPELINES_GPUCODEGEN_H
