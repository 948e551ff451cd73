// A matmul whose shape is not a multiple of the Tensor Core tile keeps the
// general path through mpt-gpu-codegen (loops on the host) and computes the
// right values. Runs on the CPU; no GPU needed.
// RUN: mpt-opt %s --mpt-gpu-codegen="chip=sm_80 general=host" 2>&1 >%t.mlir | FileCheck %s --check-prefix=REMARK
// RUN: mlir-runner %t.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_libs | FileCheck %s

// REMARK: remark: matmul not lowered to Tensor Cores (general path: left as is): 100x128x64 is not a multiple of the 128x128x32 tile

// A[i][k] = i + k/64 (exact in f16: multiples of 1/64 below 128), B = 1,
// so C[i][j] = sum_k (i + k/64) = 64 i + 31.5 exactly; C starts at 0.5.
// CHECK: 32
// CHECK-NEXT: 2400
// CHECK-NEXT: 6368
func.func @main() {
  %a = memref.alloc() : memref<100x64xf16>
  %b = memref.alloc() : memref<64x128xf16>
  %c = memref.alloc() : memref<100x128xf32>
  %one = arith.constant 1.0 : f16
  %half = arith.constant 0.5 : f32
  %c64 = arith.constant 64.0 : f16
  linalg.fill ins(%one : f16) outs(%b : memref<64x128xf16>)
  linalg.fill ins(%half : f32) outs(%c : memref<100x128xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>],
                  iterator_types = ["parallel", "parallel"]} outs(%a : memref<100x64xf16>) {
  ^bb0(%out: f16):
    %i = linalg.index 0 : index
    %k = linalg.index 1 : index
    %i32 = arith.index_cast %i : index to i32
    %k32 = arith.index_cast %k : index to i32
    %if = arith.sitofp %i32 : i32 to f16
    %kf = arith.sitofp %k32 : i32 to f16
    %kq = arith.divf %kf, %c64 : f16
    %v = arith.addf %if, %kq : f16
    linalg.yield %v : f16
  }
  linalg.matmul ins(%a, %b : memref<100x64xf16>, memref<64x128xf16>) outs(%c : memref<100x128xf32>)
  %i0 = arith.constant 0 : index
  %i37 = arith.constant 37 : index
  %i99 = arith.constant 99 : index
  %j5 = arith.constant 5 : index
  %j127 = arith.constant 127 : index
  %v0 = memref.load %c[%i0, %j5] : memref<100x128xf32>
  %v1 = memref.load %c[%i37, %j127] : memref<100x128xf32>
  %v2 = memref.load %c[%i99, %i0] : memref<100x128xf32>
  vector.print %v0 : f32
  vector.print %v1 : f32
  vector.print %v2 : f32
  memref.dealloc %a : memref<100x64xf16>
  memref.dealloc %b : memref<64x128xf16>
  memref.dealloc %c : memref<100x128xf32>
  return
}
