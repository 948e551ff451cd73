//===- LowerToCPU.h - the --mpt-lower-to-cpu pipeline ----------*- C++ -*-===//
//
// Lowers a training step at tensor level (linalg, tensor, arith, math, scf,
// the mpt markers) to the LLVM dialect, so that MLIR's ExecutionEngine (or
// mlir-runner) runs it on the host CPU. Used by mpt-run; also registered as
// `--mpt-lower-to-cpu` for mpt-opt. docs/Running.md describes the ABI.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_PIPELINES_LOWERTOCPU_H
#define MPT_PIPELINES_LOWERTOCPU_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mpt {

struct LowerToCPUOptions : public mlir::PassPipelineOptions<LowerToCPUOptions> {
  Option<bool> expandBF16{
      *this, "expand-bf16",
      llvm::cl::desc("Expand bf16 <-> f32 casts into integer arithmetic "
                     "(arith-expand include-bf16); the x86 backend has no "
                     "native bf16 conversion"),
      llvm::cl::init(true)};
  Option<bool> emitCInterface{
      *this, "c-interface",
      llvm::cl::desc("Add llvm.emit_c_interface to every function, so that "
                     "it can be called as _mlir_ciface_<name> with memref "
                     "descriptors"),
      llvm::cl::init(true)};
  Option<bool> deallocate{
      *this, "deallocate",
      llvm::cl::desc("Free the step's temporary buffers (ownership-based "
                     "buffer deallocation); returned buffers belong to the "
                     "caller"),
      llvm::cl::init(true)};
  Option<bool> useGenericFunctions{
      *this, "use-generic-functions",
      llvm::cl::desc("Allocate and free through _mlir_memref_to_llvm_alloc, "
                     "_mlir_memref_to_llvm_aligned_alloc and "
                     "_mlir_memref_to_llvm_free, which the host defines (mpt-run "
                     "counts the step's heap bytes with them), instead of "
                     "malloc and free"),
      llvm::cl::init(false)};
};

/// Adds the passes of --mpt-lower-to-cpu to `pm`, a module pass manager.
void buildLowerToCPUPipeline(mlir::OpPassManager &pm,
                             const LowerToCPUOptions &options);

/// Registers --mpt-lower-to-cpu with the global pass registry.
void registerLowerToCPUPipeline();

} // namespace mpt

#endif // MPT_PIPELINES_LOWERTOCPU_H
