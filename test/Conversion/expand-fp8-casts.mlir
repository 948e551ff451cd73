// FP8 casts become i32 bit manipulation, on scalars and vectors alike; other
// casts are left to arith-expand / arith-to-llvm. Their values are checked by
// executing them against torch (test/Execution/fp8-casts.test).
// RUN: mpt-opt %s --split-input-file --mpt-expand-fp8-casts | FileCheck %s

// CHECK-LABEL: func.func @scalar
// CHECK-NOT: arith.truncf %{{.*}} : f32 to f8
// CHECK-NOT: arith.extf %{{.*}} : f8
// E4M3FN: saturation threshold 464 + 1 ulp (0x43E80001).
// CHECK-DAG: arith.constant 1139277825 : i32
// CHECK: arith.bitcast %{{.*}} : i8 to f8E4M3FN
// CHECK: arith.bitcast %{{.*}} : f8E5M2 to i8
// CHECK: return
func.func @scalar(%x: f32, %y: f8E5M2) -> (f8E4M3FN, f32) {
  %t = arith.truncf %x : f32 to f8E4M3FN
  %e = arith.extf %y : f8E5M2 to f32
  return %t, %e : f8E4M3FN, f32
}

// -----

// CHECK-LABEL: func.func @vector
// CHECK: arith.bitcast %{{.*}} : vector<8xf32> to vector<8xi32>
// CHECK: arith.bitcast %{{.*}} : vector<8xi8> to vector<8xf8E5M2>
// To bf16: through f32 (exact), then a bf16 truncation.
// CHECK: arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK: return
func.func @vector(%x: vector<8xf32>, %y: vector<8xf8E4M3FN>) -> (vector<8xf8E5M2>, vector<8xbf16>) {
  %t = arith.truncf %x : vector<8xf32> to vector<8xf8E5M2>
  %e = arith.extf %y : vector<8xf8E4M3FN> to vector<8xbf16>
  return %t, %e : vector<8xf8E5M2>, vector<8xbf16>
}

// -----

// CHECK-LABEL: func.func @other_types
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT: return
func.func @other_types(%x: f32) -> bf16 {
  %t = arith.truncf %x : f32 to bf16
  return %t : bf16
}
