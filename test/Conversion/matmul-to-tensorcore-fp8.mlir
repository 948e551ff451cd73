// FP8 matmuls on sm_90a: every layout reaches wgmma, which reads 8-bit
// operands only K-major (A[m][k], B[n][k]): an operand stored MN-major
// (B[k][n], A[k][m]) is first copied K-major into a gpu.alloc'd buffer by a
// transpose kernel (<entry>_transpose_a|b), freed after the matmul. Shapes
// that are not multiples of the 128x128x128 FP8 tile and batched FP8
// matmuls fall back to the general path with the reason in the remark and
// the report (FP8 formats wgmma has no type for:
// matmul-to-tensorcore-fp8-formats.mlir).
// RUN: mpt-opt %s --verify-diagnostics --mpt-matmul-to-tensorcore="chip=sm_90a report=%t.txt" | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.txt
// The whole GPU pipeline compiles the fallback: the SIMT kernels read the
// FP8 operands through the integer expansion of the casts
// (mpt-expand-fp8-casts), as the host loops do.
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: mpt-opt %s --mpt-gpu-codegen="chip=sm_90a format=isa dump-dir=%t.dir" -o %t.out.mlir 2>/dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.dir/fp8_simt_kernel.sm_90a.ptx

// REPORT: Tensor Cores (sm_90a): 3 of 5 matmuls lowered
// REPORT-NEXT: linalg.matmul 128x128x128 f8E4M3FN x f8E5M2 (B transposed): Tensor Cores in @fp8_tensorcore (TMA + wgmma.mma_async m64n128k32 e4m3 x e5m2, block tile 128x128x128, 3 mbarrier stages, 128 threads)
// REPORT-NEXT: linalg.matmul 128x128x128 f8E4M3FN: Tensor Cores in @fp8_tensorcore_0 (TMA + wgmma.mma_async m64n128k32 e4m3 x e4m3, block tile 128x128x128, 3 mbarrier stages, 128 threads, B copied K-major first)
// REPORT-NEXT: linalg.matmul 128x128x128 f8E5M2 x f8E4M3FN (A transposed): Tensor Cores in @fp8_tensorcore_1 ({{.*}}, A and B copied K-major first)
// REPORT-NEXT: linalg.matmul 128x128x64 f8E4M3FN (B transposed): general path (SIMT GPU kernel in @fp8_simt): 128x128x64 is not a multiple of the 128x128x128 FP8 wgmma tile
// REPORT-NEXT: linalg.batch_matmul 2 x 128x128x128 f8E4M3FN: general path (SIMT GPU kernel in @fp8_simt_2): batch_matmul is not lowered to wgmma yet (sm_80 lowers it)

// CHECK-LABEL: func.func @fp8(
// CHECK: call @fp8_tensorcore(
// CHECK: call @fp8_tensorcore_0(
// CHECK: call @fp8_tensorcore_1(
// CHECK: call @fp8_simt(
// CHECK: call @fp8_simt_2(
// B[k][n] -> B[n][k]: 32x32 tiles, 32x8 threads, 4 bytes a thread.
// CHECK-LABEL: func.func private @fp8_tensorcore_0_transpose_b(
// CHECK-SAME: %[[IN:.*]]: memref<128x128xf8E4M3FN>, %[[OUT:.*]]: memref<128x128xf8E4M3FN>)
// CHECK: gpu.launch
// CHECK: memref.load %{{.*}}[%[[ROW:.*]], %[[COL:.*]]] : memref<128x128xui8>
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[COL]], %[[ROW]]] : memref<128x128xui8>
// CHECK-LABEL: func.func private @fp8_tensorcore_0(
// CHECK-SAME: %[[A:.*]]: memref<128x128xf8E4M3FN>, %[[B:.*]]: memref<128x128xf8E4M3FN>, %{{.*}}: memref<128x128xf32>)
// CHECK: %[[S0:.*]] = gpu.wait async
// CHECK-NEXT: %[[BT:.*]], %[[S1:.*]] = gpu.alloc async [%[[S0]]] () : memref<128x128xf8E4M3FN>
// CHECK-NEXT: gpu.wait [%[[S1]]]
// CHECK-NEXT: call @fp8_tensorcore_0_transpose_b(%[[B]], %[[BT]])
// CHECK: builtin.unrealized_conversion_cast %[[BT]] : memref<128x128xf8E4M3FN> to memref<128x128xui8>
// CHECK: nvgpu.warpgroup.mma
// CHECK: gpu.dealloc async [%{{.*}}] %[[BT]]
// CHECK-LABEL: func.func private @fp8_tensorcore_1_transpose_a(
// CHECK-LABEL: func.func private @fp8_tensorcore_1_transpose_b(
// CHECK-LABEL: func.func private @fp8_tensorcore_1(
// CHECK: gpu.alloc async [%{{.*}}] () : memref<128x128xf8E5M2>
// CHECK: call @fp8_tensorcore_1_transpose_a(
// CHECK: gpu.alloc async [%{{.*}}] () : memref<128x128xf8E4M3FN>
// CHECK: call @fp8_tensorcore_1_transpose_b(

// PTX: .entry fp8_simt_kernel
// PTX-NOT: wgmma
// PTX: mul.rn.f32
// PTX: add.rn.f32

#mA = affine_map<(m, n, k) -> (m, k)>
#mAt = affine_map<(m, n, k) -> (k, m)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @fp8(%a: memref<128x128xf8E4M3FN>, %b: memref<128x128xf8E5M2>, %c: memref<128x128xf32>,
               %a64: memref<128x64xf8E4M3FN>, %ba: memref<2x128x128xf8E4M3FN>, %bc: memref<2x128x128xf32>) {
  // expected-remark @below {{matmul 128x128x128 f8E4M3FN x f8E5M2 (B transposed) lowered to Tensor Cores (sm_90a: TMA + wgmma.mma_async m64n128k32 e4m3 x e5m2, block tile 128x128x128, 3 mbarrier stages, 128 threads) in @fp8_tensorcore}}
  linalg.matmul indexing_maps = [#mA, #mBt, #mC] ins(%a, %b : memref<128x128xf8E4M3FN>, memref<128x128xf8E5M2>) outs(%c : memref<128x128xf32>)
  // expected-remark @below {{matmul 128x128x128 f8E4M3FN lowered to Tensor Cores (sm_90a: TMA + wgmma.mma_async m64n128k32 e4m3 x e4m3, block tile 128x128x128, 3 mbarrier stages, 128 threads, B copied K-major first) in @fp8_tensorcore_0}}
  linalg.matmul ins(%a, %a : memref<128x128xf8E4M3FN>, memref<128x128xf8E4M3FN>) outs(%c : memref<128x128xf32>)
  // expected-remark @below {{A and B copied K-major first) in @fp8_tensorcore_1}}
  linalg.matmul indexing_maps = [#mAt, #mB, #mC] ins(%b, %a : memref<128x128xf8E5M2>, memref<128x128xf8E4M3FN>) outs(%c : memref<128x128xf32>)
  // expected-remark @below {{not a multiple of the 128x128x128 FP8 wgmma tile}}
  linalg.matmul indexing_maps = [#mA, #mBt, #mC] ins(%a64, %a64 : memref<128x64xf8E4M3FN>, memref<128x64xf8E4M3FN>) outs(%c : memref<128x128xf32>)
  // expected-remark @below {{batch_matmul is not lowered to wgmma yet}}
  linalg.batch_matmul ins(%ba, %ba : memref<2x128x128xf8E4M3FN>, memref<2x128x128xf8E4M3FN>) outs(%bc : memref<2x128x128xf32>)
  return
}
