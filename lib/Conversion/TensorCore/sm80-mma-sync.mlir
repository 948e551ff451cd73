// The sm_80 (mma.sync) schedule: mpt-matmul-to-tensorcore applies
// @sm80_matmul or @sm80_batch_matmul to the module, in which the function
// holding one outlined matmul is marked mpt.tensorcore_entry; the sequence
// runs end to end, from the matmul to the software-pipelined kernel
// (docs/TensorCore.md). Only the last step, the shared tiles made aligned
// globals, is C++ (lowerWithMmaSync). transform.mpt.* are mpt's own ops
// (include/mpt/Conversion/TensorCoreTransformOps.td).
// Parameters are `$` and a name in braces: TensorCoreSchedules.cpp
// substitutes the kernel configuration (TensorCoreConfig.h) before parsing;
// an unknown or unused parameter is an error.
// test/Conversion/tensorcore-schedules.mlir parses and verifies every
// instantiation.
module attributes {transform.with_named_sequence} {

// matmul: one ${BM}x${BN} C tile per thread block.
transform.named_sequence @sm80_matmul(%root: !transform.any_op {transform.readonly}) {
  %func = transform.structured.match ops{["func.func"]} attributes{mpt.tensorcore_entry} in %root : (!transform.any_op) -> !transform.any_op
  %mm = transform.structured.match ops{["linalg.matmul"]} in %func : (!transform.any_op) -> !transform.any_op
  %blk_mm, %blk = transform.structured.tile_using_forall %mm tile_sizes [${BM}, ${BN}] (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
  transform.include @sm80_kernel failures(propagate) (%root) : (!transform.any_op) -> ()
  transform.yield
}

// batch_matmul: the batch to blockIdx.z, one 1 x ${BM} x ${BN} tile per block,
// which becomes a matmul on rank-reduced views.
transform.named_sequence @sm80_batch_matmul(%root: !transform.any_op {transform.readonly}) {
  %func = transform.structured.match ops{["func.func"]} attributes{mpt.tensorcore_entry} in %root : (!transform.any_op) -> !transform.any_op
  %mm = transform.structured.match ops{["linalg.batch_matmul"]} in %func : (!transform.any_op) -> !transform.any_op
  %blk_mm, %blk = transform.structured.tile_using_forall %mm tile_sizes [1, ${BM}, ${BN}] (mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
  %tile = transform.mpt.rank_reduce_batch_tile %blk_mm : (!transform.any_op) -> !transform.any_op
  transform.include @sm80_kernel failures(propagate) (%root) : (!transform.any_op) -> ()
  transform.yield
}

// The block's matmul: K in steps of ${BK}, A and B tiles promoted to workgroup
// memory and copied by the block's ${THREADS} threads in 16-byte rows, warps of
// ${WM}x${WN}, one m16n8k16 mma per innermost tile; then vectorized, the warp
// tile unrolled, the accumulators kept in registers across the K loop, and
// the copies made cp.async groups; then the shared tiles hoisted out of
// the K loop, ldmatrix and mma.sync, the tiles swizzled, and the copies
// software-pipelined (@${PIPELINE}).
transform.named_sequence @sm80_kernel(%root: !transform.any_op {transform.readonly}) {
  %func = transform.structured.match ops{["func.func"]} attributes{mpt.tensorcore_entry} in %root : (!transform.any_op) -> !transform.any_op
  %blk_mm = transform.structured.match ops{["linalg.matmul"]} in %func : (!transform.any_op) -> !transform.any_op
  // K stages (annotated: vectorization invalidates the handle).
  %k_mm, %k_loop = transform.structured.tile_using_for %blk_mm tile_sizes [0, 0, ${BK}] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
  transform.annotate %k_loop "mpt.k_loop" : !transform.any_op
  // Shared memory tiles of A and B.
  %prom = transform.structured.promote %k_mm { operands_to_promote = [0, 1], memory_space = #gpu.address_space<workgroup> } : (!transform.any_op) -> !transform.any_op
  %copies = transform.structured.match ops{["linalg.copy"]} in %func : (!transform.any_op) -> !transform.any_op
  %copy_a, %copy_b = transform.split_handle %copies : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
  // Each thread copies 16 bytes (8 elements) of each row it owns.
  %copy_a_t, %copy_a_f = transform.structured.tile_using_forall %copy_a num_threads [${A_THREAD_ROWS}, ${A_THREAD_COLS}] (mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
  %copy_a_r, %copy_a_l = transform.structured.tile_using_for %copy_a_t tile_sizes [1, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
  transform.annotate %copy_a_l "mpt.unroll_copy_a" : !transform.any_op
  %copy_b_t, %copy_b_f = transform.structured.tile_using_forall %copy_b num_threads [${B_THREAD_ROWS}, ${B_THREAD_COLS}] (mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
  %copy_b_r, %copy_b_l = transform.structured.tile_using_for %copy_b_t tile_sizes [1, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
  transform.annotate %copy_b_l "mpt.unroll_copy_b" : !transform.any_op
  // Warps, then one m16n8k16 mma per innermost tile.
  %w_mm, %w_f = transform.structured.tile_using_forall %prom tile_sizes [${WM}, ${WN}] (mapping = [#gpu.warp<linear_dim_1>, #gpu.warp<linear_dim_0>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
  %i_mm, %l_m, %l_n, %l_k = transform.structured.tile_using_for %w_mm tile_sizes [16, 8, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
  transform.annotate %l_m "mpt.unroll_m" : !transform.any_op
  transform.annotate %l_n "mpt.unroll_n" : !transform.any_op
  transform.annotate %l_k "mpt.unroll_k" : !transform.any_op
  %launch = transform.gpu.map_forall_to_blocks %func generate_gpu_launch : (!transform.any_op) -> !transform.any_op
  %mapped = transform.gpu.map_nested_forall_to_threads %launch block_dims = [${THREADS}, 1, 1] : (!transform.any_op) -> !transform.any_op
  %func1 = transform.structured.match ops{["func.func"]} attributes{mpt.tensorcore_entry} in %root : (!transform.any_op) -> !transform.any_op
  %vf = transform.structured.vectorize_children_and_apply_patterns %func1 : (!transform.any_op) -> !transform.any_op
  // fold_arith_extension folds the extf of the inputs into a
  // mixed-precision vector.contract, which is what maps to mma.sync.
  transform.apply_patterns to %vf {
    transform.apply_patterns.vector.fold_arith_extension
    transform.apply_patterns.memref.fold_memref_alias_ops
    transform.apply_patterns.vector.cast_away_vector_leading_one_dim
    transform.apply_patterns.canonicalization
  } : !transform.any_op
  transform.apply_cse to %vf : !transform.any_op
  // loop.unroll needs the exact trip count (a larger factor leaves the loop);
  // innermost first so that the re-matched clones are all unrolled.
  %u_copy_a = transform.structured.match attributes{"mpt.unroll_copy_a"} in %vf : (!transform.any_op) -> !transform.op<"scf.for">
  transform.loop.unroll %u_copy_a {factor = ${A_ROWS_PER_THREAD}} : !transform.op<"scf.for">
  %u_copy_b = transform.structured.match attributes{"mpt.unroll_copy_b"} in %vf : (!transform.any_op) -> !transform.op<"scf.for">
  transform.loop.unroll %u_copy_b {factor = ${B_ROWS_PER_THREAD}} : !transform.op<"scf.for">
  %u_k = transform.structured.match attributes{"mpt.unroll_k"} in %vf : (!transform.any_op) -> !transform.op<"scf.for">
  transform.loop.unroll %u_k {factor = ${K_STEPS}} : !transform.op<"scf.for">
  %u_n = transform.structured.match attributes{"mpt.unroll_n"} in %vf : (!transform.any_op) -> !transform.op<"scf.for">
  transform.loop.unroll %u_n {factor = ${N_STEPS}} : !transform.op<"scf.for">
  %u_m = transform.structured.match attributes{"mpt.unroll_m"} in %vf : (!transform.any_op) -> !transform.op<"scf.for">
  transform.loop.unroll %u_m {factor = ${M_STEPS}} : !transform.op<"scf.for">
  transform.apply_patterns to %vf {
    transform.apply_patterns.canonicalization
  } : !transform.any_op
  transform.apply_cse to %vf : !transform.any_op
  // Forward the accumulator stores to the next k16 step's loads, then hoist
  // the remaining read/write pairs out of the K loop: the accumulators live
  // in registers for the whole K loop.
  transform.memref.erase_dead_alloc_and_stores %vf : (!transform.any_op) -> ()
  %vf2 = transform.structured.hoist_redundant_vector_transfers %vf : (!transform.any_op) -> !transform.any_op
  %vf3 = transform.nvgpu.create_async_groups %vf2 {bypass_l1} : (!transform.any_op) -> !transform.any_op
  // The shared tiles as typed allocations before the K loop (none when K
  // is one k-tile), one cp.async group per k-tile.
  %launch2 = transform.structured.match ops{["gpu.launch"]} in %vf3 : (!transform.any_op) -> !transform.any_op
  %k_loop2 = transform.structured.match attributes{mpt.k_loop} in %vf3 : (!transform.any_op) -> !transform.any_op
  transform.mpt.hoist_shared_tiles %launch2, %k_loop2 : !transform.any_op, !transform.any_op
  transform.mpt.merge_copy_groups %k_loop2 : !transform.any_op
  // ldmatrix (x4 for A, x2.trans for B) and mma.sync (bf16: nvvm.mma.sync);
  // the K loop as the conversion rebuilt it.
  %k_loop3 = transform.mpt.convert_to_mma_sync %vf3 {bf16 = ${BF16}} : (!transform.any_op) -> !transform.op<"scf.for">
  transform.mpt.swizzle_shared_tiles %vf3 : !transform.any_op
  transform.include @${PIPELINE} failures(propagate) (%vf3, %k_loop3) : (!transform.any_op, !transform.op<"scf.for">) -> ()
  transform.yield
}

// ${STAGES} copies of each shared tile, and the cp.async copies of k-tiles
// i+1 .. i+${STAGES}-1 in flight while k-tile i is multiplied.
transform.named_sequence @sm80_pipeline(%func: !transform.any_op {transform.readonly}, %k: !transform.op<"scf.for"> {transform.consumed}) {
  %allocs = transform.structured.match ops{["memref.alloc"]} in %func : (!transform.any_op) -> !transform.op<"memref.alloc">
  %mb = transform.memref.multibuffer %allocs {factor = ${STAGES} : i64, skip_analysis} : (!transform.op<"memref.alloc">) -> !transform.any_op
  %p = transform.nvgpu.pipeline_shared_memory_copies failures(propagate) %k {depth = ${STAGES} : i64} : (!transform.op<"scf.for">) -> !transform.any_op
  transform.yield
}

// One stage (stages=1, or K is one k-tile): nothing to pipeline.
transform.named_sequence @sm80_no_pipeline(%func: !transform.any_op {transform.readonly}, %k: !transform.op<"scf.for"> {transform.readonly}) {
  transform.yield
}

}
