//===- Passes.td - mpt conversion passes -------------------*- tablegen -*-===//
#ifndef MPT_CONVERSION_PASSES_TD
#define MPT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"
include "mpt/Support/ReportOptions.td"

def MatmulToTensorCore : Pass<"mpt-matmul-to-tensorcore", "mlir::ModuleOp"> {
  let summary = "Lower f16/bf16 (and, on sm_90a, FP8) -> f32 matmuls to Tensor Core GPU kernels";
  // The report's counts, for --mlir-pass-statistics.
  let statistics = [
    Statistic<"numTensorCore", "tensor-core-matmuls",
              "Matmuls lowered to Tensor Cores">,
    Statistic<"numSimt", "simt-matmuls",
              "Matmuls lowered to a SIMT GPU kernel (general path)">,
    Statistic<"numLeft", "matmuls-left", "Matmuls left as they are">,
  ];
  let description = [{
    Rewrites every `linalg.matmul` on memrefs whose inputs are both f16 or
    both bf16 and whose accumulator is f32 into a `gpu.launch` that computes
    it on NVIDIA Tensor Cores. The matmul is first outlined into its own
    private function (`<caller>_tensorcore_<n>`), called where it was.

    `chip=sm_80` (Ampere and later): thread-block tiles of
    `tile-m x tile-n x tile-k`, one warp per `warp-m x warp-n` sub-tile; A
    and B tiles are staged in shared memory by `cp.async` (16 bytes per
    thread, L1 bypassed) in a `stages`-deep software pipeline; fragments are
    read with `ldmatrix` and multiplied with `mma.sync.m16n8k16` (f32
    accumulators kept in registers across the K loop). bf16 has its own
    lowering to `nvvm.mma.sync` with operands packed as i32 (the upstream
    vector-to-nvgpu route only handles f16).

    `chip=sm_90a` (Hopper): one warpgroup per 64 x 128 output tile, A and B
    tiles are loaded by TMA into swizzled shared memory guarded by an
    mbarrier and multiplied with `wgmma.mma_async` (m64n128k16). FP8
    matmuls (f8E4M3FN / f8E5M2 inputs in any pairing, f32 accumulator) get
    their own kernel: `wgmma.mma_async` m64n128k32 with e4m3/e5m2 operands,
    128-deep k-tiles, both operands read K-major (A[m][k], B[n][k]; an
    operand stored MN-major is first copied K-major by a transpose kernel).
    An FP8 matmul with `chip=sm_80` is an error (`mma.sync` has no FP8
    before sm_89).

    Matmuls that cannot take the Tensor Core path take the general path and
    a remark says why (element types, dynamic shapes, tensor semantics
    (bufferize first), a dimension that is not a multiple of the tile):
    with `general=gpu` (default) a matmul or batch_matmul on statically
    shaped memrefs becomes a SIMT GPU kernel (32x32 tiles per block, scalar
    loops per thread, edges bounded: correct for every shape); anything else,
    and everything with `general=host`, is left as it is. Every matmul that
    is lowered gets a remark naming the kernel configuration. With
    `output=<file>` ('-' for stderr) the same goes to a report, as text or
    JSON (`format`): per matmul its location, op, shape, whether it
    reached Tensor Cores, and the kernel function and configuration or the
    reason it did not. `report=` and `report-format=` are deprecated
    aliases of `output=` and `format=`. The counts are also pass
    statistics (`--mlir-pass-statistics`, where MLIR is built with
    LLVM_ENABLE_STATS; Debian's is not).
  }];
  let options = [
    Option<"chip", "chip", "mpt::TensorCoreChip",
           /*default=*/"mpt::TensorCoreChip::SM80",
           "Target: sm_80 (mma.sync + cp.async) or sm_90a (wgmma + TMA)",
           [{::llvm::cl::values(
             clEnumValN(mpt::TensorCoreChip::SM80, "sm_80",
                        "mma.sync + cp.async (Ampere and later)"),
             clEnumValN(mpt::TensorCoreChip::SM90a, "sm_90a",
                        "wgmma + TMA (Hopper)"))}]>,
    Option<"tileM", "tile-m", "int64_t", /*default=*/"128",
           "Thread-block tile rows (sm_80)">,
    Option<"tileN", "tile-n", "int64_t", /*default=*/"128",
           "Thread-block tile columns (sm_80)">,
    Option<"tileK", "tile-k", "int64_t", /*default=*/"32",
           "K extent of one shared-memory stage (sm_80)">,
    Option<"warpM", "warp-m", "int64_t", /*default=*/"64",
           "Rows computed by one warp (sm_80)">,
    Option<"warpN", "warp-n", "int64_t", /*default=*/"64",
           "Columns computed by one warp (sm_80)">,
    Option<"stages", "stages", "int64_t", /*default=*/"3",
           "Shared-memory pipeline depth (sm_80, cp.async stages)">,
    Option<"general", "general", "mpt::GeneralMatmulPath",
           /*default=*/"mpt::GeneralMatmulPath::Gpu",
           "What happens to matmuls that cannot take the Tensor Core path: "
           "gpu (a SIMT GPU kernel, for statically shaped memref matmuls) or "
           "host (left as they are)",
           [{::llvm::cl::values(
             clEnumValN(mpt::GeneralMatmulPath::Gpu, "gpu", "SIMT GPU kernel"),
             clEnumValN(mpt::GeneralMatmulPath::Host, "host",
                        "left as they are"))}]>,
    ReportFormatOption,
    ReportOutputOption<"\"\"", "Also write which matmuls reached Tensor "
                       "Cores and why the others did not to this file ('-' "
                       "for stderr)">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Deprecated alias of output">,
    Option<"reportFormat", "report-format", "std::string",
           /*default=*/"\"\"", "Deprecated alias of format">,
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::affine::AffineDialect",
    "mlir::func::FuncDialect", "mlir::gpu::GPUDialect",
    "mlir::linalg::LinalgDialect", "mlir::LLVM::LLVMDialect",
    "mlir::memref::MemRefDialect", "mlir::NVVM::NVVMDialect",
    "mlir::nvgpu::NVGPUDialect", "mlir::scf::SCFDialect",
    "mlir::transform::TransformDialect", "mlir::vector::VectorDialect"];
}

def LowerLossScaling : Pass<"mpt-lower-loss-scaling", "mlir::func::FuncOp"> {
  let summary = "Lower the mpt loss-scaling ops to linalg, arith and tensor";
  let description = [{
    Lowers `mpt.scale`, `mpt.unscale_and_check`, `mpt.update_scale` and
    `mpt.guard_update` (docs/LossScaling.md) to upstream MLIR:

    * `mpt.scale` and the unscaling: one elementwise `linalg.generic` per
      tensor, computing in FP32 (in the element type when it is wider) and
      rounding to the element type. The reciprocal of the scale is computed
      in FP64 and rounded to FP32, as PyTorch's GradScaler does.
    * found-inf: a `linalg.generic` reduction per unscaled gradient into one
      `tensor<i1>` (an element is non-finite when it is unordered-or-equal
      to +inf, or equal to -inf: NaN, +inf, -inf).
    * `mpt.update_scale`: scalar `arith` on the extracted values, with
      `arith.select` choosing backoff, growth (skipped when it would
      overflow FP32) or neither.
    * `mpt.guard_update`: `arith.select` on the extracted flag between the
      two tensors, so a skipped step returns its input bit for bit.

    A compiler with a fused "unscale and check" kernel can lower the ops
    its own way instead. The `mpt.grad_seed` / `mpt.gradient` markers are
    not touched (see `--mpt-strip-training-markers`).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def LowerAllReduce : Pass<"mpt-lower-all-reduce", "mlir::ModuleOp"> {
  let summary = "Lower mpt.all_reduce to mpi.allreduce on buffers";
  let description = [{
    Each `mpt.all_reduce` becomes, still at tensor level,
    `bufferization.to_buffer` of its input, a fresh `memref.alloc` for the
    result, `mpi.allreduce` on `MPI_COMM_WORLD` (`MPI_SUM` or `MPI_MAX`) and
    `bufferization.to_tensor ... restrict` of the result; `mean` sends one
    more element, 1 on every rank, and divides by its sum, the number of
    ranks (MLIR 22 has no lowering of `mpi.comm_size`). One-shot
    bufferization then removes the casts, and
    `convert-to-llvm` lowers the `mpi` ops to calls into the MPI library
    (MPICH's ABI unless the module's DLTI says `"MPI:Implementation" =
    "OpenMPI"`). The process must have called `MPI_Init` (mpt-run does).
    A `wire` type (bf16, f16) becomes a ring all-reduce of `mpi.send` /
    `mpi.recv` of the 16-bit bits as `i16` (a reduce-scatter that adds in
    f32 on arrival, then an all-gather of the rounded sums; blocking, even
    ranks send first), after a 4-byte `MPI_SUM` that counts the ranks:
    each rank sends 4(N-1)/N bytes per element. docs/Distributed.md gives
    the error bound.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::DLTIDialect",
                           "mlir::bufferization::BufferizationDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::mpi::MPIDialect",
                           "mlir::tensor::TensorDialect"];
}

#endif // MPT_CONVERSION_PASSES_TD
