//===- CPUPasses.td - mpt passes of the CPU backend --------*- tablegen -*-===//
//
// Apart from Passes.td so that the GPU conversions do not depend on them.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_CONVERSION_CPUPASSES_TD
#define MPT_CONVERSION_CPUPASSES_TD

include "mlir/Pass/PassBase.td"
include "mpt/Support/ReportOptions.td"

def MatmulToCPUKernels : Pass<"mpt-matmul-to-cpu-kernels", "mlir::ModuleOp"> {
  let summary = "Lower contractions to calls of vectorized CPU kernels (AMX, AVX-512, AVX2)";
  // The report's counts, for --mlir-pass-statistics.
  let statistics = [
    Statistic<"numAmx", "amx-contractions", "Contractions given the AMX kernel">,
    Statistic<"numAvx512Bf16", "avx512-bf16-contractions",
              "Contractions given the AVX512-BF16 kernel">,
    Statistic<"numAvx512", "avx512-contractions",
              "Contractions given the AVX-512 kernel">,
    Statistic<"numAvx2", "avx2-contractions",
              "Contractions given the AVX2 kernel">,
    Statistic<"numWithoutKernel", "without-kernel",
              "Contractions and convolutions left to the scalar loops">,
  ];
  let description = [{
    Rewrites contractions on memrefs into calls of kernel functions that are
    added once per module (one per kernel and element type) and take dynamic
    M, N, K, so compile time does not grow with the number of matmuls. Each
    kernel computes C += A * B with an f32 C:

    * `amx` (bf16 x bf16 -> f32): `@__mpt_amx_matmul_bf16`, written with the
      upstream `amx` dialect: a 2x2 block of 16x16 f32 accumulator tiles
      kept in tile registers across a K block of 256, A and B packed (with
      vector loads) into contiguous 16-row tiles, B in the VNNI layout.
      Summation order differs from the scalar loops (f32 sums of exact bf16
      products).
    * `avx512-bf16` (bf16 x bf16 -> f32 without AMX):
      `@__mpt_avx512bf16_matmul_bf16`, the AVX-512 kernel's blocking (K
      blocks of 512) with bf16 packs in k pairs and one `x86vector.avx512.dot` (vdpbf16ps) per
      accumulator and k pair; f32 denormals are flushed to zero.
    * `avx512` (f32, f16 or bf16 inputs -> f32): `@__mpt_avx512_matmul_<t>`,
      a 14x32 register block of 28 vector<16xf32> accumulators kept across
      a K block of 256, A and B packed (and widened to f32, exactly) into
      panels, one `vector.fma` per accumulator and k; a panel of at most 4
      or 8 rows uses a 4x32 or 8x32 block. k runs in order as in
      the scalar loops, but each multiply-add is rounded once (FMA), so f32
      results differ from the generic path by rounding.
    * `avx2` (f32, f16 or bf16 inputs -> f32, a target without AVX-512):
      `@__mpt_avx2_matmul_<t>`, the AVX-512 kernel's algorithm and numerics
      with AVX2's blocking: a 6x16 register block of 6 vector<16xf32>
      accumulators (12 ymm registers), 4- and 2-row blocks for short
      panels; the packs load full vectors unmasked (AVX2 has no masked
      16-bit loads) and mask only the edges.

    The two bf16 kernels round C to bf16 themselves when C's only reader
    after the contraction reads it only rounded to bf16 (autocast's cast of
    a matmul's result, possibly through static reshapes): the last K block
    stores the rounded sums into the reader's output, or into a bf16 copy
    that the reader then reads; the same bits as the separate rounding.

    Ragged shapes are padded with zeros (masked vector loads at the edges),
    never sent to a separate slow path. Covered: `linalg.matmul`,
    `linalg.batch_matmul` (a loop of kernel calls over the batch) and every
    `linalg.generic` or named op that upstream's contraction interface
    recognises with one M, N and K dimension and at most one batch
    dimension, in any operand layout: transposed operands are viewed with
    `memref.transpose`, and an input whose innermost dimension is then not
    contiguous is first copied to a row-major buffer, which the report says.

    A contraction with one output element per batch element (M = N = 1: a
    batch of dot products) is left to `--mpt-vectorize-cpu-loops`, which
    runs it as a row reduction: the kernel would pad each element to a full
    register block, one call per element. Everything else is left as it is
    (later lowered to loops). With
    `output=<file>` ('-' for stderr) the pass writes, as text or JSON
    (`format`), per contraction and convolution its location, op,
    shape and element types, and the kernel it got or the reason it got
    none (`report=` and `report-format=` are deprecated aliases; the counts
    per kernel are also pass statistics where MLIR counts them). Running
    AMX code needs a CPU with amx-tile and amx-bf16 and, on Linux, the tile
    state requested with arch_prctl (mpt-run does this;
    `libmpt_amx_runtime.so` does it when loaded).
  }];
  let options = [
    Option<"amx", "amx", "bool", /*default=*/"true",
           "Target has AMX (amx-tile, amx-bf16): bf16 contractions use the "
           "AMX kernel">,
    Option<"avx512", "avx512", "bool", /*default=*/"true",
           "Target has AVX-512F: f32 and f16 contractions (and bf16 ones "
           "without AMX) use the AVX-512 kernel">,
    Option<"avx2", "avx2", "bool", /*default=*/"false",
           "Target has AVX2 and FMA: without avx512, contractions use the "
           "AVX2 kernel (bf16 and f16 widened to f32 in its packs)">,
    Option<"avx512bf16", "avx512-bf16", "bool", /*default=*/"false",
           "Target has AVX512-BF16: bf16 contractions that do not take the "
           "AMX kernel use the vdpbf16ps kernel (x86vector.avx512.dot; lower "
           "with convert-vector-to-llvm enable-x86vector)">,
    ReportFormatOption,
    ReportOutputOption<"\"\"", "Also write which contractions got a kernel "
                       "and why the others did not to this file ('-' for "
                       "stderr)">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Deprecated alias of output">,
    Option<"reportFormat", "report-format", "std::string",
           /*default=*/"\"\"", "Deprecated alias of format">,
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Each kernel call is split into tasks, blocks of C (one per "
           "OpenMP thread), run by an scf.parallel (for "
           "convert-scf-to-openmp); each task packs its own A and B; "
           "results are the serial kernels' bit for bit. A batch runs its "
           "elements in parallel, one serial kernel call each">,
    Option<"parallelMinWork", "parallel-min-work", "int64_t",
           /*default=*/"8388608",
           "With parallel: a contraction of fewer multiply-adds in all "
           "(static shapes; 2^23 by default, ~30 us on AMX) calls the serial "
           "kernel, where a fork and join would cost more than it saves. "
           "The AVX512-BF16 kernel takes a quarter, the AVX-512 kernel "
           "an eighth and the AVX2 kernel a sixteenth of it, about the same "
           "time">,
  ];
  let dependentDialects = [
    "mlir::amx::AMXDialect", "mlir::arith::ArithDialect",
    "mlir::func::FuncDialect", "mlir::linalg::LinalgDialect",
    "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect",
    "mlir::ub::UBDialect", "mlir::vector::VectorDialect",
    "mlir::x86vector::X86VectorDialect"];
}

def FoldExtractsIntoOperands
    : Pass<"mpt-fold-extracts-into-operands", "mlir::func::FuncOp"> {
  let summary = "Read tensors that a linalg.generic's body extracts at its "
                "own loop indices as input operands";
  let description = [{
    On tensors, before bufferization. A `linalg.generic` whose body reads a
    tensor from outside with `tensor.extract` at indices that are its own
    loop indices (`linalg.index`) or 0, each loop at most once, reads that
    tensor as an input operand instead, with the matching indexing map (a
    projected permutation). torch-mlir lowers `torch.flip` this way, and its
    convolution input gradient flips and transposes the filter with it: for
    a 1x1 filter, `out[f, c, 0, 0] = w[c, f, 0, 0]` became a loop of scalar
    loads after bufferization, which no vectorizer takes. As an operand it
    is an ordinary transpose that elementwise fusion and
    `--mpt-vectorize-cpu-loops` handle. Each element is read from the same
    place as before: results are unchanged. Other extracts (a flip's
    `2 - i`, data-dependent indices) are left as they are.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def FoldOperandTransposes : Pass<"mpt-fold-operand-transposes", "mlir::func::FuncOp"> {
  let summary = "Fold transposes of bf16 contraction inputs into the contractions' indexing maps";
  let description = [{
    On tensors, before bufferization. A `linalg.transpose` that swaps the
    two innermost dimensions of an input of a bf16 x bf16 contraction (a
    linear layer's weight in the forward, the output gradient in a weight
    gradient, K in attention) is folded into the contraction: the
    contraction (generalized if it was a named op) reads the transpose's
    input with the last two results of its indexing map swapped, and the
    transpose goes when nothing else reads it. The AMX kernel
    (`--mpt-matmul-to-cpu-kernels`) packs such an input into its tiles from
    the transposed layout directly, so the pass over the tensor disappears;
    `--mpt-lower-to-cpu` runs this pass when `amx` is set. Results are
    unchanged: the same elements are multiplied and summed in the same
    order.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def WidenBoolTensors : Pass<"mpt-widen-bool-tensors", "mlir::func::FuncOp"> {
  let summary = "Keep i1 tensors that linalg ops pass between them as i8";
  let description = [{
    On tensors, before bufferization. An i1 result of a `linalg.generic`
    (a mask: a max pool's argmax in the backward, a one-hot target) whose
    init is a `tensor.empty` and whose readers are all `linalg.generic`
    inputs becomes i8: the producer yields its value through `arith.extui`
    (0 or 1) and each reader narrows its block argument back with
    `arith.trunci`. A buffer holds a byte per i1 element, but LLVM stores a
    `vector<16xi1>` as 16 packed bits, so `--mpt-vectorize-cpu-loops` leaves
    every op with an i1 buffer as scalar loops; as bytes, the mask and the
    ops that compute and read it are vectorized. The same values are
    computed. `--mpt-lower-to-cpu` runs this pass when it vectorizes.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect"];
}

def ConvToIm2Col : Pass<"mpt-conv-to-im2col", "mlir::func::FuncOp"> {
  let summary = "Rewrite 1-d, 2-d and 3-d convolutions into im2col + one matmul";
  let description = [{
    A static `linalg.conv_2d_nchw_fchw` on tensors becomes one
    `linalg.matmul` with the batch folded into its columns:
    `col[(c,kh,kw), (n,oh,ow)]` is gathered tap by tap (an `scf.for` over the
    filter taps; each tap is a strided slice of the input transposed with
    `linalg.transpose`), `out2[f, (n,oh,ow)] = w[f, (c,kh,kw)] * col`, and a
    `linalg.transpose` puts the result back in NCHW. A fill init becomes a
    fill of the matmul's init; any other init is transposed into it. The
    matmul then goes to the AMX or AVX-512 kernel
    (`--mpt-matmul-to-cpu-kernels`) as one call per convolution, where
    upstream's `linalg::rewriteInIm2Col` makes one call per image (the
    filter packed each time) and a scalar im2col loop. A convolution with
    fewer output positions than filter taps and more `(n,oh,ow)` columns than
    filters (a weight gradient's shape) fills col's transpose per output
    position instead (runs of KW elements, not OW) and computes the product
    transposed, `outT[(n,oh,ow), f] = colT * w2^T`: the same sums in the same
    order, bit for bit.
    A static grouped `linalg.conv_2d_ngchw_gfchw` of bf16 inputs with at
    least 8 output channels per group (RegNet, ResNeXt, the importer's
    grouped input gradient) becomes an im2col per group, `col[g, (c,kh,kw),
    (n,oh,ow)]`, and one `linalg.batch_matmul` over the groups: the kernels'
    bf16 dot product where the window code of `--mpt-vectorize-cpu-loops`
    converts to f32. Fewer channels per group (the kernels' register block
    is 14 rows) and other element types (the window code runs FMA as the
    kernel would, without the copies) stay convolutions.
    A static `linalg.conv_1d_ncw_fcw` (Conv1d: audio and sequence models) is
    first made the 2-D convolution of rows of height 1 and then rewritten as
    above. A static `linalg.conv_3d_ncdhw_fcdhw` (3-D U-Nets, video models)
    becomes `col[(c,kd,kh,kw), (n,od,oh,ow)]`, gathered tap by tap by a nest
    of three `scf.for`s, and one `linalg.matmul`; the by-position and
    flipped-filter forms are 2-D only.
    `linalg.conv_2d_nhwc_hwcf` and dynamic shapes keep upstream's rewrite.

    By default only convolutions with bf16 inputs and an f32 accumulator are
    rewritten (what autocast produces, and what the AMX kernel takes); with
    `avx512` also f32 x f32 -> f32 and f16 x f16 -> f32 (the AVX-512
    kernel's types: FMA and its summation order, so f32 results differ from
    the convolution's loops by rounding); `all-types` rewrites every element
    type.
  }];
  let options = [
    Option<"allTypes", "all-types", "bool", /*default=*/"false",
           "Rewrite convolutions of every element type, not only "
           "bf16 x bf16 -> f32">,
    Option<"avx512", "avx512", "bool", /*default=*/"false",
           "Also rewrite f32 x f32 -> f32 and f16 x f16 -> f32 "
           "convolutions (the AVX-512 and AVX2 kernels take them)">,
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Fill the im2col's taps in parallel (an scf.forall) when there "
           "are many small ones (each under 32768 elements: a weight "
           "gradient's, one per output position), which the vectorizer "
           "would leave on one thread each">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect"];
}

def VectorizeCPULoops : Pass<"mpt-vectorize-cpu-loops", "mlir::func::FuncOp"> {
  let summary = "Tile and vectorize the linalg ops that are not contractions (elementwise, reductions, copies, transposes, fills)";
  let description = [{
    Runs on memrefs, after `--mpt-matmul-to-cpu-kernels`. Each linalg op
    with static loop ranges that upstream's vectorizer accepts and that is
    not a contraction or a convolution loses its unit loops (upstream
    `dropUnitDims`, rank-reducing subviews: an op on [N, C, 1, 1] then
    vectorizes along C, not along its last unit dimension), is tiled
    (upstream `tileLinalgOp`) to one vector of `lanes` elements along its
    innermost loop and 1 along every other loop, and vectorized (upstream
    `linalg::vectorize`; a ragged last tile is masked). A named op is
    generalized first.

    Results are those of the scalar loops, bit for bit: every lane computes
    what one scalar iteration did, loops other than the innermost keep their
    order, and a reduction along the innermost loop becomes an ordered
    `vector.reduction` (no reassociation flag: LLVM adds the lanes in
    order, starting from the accumulator). A reduction along the innermost
    loop over rows (the next loop parallel, both ranges multiples of
    `lanes`: LayerNorm and softmax statistics; or an innermost range of 4
    or 8 that divides the rows: sums over small maps) runs that many rows
    at a time instead, one lane per row: each square tile is transposed
    by a shuffle network and its columns are added to the accumulator in
    order,
    the scalar loops' order for every row, without the chain of dependent
    scalar adds of an ordered `vector.reduction`. A per-channel reduction
    over [N, C, H, W] (BatchNorm) is made such a row reduction first: its
    trailing reduction loops that every operand reads contiguously become
    one, or its parallel loops move just inside its other reductions (each
    output keeps the order of its terms). A contraction-shaped op whose
    innermost loop is parallel (a bias or LayerNorm weight gradient:
    reductions over the rows outside), or whose inputs all read every loop
    of its output (BatchNorm's backward sum of dy * x), vectorizes like an
    elementwise op or a reduction; `math.fpowi` by 2 in a body becomes
    `x * x`, what a scalar powi by 2 computes; a batch of dot products
    (`batch_matmul` B x 1 x 1 x K, which the kernels leave here) is such a
    row reduction once its unit loops are dropped. Max pooling
    (`linalg.pooling_nchw_max`, unit dilations), depthwise convolution
    (`linalg.depthwise_conv_2d_nchw_chw` into f32) and grouped convolution
    (`linalg.conv_2d_ngchw_gfchw` into f32; unit dilations) run `lanes`
    outputs along OW at a time, one vector per window tap in the window's
    order (a strided tap: a masked contiguous load and a shuffle), the
    convolutions' taps times their broadcast weight added with a mulf and
    an addf, as the loops do (a grouped convolution's input channels are a
    loop around each channel's window, the loops' order). Math functions on vectors call
    libm per element, unless `approximate-math` replaces exp, erf and tanh
    by upstream's polynomial approximations (not bit-identical to libm).
  }];
  let options = [
    Option<"lanes", "lanes", "int64_t", /*default=*/"16",
           "Vector length along the innermost loop">,
    Option<"approximateMath", "approximate-math", "bool", /*default=*/"false",
           "Compute exp, erf and tanh on the vectors with upstream's "
           "polynomial approximations (math-polynomial-approximation) "
           "instead of one libm call per lane: results differ from libm's "
           "by rounding (test/Execution/vectorize-cpu-math.mlir bounds it)">,
    Option<"stridedLoads", "strided-loads", "bool", /*default=*/"false",
           "Read 16- or 32-bit elements two apart (stride-2 taps and "
           "windows) as one masked load of the contiguous run and a "
           "truncation instead of one load per lane (for CPUs with native "
           "masked loads of those elements: AVX-512BW)">,
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Tile the parallel loops of ops with at least `parallel-min` "
           "iterations as one scf.parallel (for convert-scf-to-openmp; each "
           "element computed as before, so results are unchanged)">,
    Option<"parallelMin", "parallel-min", "int64_t", /*default=*/"32768",
           "The fewest iterations an op needs to run in parallel: below, "
           "a fork and join costs more than the loop">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect"];
}

def OutlineLinalgOps : Pass<"mpt-outline-linalg-ops", "mlir::ModuleOp"> {
  let summary = "Outline each linalg op on buffers into a private function, one per distinct op";
  let description = [{
    Moves every linalg op with buffer semantics into a private function of
    its own and calls it from where the op was; identical ops (the same op,
    shapes, strides, element types, body and constants) share one function.
    Buffer offsets become dynamic in the function's signature (a view's
    offset is where it is, not what it computes), so the repeated
    convolutions of a ResNet stage share one function.
    Constants an op uses are cloned into its function, other values it uses
    become arguments.

    Why: a training step is one function of thousands of loop nests. LLVM
    optimises and allocates registers per function with costs that grow
    faster than linearly in its size, and MLIR's SCF-to-CF conversion splits
    the step's one block once per loop. Outlined, the step is a list of
    calls, each loop nest is compiled once however often it runs, and every
    function stays small. The functions are marked noinline (`passthrough`):
    LLVM would otherwise inline a function called once back into the step.
  }];
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::memref::MemRefDialect"];
}

def SplitEntryBlock : Pass<"mpt-split-entry-block", "mlir::func::FuncOp"> {
  let summary = "Move a function's body out of its entry block, which keeps only a branch";
  let description = [{
    The conversion of a function signature to LLVM (MLIR 22) replaces each
    converted argument's uses that follow the replacement in its block,
    asking `isBeforeInBlock` per use; ops inserted at the block's start
    invalidate the block's op order, so on a step of a thousand arguments
    and tens of thousands of ops the conversion is quadratic (most of
    --mpt-lower-to-cpu on a 256-layer step). With the body in a second
    block the uses are in another block and the question is never asked.
    LLVM merges the two blocks again.
  }];
  let dependentDialects = ["mlir::cf::ControlFlowDialect"];
}

def LowerVectorPrints : Pass<"mpt-lower-vector-prints", "mlir::ModuleOp"> {
  let summary = "Lower vector.print to LLVM calls on the module, before the other vector ops";
  let description = [{
    `--mpt-lower-to-cpu` converts the functions' vector ops to LLVM on the
    functions in parallel (`convert-vector-to-llvm` nested on func.func).
    Lowering a `vector.print` declares its runtime function (`printF32`,
    `printNewline`, ...) or a string global in the module: two functions
    doing that at once raced ("redefinition of symbol named 'printF32'",
    now and then, on a module with prints in several functions). This pass
    lowers every `vector.print` first, on one thread, with upstream's
    patterns (`populateVectorToLLVMConversionPatterns`); the other vector
    ops stay for the parallel conversion (unrealized casts join the two).
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def OutlineChunks : Pass<"mpt-outline-chunks", "mlir::ModuleOp"> {
  let summary = "Cut a long function body into noinline functions of at most max-ops ops each";
  let description = [{
    A public single-block function (the step, after
    `--mpt-outline-linalg-ops`: a list of allocations, views, calls and
    frees; private functions are the pipeline's kernels and outlined ops,
    left whole) of more than `max-ops` ops
    becomes a list of calls of private functions, each holding a contiguous
    run of its ops (at most `max-ops` of them, nested ops counted, unless
    one op alone is larger). A chunk takes the values it uses from before
    it as arguments and returns those that ops after it use; constants are
    cloned into it instead. Ops that allocate on the stack (`memref.alloca`)
    stay where they are, between chunks, so that their buffers live as
    long as before.

    Why: LLVM's instruction selection, scheduling and register allocation
    cost more than linearly in the size of a function with thousands of
    values live across calls; on a deep step the step function alone took
    most of the JIT's time (docs/CompileTime.md). Each chunk is bounded, and
    the functions are marked noinline (`passthrough`) so that LLVM does not
    inline them back, and `mpt-chunk`, by which mpt-run's quick code finds
    them to pass their values through memory. Execution is unchanged: the
    ops run in the same order on the same buffers.
  }];
  let options = [
    Option<"maxOps", "max-ops", "unsigned", /*default=*/"256",
           "Most ops in one chunk (nested ops counted); functions of at "
           "most this many ops are left alone">,
  ];
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::LLVM::LLVMDialect"];
}

def ExpandFp8Casts : Pass<"mpt-expand-fp8-casts", "mlir::func::FuncOp"> {
  let summary = "Rewrite arith.truncf / arith.extf to and from f8E4M3FN, f8E5M2 and f4E2M1FN, and the MX scaling casts, as integer arithmetic";
  let description = [{
    LLVM has no FP8 types and MLIR 22's arith-to-llvm does not convert the
    casts (upstream's `arith-expand` covers bf16, f8E8M0FNU and f4E2M1FN).
    This pass expands, on scalars and vectors, a truncation to an FP8 type
    into i32 bit manipulation with the rounding of PyTorch's
    `float8_e4m3fn` / `float8_e5m2` conversions (round to nearest even,
    subnormals included; past the largest finite value: +-448 in E4M3FN,
    which has no infinity, and infinity in E5M2), and an extension from
    one into exact integer arithmetic. FP8 memory itself lowers as i8.
    The same expansion covers f4E2M1FN (MXFP4 elements: round to nearest
    even, saturating to +-6, NaN to +-6), and, for MX (docs/MX.md),
    `arith.extf` from f8E8M0FNU (2^(code - 127), code 0 the f32 subnormal
    2^-127 where upstream's `arith-expand` gives 0; 0xFF NaN),
    `arith.scaling_truncf` (truncf(in / scale) in f32) and
    `arith.scaling_extf` (extf(in) * scale in f32, then truncf).
    `--mpt-lower-to-cpu` runs it after the loops are formed
    (docs/FP8.md).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def WidenFp8Operands : Pass<"mpt-widen-fp8-operands", "mlir::func::FuncOp"> {
  let summary = "Extend the FP8 operands of contractions and convolutions to bf16 (exact)";
  let description = [{
    The CPU has no FP8 arithmetic. A linalg op with reduction loops whose
    body only extends an FP8 (f8E4M3FN, f8E5M2) input to f32 gets that
    input extended to bf16 first, once per element: every FP8 value is a
    bf16 value, so products and sums are unchanged, and the contraction is a
    bf16 one that the CPU kernels run (`--mpt-matmul-to-cpu-kernels`,
    `--mpt-conv-to-im2col`) instead of extending each element M*N*K times
    in scalar loops. `--mpt-lower-to-cpu` runs it before bufferization.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def ExpandBF16Casts : Pass<"mpt-expand-bf16-casts", "mlir::func::FuncOp"> {
  let summary = "Expand bf16 extf/truncf (and bf16 arithmetic) into integer ops, and nothing else";
  let description = [{
    The generic CPU path's bf16 casts: LLVM lowers `fptrunc` to bf16 only
    with AVX512-BF16, so `arith.truncf` / `arith.extf` of bf16 become
    integer shifts and rounding (round to nearest even, NaNs kept), by
    upstream's `populateExpandBFloat16Patterns`. Unlike `--arith-expand`
    (`include-bf16`), this leaves `arith.maximumf` / `minimumf` to
    arith-to-llvm (`llvm.maximum` / `llvm.minimum`): arith-expand's compare
    and select returns -0 for max(-0, +0), so the generic path disagreed with
    the vectorized paths on signed zeros (an FP8 amax of -0 once).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def EstimateWork : Pass<"mpt-estimate-work", "mlir::ModuleOp"> {
  let summary = "Annotate each function with an estimate of the work it does in one run of the module's entry functions";
  let description = [{
    Adds `["mpt-work", "N"]` to each function's `passthrough` (which
    `convert-func-to-llvm` turns into an LLVM function attribute), where N
    estimates the ops the function executes, over all its calls, in one call
    of the functions nothing calls (the step): each op counts once per
    iteration of the `scf.for` / `scf.parallel` loops around it (loops of
    constant bounds; others count one iteration), a vector op as one op; a
    function's own count is multiplied by how often its callers call it.

    Why: mpt-run's quick code (`--tiered-compile`) compiles most of a large
    step as at -O0 and optimises only the functions that do most of its
    work (the loops of an outlined convolution, a large copy in a chunk);
    this estimate is how it finds them without profiling. Run after the
    loops exist (linalg to loops, vectorization, `--mpt-outline-chunks`)
    and before SCF-to-CF. Linear in the module: one walk per function and
    one visit per call edge.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def ReportFailedAsserts : Pass<"mpt-report-failed-asserts", "mlir::ModuleOp"> {
  let summary = "Turn each cf.assert into a call of a host function that reports its message and location when the condition is false";
  let description = [{
    Upstream's `convert-cf-to-llvm` lowers a failed `cf.assert` to a `puts`
    of its message and `abort()`: under a JIT host that installs LLVM's
    signal handlers (mpt-run), the abort is a crash report with a stack
    dump. Frontends put such checks in every gather (torch-mlir's
    "index must be smaller than dim size" before an embedding lookup), so a
    bad token id in the data ends a run that way. This pass replaces each
    `cf.assert %ok, "message"` by

    ```mlir
    scf.if %failed {
      %m = memref.get_global @__mpt_assert_message_0 : memref<Nxi8>
      func.call @HANDLER(%m') : (memref<?xi8>) -> ()
    }
    ```

    where the message (a private constant global, NUL-terminated) is the
    assert's message followed by its location, ` (file:line:col)`. The
    handler is declared (private, `memref<?xi8> -> ()`) and defined by the
    host; it must not return (the step's next op is the one the check
    guarded). mpt-run's handler prints `mpt-run: error: step N: check failed
    in the compiled step: MESSAGE (LOCATION)` and ends the run with exit
    code 1. With `--mpt-lower-to-cpu="assert-handler=NAME"` this runs before
    the structured control flow is lowered; by default asserts keep
    upstream's behaviour.
  }];
  let options = [
    Option<"handler", "handler", "std::string", /*default=*/"\"\"",
           "The host function called with the failed check's message "
           "(required)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def InlineAllocaScopes : Pass<"mpt-inline-alloca-scopes", "mlir::func::FuncOp"> {
  let summary = "Inline the memref.alloca_scope ops that hold no alloca (what convert-scf-to-openmp wraps each parallel loop body in)";
  let description = [{
    `--convert-scf-to-openmp` puts every parallel loop's body into a
    `memref.alloca_scope`, whose region may have one block only; the
    `scf.for` and `scf.if` inside then make `--convert-scf-to-cf` produce an
    invalid scope (a known upstream problem, also met by onnx-mlir). A
    scope with no `memref.alloca` inside frees nothing: this pass replaces
    it by its body. Scopes that do hold allocas are left as they are.
  }];
}

def SplitDeallocs : Pass<"mpt-split-deallocs", "mlir::func::FuncOp"> {
  let summary = "Give each buffer that provably aliases no other its own bufferization.dealloc, in linear time";
  let description = [{
    Runs between `ownership-based-buffer-deallocation` and upstream's
    `buffer-deallocation-simplification`. The deallocation pass frees all of
    a block's buffers in one `bufferization.dealloc` at its end (thousands
    of memrefs in a deep step, retaining every returned buffer). Upstream's
    simplification splits off a memref that does not alias any other by
    asking the buffer origin analysis about every pair: quadratic in the
    step, most of --mpt-lower-to-cpu on a 256-layer step.

    This pass makes the same decision as upstream's `isSameAllocation`
    (buffer origins through views and the buffer view flow analysis) for
    all memrefs of a dealloc at once: it computes each operand's terminal
    buffers once and counts how many operands reach each terminal. A memref
    that originates only from allocations, shares no terminal with another
    memref or with a retained value, while every other operand originates
    only from allocations or function arguments, is freed by its own
    `bufferization.dealloc (%m) if (%cond)` without a retained list (its
    results would all be false). The rest stay in the original dealloc,
    whose results are unchanged, for upstream's simplification.
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect"];
}

def FreeAfterLastUse : Pass<"mpt-free-after-last-use", "mlir::func::FuncOp"> {
  let summary = "Move each buffer's dealloc after its last use, in linear time";
  let description = [{
    Does what upstream's `optimize-allocation-liveness` does: for an
    allocation with a single freeing op in its own block, the free moves
    right after the last op of the block that uses the buffer or a value
    the buffer view flow analysis says may alias it (a view, a call
    result). Upstream compares op positions with `isBeforeInBlock` after
    each move, and a move invalidates the block's numbering, so it
    renumbers the whole block once per buffer (quadratic in the step).
    This pass numbers each block once and keeps its own positions. An
    allocation with an aliasing use outside its block keeps its free where
    it is.
  }];
}

#endif // MPT_CONVERSION_CPUPASSES_TD
