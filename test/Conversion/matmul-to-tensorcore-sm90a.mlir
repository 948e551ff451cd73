// RUN: mpt-opt %s --split-input-file --verify-diagnostics --mpt-matmul-to-tensorcore="chip=sm_90a general=host" | FileCheck %s

// One warpgroup per 128x128 tile: host-side TMA descriptors (A box 128x64,
// B box 64x64), 3 stages of 32 KiB dynamic shared memory (+ 2 KiB to align
// them to 1024 bytes), one mbarrier per
// stage, wgmma over each stage, accumulators stored straight to C.
// CHECK-LABEL: func.func private @f16_tensorcore
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c128, %c64] : memref<*xf16> -> <tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c64, %c64] : memref<*xf16> -> <tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c2{{.*}}, {{.*}} = %c4{{.*}}, {{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c128{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) dynamic_shared_memory_size %c100352_i32
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: arith.remui %{{.*}}, %c1024
// CHECK: nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// CHECK: nvgpu.tma.async.load
// CHECK: scf.for
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvgpu.warpgroup.generate.descriptor
// CHECK: nvgpu.warpgroup.mma {{.*}} {transposeB, waitGroup = 0 : i64}
// CHECK: nvgpu.warpgroup.mma.store
func.func @f16(%A: memref<512x256xf16>, %B: memref<256x256xf16>, %C: memref<512x256xf32>) {
  // expected-remark @below {{matmul 512x256x256 f16 lowered to Tensor Cores (sm_90a: TMA + wgmma.mma_async m64n128k16}}
  linalg.matmul ins(%A, %B : memref<512x256xf16>, memref<256x256xf16>) outs(%C : memref<512x256xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @not_lowered
// CHECK-NOT: gpu.launch
func.func @not_lowered(%a: memref<128x96xf16>, %b: memref<96x128xf16>, %c: memref<128x128xf32>,
                       %s: memref<128x128xf16>, %cs: memref<128x128xf32>,
                       %ba: memref<2x128x128xf16>, %bc: memref<2x128x128xf32>) {
  // expected-remark @below {{batch_matmul is not lowered to wgmma yet (sm_80 lowers it)}}
  linalg.batch_matmul ins(%ba, %ba : memref<2x128x128xf16>, memref<2x128x128xf16>) outs(%bc : memref<2x128x128xf32>)
  // expected-remark @below {{128x128x96 is not a multiple of the 128x128x64 wgmma tile}}
  linalg.matmul ins(%a, %b : memref<128x96xf16>, memref<96x128xf16>) outs(%c : memref<128x128xf32>)
  // expected-remark @below {{transposed operands are not lowered to wgmma yet}}
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
    ins(%s, %s : memref<128x128xf16>, memref<128x128xf16>) outs(%cs : memref<128x128xf32>)
  return
}
