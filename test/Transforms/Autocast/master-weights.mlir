// master-weights=true: each parameter the step reads in f16 gets an f16
// working copy, passed in as an "optimizer_state" argument and returned,
// truncated from the updated f32 master, as the result that updates it.
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-autocast="master-weights=true policy-level=conservative" | FileCheck %s
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-precision-report="master-weights=true policy-level=conservative" 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-autocast="master-weights=true policy-level=conservative" -o %t.once.mlir
// RUN: mpt-opt %t.once.mlir --mpt-autocast="master-weights=true policy-level=conservative" -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// RUN: mpt-opt %s --mpt-autocast="master-weights=true policy-level=conservative" --verify-diagnostics -o /dev/null

// The output bias b2 (arg #3) is read only by the bias add after the last
// forward contraction, in the loss region (f32): it gets no working copy.
// CHECK-LABEL: func.func @mlp_step
// CHECK-SAME: %[[W1:[a-z0-9]+]]: tensor<16x32xf32> {mpt.role = "param"}
// CHECK-SAME: %[[C1:[a-z0-9]+]]: tensor<16x32xf16> {mpt.role = "optimizer_state", mpt.working_copy_of = 0 : i64}, %{{.*}}: tensor<32xf16> {mpt.role = "optimizer_state", mpt.working_copy_of = 1 : i64}, %{{.*}}: tensor<32x4xf16> {mpt.role = "optimizer_state", mpt.working_copy_of = 2 : i64})
// CHECK-SAME: tensor<4xf32> {mpt.updates = 3 : i64}, tensor<16x32xf16> {mpt.updates = 7 : i64}, tensor<32xf16> {mpt.updates = 8 : i64}, tensor<32x4xf16> {mpt.updates = 9 : i64})
// The master weight is no longer cast: the matmul reads the working copy.
// CHECK-NOT: arith.truncf %[[W1]]
// CHECK: linalg.matmul ins(%{{.*}}, %[[C1]] : tensor<8x16xf16>, tensor<16x32xf16>)
// The update stays f32; the next working copy is truncated right after it.
// CHECK: %[[NW1:.*]] = linalg.generic {{.*}} ins(%[[W1]], %{{.*}}, %{{.*}} : tensor<16x32xf32>, tensor<16x32xf32>, tensor<f32>) outs(%{{.*}} : tensor<16x32xf32>)
// CHECK: %[[NC1:.*]] = arith.truncf %[[NW1]] : tensor<16x32xf32> to tensor<16x32xf16>
// CHECK: return %{{.*}}, %[[NW1]], %{{.*}}, %{{.*}}, %{{.*}}, %[[NC1]], %{{.*}}, %{{.*}} :

// REPORT: master weights: arg #0 (f32 master) has working copy arg #7 (f16), returned as result #5
// REPORT: master weights: arg #2 (f32 master) has working copy arg #9 (f16), returned as result #7
// REPORT-NOT: master weights: arg #3
// REPORT: memory estimate after:
// REPORT: optimizer_state 1344 B (f16: 1344)

// A step with two returns is rejected: the working copies would need one
// result per return.
// expected-error@+1 {{master-weights needs a function with one return; this one has 2}}
func.func @two_returns(%w: tensor<4x4xf32> {mpt.role = "param"}, %x: tensor<4x4xf32> {mpt.role = "data"}, %flag: i1)
    -> (tensor<4x4xf32> {mpt.role = "loss"}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  cf.cond_br %flag, ^a, ^b
^a:
  return %y : tensor<4x4xf32>
^b:
  return %acc : tensor<4x4xf32>
}
