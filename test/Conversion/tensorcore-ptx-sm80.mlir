// REQUIRES: ptxas
// The sm_80 kernels assemble with ptxas, use mma.sync m16n8k16 (f16 and bf16
// inputs, f32 accumulators), ldmatrix and cp.async, and do not spill.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mpt-opt %s --mpt-gpu-codegen="chip=sm_80 format=isa dump-dir=%t" -o %t/out.mlir
// RUN: FileCheck %s --check-prefix=F16 < %t/mm_f16_tensorcore_kernel.sm_80.ptx
// RUN: FileCheck %s --check-prefix=BF16 < %t/mm_bf16_tensorcore_kernel.sm_80.ptx
// RUN: %ptxas -arch=sm_80 -v %t/mm_f16_tensorcore_kernel.sm_80.ptx -o %t/f16.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_80 -v %t/mm_bf16_tensorcore_kernel.sm_80.ptx -o %t/bf16.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=BATCH < %t/bmm_bf16_tensorcore_kernel.sm_80.ptx
// RUN: %ptxas -arch=sm_80 -v %t/bmm_bf16_tensorcore_kernel.sm_80.ptx -o %t/bmm.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// The general-path SIMT kernel (shape not a multiple of the tile) assembles
// too, without spills.
// RUN: %ptxas -arch=sm_80 -v %t/odd_simt_kernel.sm_80.ptx -o %t/odd.cubin 2>&1 | FileCheck %s --check-prefix=SIMT
// The host side calls the outlined entry, which launches the kernel.
// RUN: FileCheck %s --check-prefix=HOST < %t/out.mlir

// F16: .target sm_80
// F16: .entry mm_f16_tensorcore_kernel
// F16: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
// F16: cp.async.commit_group
// F16: cp.async.wait_group
// F16: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// F16: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// F16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// F16-NOT: bf16

// BF16: .entry mm_bf16_tensorcore_kernel
// BF16: cp.async.cg.shared.global
// BF16: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// BF16: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// BF16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// BF16-NOT: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// BATCH: .entry bmm_bf16_tensorcore_kernel
// BATCH: mov.u32 {{.*}}, %ctaid.z
// BATCH: cp.async.cg.shared.global
// BATCH: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// BATCH: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Used {{[0-9]+}} registers, used 1 barriers, 49152 bytes smem

// SIMT: 0 bytes spill stores, 0 bytes spill loads

// HOST-LABEL: llvm.func @mm_f16(
// HOST: llvm.call @mm_f16_tensorcore(
// HOST-LABEL: llvm.func @mm_f16_tensorcore(
// HOST: gpu.launch_func @mm_f16_tensorcore_kernel::@mm_f16_tensorcore_kernel
// HOST: gpu.binary @mm_f16_tensorcore_kernel

func.func @mm_f16(%A: memref<256x512xf16>, %B: memref<512x256xf16>, %C: memref<256x256xf32>) {
  linalg.matmul ins(%A, %B : memref<256x512xf16>, memref<512x256xf16>) outs(%C : memref<256x256xf32>)
  return
}

func.func @mm_bf16(%A: memref<256x512xbf16>, %B: memref<512x256xbf16>, %C: memref<256x256xf32>) {
  linalg.matmul ins(%A, %B : memref<256x512xbf16>, memref<512x256xbf16>) outs(%C : memref<256x256xf32>)
  return
}

func.func @bmm_bf16(%A: memref<2x128x256xbf16>, %B: memref<2x256x128xbf16>, %C: memref<2x128x128xf32>) {
  linalg.batch_matmul ins(%A, %B : memref<2x128x256xbf16>, memref<2x256x128xbf16>) outs(%C : memref<2x128x128xf32>)
  return
}

func.func @odd(%A: memref<100x64xbf16>, %B: memref<64x130xbf16>, %C: memref<100x130xf32>) {
  linalg.matmul ins(%A, %B : memref<100x64xbf16>, memref<64x130xbf16>) outs(%C : memref<100x130xf32>)
  return
}
