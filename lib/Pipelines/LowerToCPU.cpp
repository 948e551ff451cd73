//===- LowerToCPU.cpp - the --mpt-lower-to-cpu pipeline -------------------===//
//
// The pass list is the one established in
// shared/reference/cpu-execution-mlir22.md for MLIR 22, plus buffer
// deallocation (a step runs many times in one process).
//
//===----------------------------------------------------------------------===//
#include "mpt/Pipelines/LowerToCPU.h"
#include "mpt/Conversion/CPUPasses.h"
#include "mpt/Conversion/Passes.h"
#include "mpt/Pipelines/Registration.h"
#include "mpt/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/Transforms/RequestCWrappers.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mpt::buildLowerToCPUTensorPipeline(OpPassManager &pm,
                                        const LowerToCPUOptions &options) {
  // A data-parallel step's all-reduces (a module pass: it also records the
  // MPI implementation in the module's DLTI).
  pm.addPass(createLowerAllReduce());
  // The loss-scaling ops first, then the markers: afterwards the step is
  // upstream MLIR only.
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  funcPm.addPass(createLowerLossScaling());
  funcPm.addPass(createStripTrainingMarkers());
  // TOSA ops (the contract allows a step in TOSA) become linalg, arith and
  // tensor ops, as in upstream's tosa-to-linalg pipeline (without its
  // validation and canonicalizations); a step without TOSA is untouched.
  funcPm.addPass(tosa::createTosaToLinalgNamed());
  funcPm.addPass(tosa::createTosaToLinalg());
  funcPm.addPass(createTosaToArithPass());
  funcPm.addPass(createTosaToTensorPass());
  // Elementwise arith/math on tensors (arith.truncf of a whole tensor, as
  // hand-written or autocast steps produce) becomes linalg.generic.
  funcPm.addPass(createConvertElementwiseToLinalgPass());
  // A weight gradient summed over many uses (an RNN's time steps) as one
  // matmul; its concatenations are decomposed next.
  if (options.mergeAccumulatedMatmuls)
    funcPm.addPass(mpt::createMergeAccumulatedMatmuls());
  // linalg.softmax, tensor.concat, ...: convert-linalg-to-loops has no
  // lowering for aggregates.
  funcPm.addPass(createDecomposeAggregateOps());
  // torch-mlir's flips read their source by tensor.extract at the loop
  // indices (a 1x1 filter's flip and transpose in a convolution's input
  // gradient): as an operand, a transpose that fusion and the vectorizer
  // take, not a loop of scalar loads.
  funcPm.addPass(mpt::createFoldExtractsIntoOperands());
  // A chain of elementwise ops (a decomposed GELU's backward, autocast's
  // casts into their users) becomes one loop nest: its intermediates are
  // never allocated, and the step reads and writes memory once. Each scalar
  // op still rounds as before, unless excess-precision.
  if (options.fuseElementwise) {
    mpt::FuseElementwiseOptions fusion;
    // What fusion puts in one body no longer needs autocast's roundings
    // between its ops (stored results keep theirs).
    fusion.excessPrecision = options.excessPrecision;
    funcPm.addPass(mpt::createFuseElementwise(fusion));
  }
  // After fusion, which gives a fused op a fresh init when its body ignores
  // the old one.
  if (options.updateInPlace)
    funcPm.addPass(mpt::createUpdateInPlace());
  // After fusion, which would fuse the widening back into a generic
  // contraction; before the kernels and im2col, which take bf16.
  funcPm.addPass(mpt::createWidenFp8Operands());
  // Nothing below reads the contract; LLVM IR translation would warn about
  // every mpt.* attribute on the lowered function.
  funcPm.addPass(createStripContractAttributes());
}

void mpt::buildLowerToCPUPipeline(OpPassManager &pm,
                                  const LowerToCPUOptions &options) {
  buildLowerToCPUTensorPipeline(pm, options);
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  // Masks passed between ops as bytes, so that the ops around them are
  // vectorized.
  if (options.vectorize)
    funcPm.addPass(mpt::createWidenBoolTensors());
  // Convolutions of the kernels' types become im2col + a contraction.
  if (options.amx || options.avx512 || options.avx2) {
    mpt::ConvToIm2ColOptions im2col;
    // f32 and f16 convolutions too: the AVX-512 and AVX2 kernels take them.
    im2col.avx512 = options.avx512 || options.avx2;
    im2col.parallel = options.parallel;
    funcPm.addPass(mpt::createConvToIm2Col(im2col));
  }
  // The AMX kernel packs a transposed bf16 input from its transpose.
  if (options.amx)
    funcPm.addPass(mpt::createFoldOperandTransposes());
  if (options.emitCInterface)
    funcPm.addPass(LLVM::createLLVMRequestCWrappersPass());

  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.allowReturnAllocsFromLoops = true;
  // Plain contiguous memrefs at the boundary: the caller passes and receives
  // descriptors with identity strides.
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  if (options.deallocate) {
    // Upstream's buffer-deallocation-pipeline (MLIR 22), plus
    // mpt-split-deallocs, which does the quadratic part of the
    // simplification in linear time (docs/CompileTime.md).
    pm.addPass(memref::createExpandReallocPass({/*emitDeallocs=*/false}));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(bufferization::createOwnershipBasedBufferDeallocationPass());
    pm.addPass(createCanonicalizerPass());
    pm.addNestedPass<func::FuncOp>(mpt::createSplitDeallocs());
    pm.addPass(bufferization::createBufferDeallocationSimplificationPass());
    pm.addPass(bufferization::createLowerDeallocationsPass());
    pm.addPass(createCSEPass());
    pm.addPass(createCanonicalizerPass());
    if (options.updateInPlace)
      pm.addNestedPass<func::FuncOp>(mpt::createReturnArgumentBuffers());
  }
  pm.addPass(createConvertBufferizationToMemRefPass());
  // The im2col's parallel taps (scf.forall on memrefs): an scf.parallel for
  // convert-scf-to-openmp, or one loop on one thread.
  if (options.parallel)
    pm.addNestedPass<func::FuncOp>(createForallToParallelLoopPass());
  else
    pm.addNestedPass<func::FuncOp>(createForallToForLoopPass());
  // The deallocation pipeline frees a block's temporaries at the end of the
  // block, so every activation of a step stays live until the step returns;
  // free each one right after its last use instead (what lets a 16-bit step's
  // peak fall below the FP32 step's).
  if (options.deallocate)
    pm.addNestedPass<func::FuncOp>(mpt::createFreeAfterLastUse());
  // The mpi ops of a data-parallel step become calls into the MPI library
  // now, after the frees are placed (a buffer's use is then a cast feeding
  // the call) and before the step is cut into functions: !mpi.comm values
  // never cross a function boundary, which no later conversion could type.
  ConvertToLLVMPassOptions mpiToLLVM;
  mpiToLLVM.filterDialects = {"mpi"};
  pm.addPass(createConvertToLLVMPass(mpiToLLVM));
  if (options.amx || options.avx512 || options.avx2 ||
      !options.kernelReport.empty()) {
    mpt::MatmulToCPUKernelsOptions kernels;
    kernels.amx = options.amx;
    kernels.avx512 = options.avx512;
    kernels.avx2 = options.avx2;
    kernels.avx512bf16 = options.avx512bf16;
    kernels.output = options.kernelReport;
    // A string option of the pipeline: the pass validates it.
    kernels.reportFormat = options.kernelReportFormat;
    kernels.parallel = options.parallel;
    kernels.parallelMinWork = options.parallelMinWork;
    pm.addPass(mpt::createMatmulToCPUKernels(kernels));
  }

  // After the kernels, which take contractions out of linalg, and before
  // loops: the step becomes a list of calls (docs/CompileTime.md).
  if (options.outline)
    pm.addPass(mpt::createOutlineLinalgOps());
  if (options.vectorize) {
    mpt::VectorizeCPULoopsOptions vectorize;
    vectorize.approximateMath = options.approximateMath;
    // AVX2's vectors hold 8 f32: wider ones are split by LLVM's type
    // legalization, which FastISel (the quick code, -O0) leaves to
    // SelectionDAG.
    vectorize.lanes = options.vectorLanes > 0 ? options.vectorLanes
                      : options.avx2 && !options.avx512 && !options.amx
                          ? 8
                          : 16;
    vectorize.stridedLoads = options.avx512;
    vectorize.parallel = options.parallel;
    pm.addNestedPass<func::FuncOp>(mpt::createVectorizeCPULoops(vectorize));
  }
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // FP8 casts (an FP8 step's quantization, its contractions' operands)
  // have no LLVM lowering; before the bf16 expansion, which the casts of
  // FP8 to bf16 produce.
  pm.addNestedPass<func::FuncOp>(mpt::createExpandFp8Casts());
  // On scalars only, after linalg is gone: the expanded bf16 casts are
  // integer ops that a named op's body (a bf16 x bf16 -> f32 matmul) must
  // not contain.
  if (options.expandBF16)
    pm.addNestedPass<func::FuncOp>(mpt::createExpandBF16Casts());
  // The parallel loops (kernels' row blocks, large vectorized ops) become
  // omp.parallel + omp.wsloop: one fork and join each, static schedule.
  if (options.parallel) {
    pm.addPass(createConvertSCFToOpenMPPass());
    pm.addNestedPass<func::FuncOp>(mpt::createInlineAllocaScopes());
  }
  // Last before the CFG, while the step's loops are still single ops.
  if (options.chunkOps) {
    mpt::OutlineChunksOptions chunks;
    chunks.maxOps = options.chunkOps;
    pm.addPass(mpt::createOutlineChunks(chunks));
  }
  if (!options.assertHandler.empty()) {
    mpt::ReportFailedAssertsOptions asserts;
    asserts.handler = options.assertHandler;
    pm.addPass(mpt::createReportFailedAsserts(asserts));
  }
  // For mpt-run's quick code, while the loops are still loops.
  pm.addPass(mpt::createEstimateWork());
  // Function-local lowerings, nested on func.func so that MLIR runs them on
  // the step's functions (chunks, outlined ops) in parallel.
  OpPassManager &localPm = pm.nest<func::FuncOp>();
  localPm.addPass(createSCFToControlFlowPass());
  localPm.addPass(memref::createExpandStridedMetadataPass());
  localPm.addPass(createLowerAffinePass());
  // Keeps the signature conversion below linear in the step's size.
  localPm.addPass(mpt::createSplitEntryBlock());
  localPm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  // The function bodies' vector, arith and index ops, on the functions in
  // parallel too (on the module they were a third of MobileNetV3-small's
  // conversion to LLVM, on one thread); vector.print first, on the module
  // (it declares runtime functions there).
  pm.addPass(mpt::createLowerVectorPrints());
  OpPassManager &bodiesPm = pm.nest<func::FuncOp>();
  // x86vector: the AVX512-BF16 kernel's vdpbf16ps.
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  vectorToLLVM.x86Vector = options.avx512bf16;
  bodiesPm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  bodiesPm.addPass(createArithToLLVMConversionPass());
  bodiesPm.addPass(createConvertIndexToLLVMPass());
  // (OpenMP's reduction declarations, outside the functions, are converted
  // with the omp ops: test/Execution/parallel-reduction.mlir.)
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = options.useGenericFunctions;
  if (options.amx || options.avx512) {
    // The AMX kernel carries !amx.tile values through its K loop (block
    // arguments after scf-to-cf): only convert-to-llvm, which gathers the
    // dialects' type conversions, converts those branches. Limited to the
    // dialects the generic path converts (plus amx), so that both paths
    // accept the same steps. memref goes first, on its own, so that its
    // options (generic allocation functions) apply.
    pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
    ConvertToLLVMPassOptions toLLVM;
    toLLVM.filterDialects = {"amx",    "arith", "cf", "func",
                             "index", "memref", "ub", "vector"};
    if (options.parallel)
      toLLVM.filterDialects.push_back("omp");
    pm.addPass(createConvertToLLVMPass(toLLVM));
  } else {
    pm.addPass(createConvertControlFlowToLLVMPass());
    pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
    pm.addPass(createConvertFuncToLLVMPass());
    if (options.parallel)
      pm.addPass(createConvertOpenMPToLLVMPass());
    // The vectorizer's padding values (ub.poison), also in a step that was
    // vectorized before it came here.
    pm.addPass(createUBToLLVMConversionPass());
  }
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mpt::registerLowerToCPUPipeline() {
  registerModulePipeline<LowerToCPUOptions>(
      "mpt-lower-to-cpu",
      "Lower a training step (tensors, linalg, mpt markers) to the LLVM "
      "dialect for the host CPU: strip the markers, bufferize, lower to LLVM",
      buildLowerToCPUPipeline);
}
