//===- TensorCoreTransformOps.td - mpt's transform ops -----*- tablegen -*-===//
//
// The steps of the sm_80 Tensor Core lowering that upstream has no transform
// op for, as transform ops (a TransformDialectExtension, as IREE's
// Common/TransformExtensions), so that the schedule in
// lib/Conversion/TensorCore/sm80-mma-sync.mlir runs end to end and hands
// them the ops they work on instead of leaving markers for C++ to find.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_CONVERSION_TENSORCORETRANSFORMOPS
#define MPT_CONVERSION_TENSORCORETRANSFORMOPS

include "mlir/Dialect/Transform/IR/TransformDialect.td"
include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.td"
include "mlir/Dialect/Transform/IR/TransformTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpBase.td"

class MPT_TransformOp<string mnemonic, list<Trait> traits = []>
    : Op<Transform_Dialect, "mpt." # mnemonic, traits> {
  let cppNamespace = "::mpt::transform";
}

def RankReduceBatchTileOp : MPT_TransformOp<"rank_reduce_batch_tile",
    [FunctionalStyleTransformOpTrait, MemoryEffectsOpInterface,
     TransformOpInterface, TransformEachOpTrait]> {
  let summary = "Turns a 1 x M x N batch_matmul tile into a linalg.matmul";
  let description = [{
    Each `linalg.batch_matmul` of `target` whose batch extent is 1 (a thread
    block's tile after the batch went to `blockIdx.z`) becomes a
    `linalg.matmul` on rank-reduced views of its operands. (Upstream's
    `populateContractionOpRankReducingPatterns` crashed on these memref ops
    with MLIR 22.1.8.) Consumes `target`; `result` holds the matmuls.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat = "$target attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def HoistSharedTilesOp : MPT_TransformOp<"hoist_shared_tiles",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Typed shared-memory tiles, allocated before the K loop";
  let description = [{
    Promotion allocates i8 workgroup buffers viewed as typed tiles inside
    the K loop; multi-buffering needs typed allocations before the loop.
    The two shared tiles (A and B) of the `gpu.launch` in `launch` become
    typed `memref.alloc`s before the loop in `k_loop`, or in place of the
    views when `k_loop` is empty (K is one k-tile). Reads both handles.
  }];
  let arguments = (ins TransformHandleTypeInterface:$launch,
                       TransformHandleTypeInterface:$k_loop);
  let assemblyFormat = [{
    $launch `,` $k_loop attr-dict `:` type($launch) `,` type($k_loop)
  }];
}

def MergeCopyGroupsOp : MPT_TransformOp<"merge_copy_groups",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
     TransformEachOpTrait, TransformOpInterface]> {
  let summary = "One cp.async group per k-tile";
  let description = [{
    The A and B copies of a k-tile come out of
    `transform.nvgpu.create_async_groups` as two cp.async groups, each
    waited for and followed by a block barrier. One group per k-tile is what
    the pipeliner counts with (its waits allow `stages - 1` groups in
    flight): in the body of each loop of `target`, the two are merged and
    the wait and barrier between them dropped (the two copies write
    different tiles and only read global memory). Reads `target`.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target);
  let assemblyFormat = "$target attr-dict `:` type($target)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def ConvertToMmaSyncOp : MPT_TransformOp<"convert_to_mma_sync",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "vector.contract / transfer_read to mma.sync / ldmatrix";
  let description = [{
    In the function `target`: upstream's preparation patterns and
    `convertVectorToNVVMCompatibleMMASync` turn the warp tile's
    `vector.contract`s into `nvgpu.mma.sync` and their operand reads into
    `nvgpu.ldmatrix`; canonicalization and CSE then erase what the
    conversion left dead and merge the ldmatrix loads shared by several
    mma.sync. With `bf16`, the mma.sync (built on f16-typed bf16 data) become
    `nvvm.mma.sync` bf16. The workgroup memory space is then spelled as the
    integer 3, as the shared-memory pipeliner reads it. `k_loop` holds the
    K loop as rebuilt by the conversion (the outermost loop of the launch
    that issues cp.async copies), or nothing when K is one k-tile.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       DefaultValuedAttr<BoolAttr, "false">:$bf16);
  let results = (outs TransformHandleTypeInterface:$k_loop);
  let assemblyFormat = "$target attr-dict `:` functional-type(operands, results)";
}

def SwizzleSharedTilesOp : MPT_TransformOp<"swizzle_shared_tiles",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "XOR-swizzles the shared tiles against bank conflicts";
  let description = [{
    Each shared-memory `memref.alloc` of the function `target` gets its
    columns XOR-swizzled (`nvgpu::optimizeSharedMemoryReadsAndWrites`), so
    that the cp.async writes and ldmatrix reads of a warp hit distinct
    banks. A tile that cannot be swizzled is a remark, not a failure.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target);
  let assemblyFormat = "$target attr-dict `:` type($target)";
}

#endif // MPT_CONVERSION_TENSORCORETRANSFORMOPS
