// REQUIRES: ptxas
// The sm_90a kernels assemble with ptxas, load A/B tiles by TMA
// (cp.async.bulk.tensor) guarded by mbarriers, use wgmma.mma_async
// m64n128k16 (f16 and bf16 inputs, f32 accumulators), and do not spill.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mpt-opt %s --mpt-gpu-codegen="chip=sm_90a format=isa dump-dir=%t" -o %t/out.mlir
// RUN: FileCheck %s --check-prefix=F16 < %t/mm_f16_tensorcore_kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=BF16 < %t/mm_bf16_tensorcore_kernel.sm_90a.ptx
// RUN: %ptxas -arch=sm_90a -v %t/mm_f16_tensorcore_kernel.sm_90a.ptx -o %t/f16.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90a -v %t/mm_bf16_tensorcore_kernel.sm_90a.ptx -o %t/bf16.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// The host creates the two TMA descriptors and launches with 96 KiB of
// dynamic shared memory (3 stages x 32 KiB + 2 KiB of alignment slack).
// RUN: FileCheck %s --check-prefix=HOST < %t/out.mlir

// F16: .target sm_90a
// F16: .entry mm_f16_tensorcore_kernel
// F16: mbarrier.init.shared
// F16: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// F16: mbarrier.try_wait.parity.shared
// F16: wgmma.fence.sync.aligned
// F16-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// F16: wgmma.commit_group.sync.aligned
// F16: wgmma.wait_group.sync.aligned

// BF16: .entry mm_bf16_tensorcore_kernel
// BF16: cp.async.bulk.tensor.2d
// BF16-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16

// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// HOST-LABEL: llvm.func @mm_f16_tensorcore(
// HOST-COUNT-2: llvm.call @mgpuTensorMapEncodeTiledMemref(
// HOST: gpu.launch_func @mm_f16_tensorcore_kernel::@mm_f16_tensorcore_kernel blocks in ({{.*}}) threads in ({{.*}}) : i64 dynamic_shared_memory_size

func.func @mm_f16(%A: memref<256x512xf16>, %B: memref<512x256xf16>, %C: memref<256x256xf32>) {
  linalg.matmul ins(%A, %B : memref<256x512xf16>, memref<512x256xf16>) outs(%C : memref<256x256xf32>)
  return
}

func.func @mm_bf16(%A: memref<256x512xbf16>, %B: memref<512x256xbf16>, %C: memref<256x256xf32>) {
  linalg.matmul ins(%A, %B : memref<256x512xbf16>, memref<512x256xbf16>) outs(%C : memref<256x256xf32>)
  return
}
