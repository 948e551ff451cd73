// The general path on the GPU (a matmul that cannot use Tensor Cores):
// 32x32 output tiles per block, 32x8 threads, each thread computing its
// (at most 1x4, possibly empty) part of the tile with scalar loops in the
// matmul's own arithmetic. Partial tiles at the edges are bounded by
// affine.min, so any static shape is correct. Applied by
// mpt-matmul-to-tensorcore to the function marked mpt.tensorcore_entry; no
// parameters (test/Conversion/tensorcore-schedules.mlir parses it).
module attributes {transform.with_named_sequence} {

transform.named_sequence @simt_matmul(%root: !transform.any_op {transform.readonly}) {
  %func = transform.structured.match ops{["func.func"]} attributes{mpt.tensorcore_entry} in %root : (!transform.any_op) -> !transform.any_op
  %mm = transform.structured.match interface{LinalgOp} in %func : (!transform.any_op) -> !transform.any_op
  %t, %f = transform.structured.tile_using_forall %mm tile_sizes [32, 32] (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
  %t2, %f2 = transform.structured.tile_using_forall %t num_threads [32, 8] (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
  transform.include @simt_map_and_lower failures(propagate) (%root, %func) : (!transform.any_op, !transform.any_op) -> ()
  transform.yield
}

// batch_matmul: the batch on blockIdx.z.
transform.named_sequence @simt_batch_matmul(%root: !transform.any_op {transform.readonly}) {
  %func = transform.structured.match ops{["func.func"]} attributes{mpt.tensorcore_entry} in %root : (!transform.any_op) -> !transform.any_op
  %mm = transform.structured.match interface{LinalgOp} in %func : (!transform.any_op) -> !transform.any_op
  %t, %f = transform.structured.tile_using_forall %mm tile_sizes [1, 32, 32] (mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
  %t2, %f2 = transform.structured.tile_using_forall %t num_threads [0, 32, 8] (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
  transform.include @simt_map_and_lower failures(propagate) (%root, %func) : (!transform.any_op, !transform.any_op) -> ()
  transform.yield
}

// The foralls to a gpu.launch of 8x32 threads, the thread's matmul to loops.
transform.named_sequence @simt_map_and_lower(%root: !transform.any_op {transform.readonly}, %func: !transform.any_op {transform.consumed}) {
  %launch = transform.gpu.map_forall_to_blocks %func generate_gpu_launch : (!transform.any_op) -> !transform.any_op
  %mapped = transform.gpu.map_nested_forall_to_threads %launch block_dims = [8, 32, 1] : (!transform.any_op) -> !transform.any_op
  %func1 = transform.structured.match ops{["func.func"]} attributes{mpt.tensorcore_entry} in %root : (!transform.any_op) -> !transform.any_op
  %mm1 = transform.structured.match interface{LinalgOp} in %func1 : (!transform.any_op) -> !transform.any_op
  %loops = transform.structured.convert_to_loops %mm1 : (!transform.any_op) -> !transform.any_op
  transform.yield
}

}
