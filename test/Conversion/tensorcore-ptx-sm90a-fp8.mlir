// REQUIRES: ptxas
// FP8 matmuls (f8E4M3FN / f8E5M2 in each pairing autocast's hybrid recipe
// produces, f32 accumulator, A[m][k] x B[n][k]: both K-major, as FP8 wgmma
// requires) become TMA + wgmma kernels on sm_90a: 128x128x128 k-tiles moved
// as bytes by TMA, 8 wgmma.mma_async m64n128k32 per k-tile with e4m3/e5m2
// operands; ptxas assembles them without spills.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mpt-opt %s --mpt-gpu-codegen="chip=sm_90a format=isa dump-dir=%t" -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=E4M3 < %t/mm_e4m3_tensorcore_kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=DGRAD < %t/mm_dgrad_tensorcore_kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=E5M2A < %t/mm_e4m3_e5m2_tensorcore_kernel.sm_90a.ptx
// RUN: %ptxas -arch=sm_90a -v %t/mm_e4m3_tensorcore_kernel.sm_90a.ptx -o %t/a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90a -v %t/mm_dgrad_tensorcore_kernel.sm_90a.ptx -o %t/b.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90a -v %t/mm_e4m3_e5m2_tensorcore_kernel.sm_90a.ptx -o %t/c.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// B[k][n] (a plain linalg.matmul): a transpose kernel copies B K-major into
// a device buffer first; both kernels assemble without spills.
// RUN: FileCheck %s --check-prefix=NN < %t/mm_nn_tensorcore_kernel.sm_90a.ptx
// RUN: %ptxas -arch=sm_90a -v %t/mm_nn_tensorcore_kernel.sm_90a.ptx -o %t/d.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90a -v %t/mm_nn_tensorcore_transpose_b_kernel.sm_90a.ptx -o %t/e.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// The host encodes the two TMA descriptors as UINT8 (data type 0) tensors
// with 128-byte swizzle (3) and launches with 3 x 32 KiB + 2 KiB.
// RUN: FileCheck %s --check-prefix=HOST < %t/out.mlir

// REMARK: remark: matmul 256x256x512 f8E4M3FN (B transposed) lowered to Tensor Cores (sm_90a: TMA + wgmma.mma_async m64n128k32 e4m3 x e4m3, block tile 128x128x128, 3 mbarrier stages, 128 threads) in @mm_e4m3_tensorcore
// REMARK: remark: matmul 128x256x384 f8E5M2 x f8E4M3FN (B transposed) lowered to Tensor Cores (sm_90a: TMA + wgmma.mma_async m64n128k32 e5m2 x e4m3, {{.*}}) in @mm_dgrad_tensorcore
// REMARK: remark: matmul 256x256x512 f8E4M3FN lowered to Tensor Cores (sm_90a: {{.*}}, B copied K-major first) in @mm_nn_tensorcore
// REMARK: remark: matmul 256x128x128 f8E4M3FN x f8E5M2 (B transposed) lowered to Tensor Cores (sm_90a: TMA + wgmma.mma_async m64n128k32 e4m3 x e5m2, {{.*}}) in @mm_e4m3_e5m2_tensorcore

// E4M3: .target sm_90a
// E4M3: .entry mm_e4m3_tensorcore_kernel
// E4M3: mbarrier.init.shared
// E4M3: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// E4M3: mbarrier.try_wait.parity.shared
// E4M3: wgmma.fence.sync.aligned
// E4M3-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// E4M3-NOT: wgmma.mma_async
// E4M3: wgmma.wait_group.sync.aligned 0
// E4M3-NOT: wgmma.mma_async

// DGRAD: .entry mm_dgrad_tensorcore_kernel
// DGRAD-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k32.f32.e5m2.e4m3
// DGRAD-NOT: wgmma.mma_async

// E5M2A-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e5m2
// E5M2A-NOT: wgmma.mma_async

// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// HOST-LABEL: llvm.func @mm_e4m3_tensorcore(
// HOST-DAG: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i64
// HOST-DAG: %[[SW128:.*]] = llvm.mlir.constant(3 : i32) : i64
// HOST-COUNT-2: llvm.call @mgpuTensorMapEncodeTiledMemref(%{{.*}}, %{{.*}}, %[[ZERO]], %[[ZERO]], %[[SW128]],
// HOST: gpu.launch_func @mm_e4m3_tensorcore_kernel::@mm_e4m3_tensorcore_kernel blocks in ({{.*}}) threads in ({{.*}}) : i64 dynamic_shared_memory_size
// The B copy: allocated on the device (256 x 512 bytes), filled by the
// transpose kernel, read by the wgmma kernel, freed.
// HOST-LABEL: llvm.func @mm_nn_tensorcore_transpose_b(
// HOST: gpu.launch_func @mm_nn_tensorcore_transpose_b_kernel::@mm_nn_tensorcore_transpose_b_kernel
// HOST-LABEL: llvm.func @mm_nn_tensorcore(
// HOST: llvm.call @mgpuMemAlloc(
// HOST: llvm.call @mm_nn_tensorcore_transpose_b(
// HOST: gpu.launch_func @mm_nn_tensorcore_kernel::@mm_nn_tensorcore_kernel
// HOST: llvm.call @mgpuMemFree(

// NN: .entry mm_nn_tensorcore_kernel
// NN-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// NN-NOT: wgmma.mma_async

#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @mm_e4m3(%A: memref<256x512xf8E4M3FN>, %B: memref<256x512xf8E4M3FN>, %C: memref<256x256xf32>) {
  linalg.matmul indexing_maps = [#mA, #mBt, #mC] ins(%A, %B : memref<256x512xf8E4M3FN>, memref<256x512xf8E4M3FN>) outs(%C : memref<256x256xf32>)
  return
}

// dX = dY W^T of the hybrid recipe: the gradient is E5M2, the weight E4M3.
func.func @mm_dgrad(%dY: memref<128x384xf8E5M2>, %W: memref<256x384xf8E4M3FN>, %dX: memref<128x256xf32>) {
  linalg.matmul indexing_maps = [#mA, #mBt, #mC] ins(%dY, %W : memref<128x384xf8E5M2>, memref<256x384xf8E4M3FN>) outs(%dX : memref<128x256xf32>)
  return
}

func.func @mm_nn(%A: memref<256x512xf8E4M3FN>, %B: memref<512x256xf8E4M3FN>, %C: memref<256x256xf32>) {
  linalg.matmul ins(%A, %B : memref<256x512xf8E4M3FN>, memref<512x256xf8E4M3FN>) outs(%C : memref<256x256xf32>)
  return
}

func.func @mm_e4m3_e5m2(%A: memref<256x128xf8E4M3FN>, %B: memref<128x128xf8E5M2>, %C: memref<256x128xf32>) {
  linalg.matmul indexing_maps = [#mA, #mBt, #mC] ins(%A, %B : memref<256x128xf8E4M3FN>, memref<128x128xf8E5M2>) outs(%C : memref<256x128xf32>)
  return
}
