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
                     "(--mpt-expand-bf16-casts), for x86 CPUs without "
                     "AVX512-BF16 (with it, LLVM emits vcvtneps2bf16, which "
                     "flushes f32 denormals to zero)"),
      llvm::cl::init(true)};
  Option<bool> emitCInterface{
      *this, "c-interface",
      llvm::cl::desc("Add llvm.emit_c_interface to every function, so that "
                     "it can be called as _mlir_ciface_<name> with memref "
                     "descriptors"),
      llvm::cl::init(true)};
  Option<bool> amx{
      *this, "amx",
      llvm::cl::desc("Target has AMX (amx-tile, amx-bf16): bf16 x bf16 -> f32 "
                     "contractions call the AMX tile kernel "
                     "(--mpt-matmul-to-cpu-kernels). Running the code needs "
                     "that CPU and, on Linux, the AMX tile state requested "
                     "from the kernel (arch_prctl; mpt-run does it)"),
      llvm::cl::init(false)};
  Option<bool> avx512{
      *this, "avx512",
      llvm::cl::desc("Target has AVX-512F: f32 and f16 contractions (bf16 "
                     "ones too without AMX) call the AVX-512 kernel (FMA: "
                     "f32 rounding differs from the generic loops)"),
      llvm::cl::init(false)};
  Option<bool> avx2{
      *this, "avx2",
      llvm::cl::desc("Target has AVX2 and FMA (and F16C): without avx512, "
                     "f32, f16 and bf16 contractions call the AVX2 kernel "
                     "(6x16 register block, FMA: f32 rounding differs from "
                     "the generic loops)"),
      llvm::cl::init(false)};
  Option<bool> avx512bf16{
      *this, "avx512-bf16",
      llvm::cl::desc("With avx512 and without amx: target has AVX512-BF16, "
                     "bf16 x bf16 -> f32 contractions call the vdpbf16ps "
                     "kernel (two k per multiply-add instruction; f32 "
                     "denormals flushed to zero)"),
      llvm::cl::init(false)};
  Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Vectorize the linalg ops that are not contractions "
                     "(elementwise ops, reductions, copies, transposes, "
                     "fills; --mpt-vectorize-cpu-loops): the same results as "
                     "the scalar loops. Runs on any x86-64"),
      llvm::cl::init(false)};
  Option<int64_t> vectorLanes{
      *this, "vector-lanes",
      llvm::cl::desc("With vectorize: elements per vector along the "
                     "innermost loop; 0: the CPU's f32 vector width (8 with "
                     "avx2, else 16). Results do not depend on it"),
      llvm::cl::init(0)};
  Option<bool> approximateMath{
      *this, "approximate-math",
      llvm::cl::desc("With vectorize: exp, erf and tanh on vectors use "
                     "upstream's polynomial approximations instead of libm "
                     "per lane (a few ulp from libm)"),
      llvm::cl::init(false)};
  Option<bool> parallel{
      *this, "parallel",
      llvm::cl::desc("Run the kernels' row blocks and the outer loops of "
                     "large vectorized ops on threads (scf.parallel, "
                     "convert-scf-to-openmp): the host must link an OpenMP "
                     "runtime (libomp; mpt-run --threads does). Every element "
                     "is computed as on one thread: the same results"),
      llvm::cl::init(false)};
  Option<int64_t> parallelMinWork{
      *this, "parallel-min-work",
      llvm::cl::desc("With parallel: contractions of fewer multiply-adds "
                     "(AMX's; an eighth of it for the AVX-512 kernel, a "
                     "quarter for AVX512-BF16, a sixteenth for AVX2) call "
                     "the serial kernel "
                     "(--mpt-matmul-to-cpu-kernels' parallel-min-work)"),
      llvm::cl::init(int64_t(1) << 23)};
  Option<std::string> kernelReport{
      *this, "kernel-report",
      llvm::cl::desc("Write which contractions got a CPU kernel and why the "
                     "others did not to this file ('-' for stderr)"),
      llvm::cl::init("")};
  Option<std::string> kernelReportFormat{
      *this, "kernel-report-format",
      llvm::cl::desc("Format of the kernel report: text or json"),
      llvm::cl::init("text")};
  Option<bool> mergeAccumulatedMatmuls{
      *this, "merge-accumulated-matmuls",
      llvm::cl::desc("Compute a sum of small-K matmuls (the gradient of a "
                     "weight used at every step of an RNN) as one matmul of "
                     "the concatenated operands "
                     "(--mpt-merge-accumulated-matmuls): another summation "
                     "order"),
      llvm::cl::init(true)};
  Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Fuse chains of elementwise linalg ops and give each "
                     "reader of a fill its own (--mpt-fuse-elementwise) "
                     "before bufferization: fewer, shorter-lived temporary "
                     "buffers, the same results"),
      llvm::cl::init(true)};
  Option<bool> excessPrecision{
      *this, "excess-precision",
      llvm::cl::desc("With fuse-elementwise: where fusion puts an op that "
                     "rounds to bf16 or f16 before one that widens the value "
                     "back, the reader takes the f32 value "
                     "(--mpt-fuse-elementwise's excess-precision): fewer "
                     "conversions, more exact intermediates, results that "
                     "differ from op-by-op rounding; stored values keep "
                     "their rounding"),
      llvm::cl::init(true)};
  Option<bool> updateInPlace{
      *this, "update-in-place",
      llvm::cl::desc("Write updated parameters and optimizer state "
                     "(mpt.updates results) into their argument buffers where "
                     "bufferization proves it safe, and return those argument "
                     "buffers as the results (--mpt-update-in-place, "
                     "--mpt-return-argument-buffers): the caller must expect a "
                     "result to be one of its argument buffers"),
      llvm::cl::init(false)};
  Option<bool> deallocate{
      *this, "deallocate",
      llvm::cl::desc("Free the step's temporary buffers (ownership-based "
                     "buffer deallocation); returned buffers belong to the "
                     "caller"),
      llvm::cl::init(true)};
  Option<bool> outline{
      *this, "outline",
      llvm::cl::desc("Outline each linalg op into a private function, "
                     "identical ops into one (--mpt-outline-linalg-ops): "
                     "compile time linear in the step, each loop nest "
                     "compiled once"),
      llvm::cl::init(true)};
  Option<unsigned> chunkOps{
      *this, "chunk-ops",
      llvm::cl::desc("Cut functions of more ops than this (the step) into "
                     "noinline functions of at most this many ops "
                     "(--mpt-outline-chunks): LLVM's code generation stays "
                     "linear in the step; 0: do not cut"),
      llvm::cl::init(256)};
  Option<std::string> assertHandler{
      *this, "assert-handler",
      llvm::cl::desc("Call this host function with a failed cf.assert's "
                     "message and location (--mpt-report-failed-asserts; "
                     "mpt-run's reports it and ends the run) instead of "
                     "upstream's puts and abort; empty: upstream's"),
      llvm::cl::init("")};
  Option<bool> useGenericFunctions{
      *this, "use-generic-functions",
      llvm::cl::desc("Allocate and free through _mlir_memref_to_llvm_alloc, "
                     "_mlir_memref_to_llvm_aligned_alloc and "
                     "_mlir_memref_to_llvm_free, which the host defines (mpt-run "
                     "counts the step's heap bytes with them), instead of "
                     "malloc and free"),
      llvm::cl::init(false)};
};

/// Adds the tensor-level passes --mpt-lower-to-cpu begins with to `pm`, a
/// module pass manager: the step as upstream linalg, tensor, arith, math and
/// scf ops on tensors, fused, before the CPU-specific rewrites and
/// bufferization (what mpt-run's interpreter runs).
void buildLowerToCPUTensorPipeline(mlir::OpPassManager &pm,
                                   const LowerToCPUOptions &options);

/// Adds the passes of --mpt-lower-to-cpu to `pm`, a module pass manager.
void buildLowerToCPUPipeline(mlir::OpPassManager &pm,
                             const LowerToCPUOptions &options);

/// Registers --mpt-lower-to-cpu with the global pass registry.
void registerLowerToCPUPipeline();

} // namespace mpt

#endif // MPT_PIPELINES_LOWERTOCPU_H
