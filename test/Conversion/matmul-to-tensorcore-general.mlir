// What cannot reach Tensor Cores takes the general path, with the reason:
// with general=gpu (default) a matmul or batch_matmul on statically shaped
// memrefs becomes a SIMT GPU kernel (any shape: partial edge tiles are
// bounded), everything else is left as it is; general=host leaves all.
// RUN: mpt-opt %s --verify-diagnostics --mpt-matmul-to-tensorcore | FileCheck %s --check-prefix=GPU
// RUN: mpt-opt %s --verify-diagnostics --mpt-matmul-to-tensorcore="general=host" | FileCheck %s --check-prefix=HOST
// RUN: rm -rf %t && mkdir -p %t
// RUN: mpt-opt %s --mpt-gpu-codegen="chip=sm_80 dump-dir=%t" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/not_lowered_simt_kernel.sm_80.ptx

// GPU-LABEL: func.func @not_lowered
// GPU: call @not_lowered_simt(
// GPU: call @not_lowered_simt_0(
// GPU: linalg.matmul ins({{.*}} : memref<?x128xf16>
// GPU: linalg.matmul ins({{.*}} : tensor<128x128xf16>
// GPU: linalg.batch_reduce_matmul
// GPU: call @not_lowered_simt_1(
// GPU: call @not_lowered_simt_2(
// GPU-LABEL: func.func private @not_lowered_simt(
// 100x128 in 32x32 tiles: 4x4 blocks of 8x32 threads; the last row of
// blocks has 4 rows (affine.min), each thread at most 1x4 outputs.
// GPU: gpu.launch blocks({{.*}}) in ({{.*}} = %c4{{.*}}, {{.*}} = %c4{{.*}}, {{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c8{{.*}}, {{.*}} = %c32{{.*}}, {{.*}} = %c1{{.*}})
// GPU: affine.min
// GPU: scf.for
// GPU: arith.extf {{.*}} : f16 to f32
// GPU: arith.mulf
// GPU: arith.addf
// GPU-NOT: linalg.matmul
// GPU-LABEL: func.func private @not_lowered_simt_2(
// GPU: gpu.launch blocks({{.*}}) in ({{.*}} = %c4{{.*}}, {{.*}} = %c4{{.*}}, {{.*}} = %c2{{.*}})

// HOST-LABEL: func.func @not_lowered
// HOST-COUNT-7: linalg.
// HOST-NOT: gpu.launch

// PTX: .entry not_lowered_simt_kernel
// PTX: cvt.f32.f16
// PTX: mul.rn.f32
// PTX: add.rn.f32
func.func @not_lowered(%a: memref<100x64xf16>, %b: memref<64x128xf16>, %c: memref<100x128xf32>,
                       %af: memref<128x128xf32>, %cf: memref<128x128xf32>,
                       %ad: memref<?x128xf16>, %bd: memref<128x128xf16>, %cd: memref<?x128xf32>,
                       %ta: tensor<128x128xf16>, %tc: tensor<128x128xf32>,
                       %ba: memref<2x128x128xf16>, %bc: memref<128x128xf32>,
                       %ch: memref<128x128xf16>, %bo: memref<2x100x64xbf16>, %bb: memref<2x64x128xbf16>,
                       %bco: memref<2x100x128xf32>) {
  // expected-remark-re @below {{matmul not lowered to Tensor Cores (general path: {{(SIMT GPU kernel in @not_lowered_simt|left as is)}}): 100x128x64 is not a multiple of the 128x128x32 tile}}
  linalg.matmul ins(%a, %b : memref<100x64xf16>, memref<64x128xf16>) outs(%c : memref<100x128xf32>)
  // expected-remark-re @below {{(general path: {{.*}}): element types f32 x f32 -> f32 (Tensor Cores need f16 x f16 or bf16 x bf16 -> f32, or FP8 f8E4M3FN/f8E5M2 in any pairing -> f32 on sm_90a)}}
  linalg.matmul ins(%af, %af : memref<128x128xf32>, memref<128x128xf32>) outs(%cf : memref<128x128xf32>)
  // expected-remark @below {{(general path: left as is): dynamic shapes are not lowered to Tensor Cores}}
  linalg.matmul ins(%ad, %bd : memref<?x128xf16>, memref<128x128xf16>) outs(%cd : memref<?x128xf32>)
  // expected-remark @below {{(general path: left as is): operates on tensors; bufferize first (mpt-gpu-codegen does)}}
  %t = linalg.matmul ins(%ta, %ta : tensor<128x128xf16>, tensor<128x128xf16>) outs(%tc : tensor<128x128xf32>) -> tensor<128x128xf32>
  // expected-remark @below {{(general path: left as is): 'linalg.batch_reduce_matmul' is not lowered to Tensor Cores yet}}
  linalg.batch_reduce_matmul ins(%ba, %ba : memref<2x128x128xf16>, memref<2x128x128xf16>) outs(%bc : memref<128x128xf32>)
  // expected-remark-re @below {{(general path: {{.*}}): element types f16 x f16 -> f16}}
  linalg.matmul ins(%ch, %ch : memref<128x128xf16>, memref<128x128xf16>) outs(%ch : memref<128x128xf16>)
  // expected-remark-re @below {{(general path: {{.*}}): 100x128x64 is not a multiple}}
  linalg.batch_matmul ins(%bo, %bb : memref<2x100x64xbf16>, memref<2x64x128xbf16>) outs(%bco : memref<2x100x128xf32>)
  return
}
