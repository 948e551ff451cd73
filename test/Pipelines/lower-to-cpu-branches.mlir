// RUN: mpt-opt %s --mpt-lower-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s

// A step that returns different tensors from two blocks compiles and runs.
// mpt's greedy passes (decompose-aggregate-ops, fuse-elementwise) do not
// merge the two returns into one block reached twice from the cf.cond_br
// with different tensors: one-shot-bufferize (MLIR 22) turns that into IR
// that does not verify (found by mpt-fuzz). Exact values: a 2x2 product of
// small integers, or zeros.

func.func @two_returns(%w: tensor<2x2xf32>, %x: tensor<2x2xf32>, %c: i1) -> tensor<2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %m = linalg.matmul ins(%x, %w : tensor<2x2xf32>, tensor<2x2xf32>) outs(%z : tensor<2x2xf32>) -> tensor<2x2xf32>
  cf.cond_br %c, ^product, ^zeros
^product:
  return %m : tensor<2x2xf32>
^zeros:
  return %z : tensor<2x2xf32>
}

func.func @main() {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %x = arith.constant dense<[[1.0, 1.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %true = arith.constant true
  %false = arith.constant false
  %p = func.call @two_returns(%w, %x, %true) : (tensor<2x2xf32>, tensor<2x2xf32>, i1) -> tensor<2x2xf32>
  %q = func.call @two_returns(%w, %x, %false) : (tensor<2x2xf32>, tensor<2x2xf32>, i1) -> tensor<2x2xf32>
  // [[1, 1], [0, 1]] x [[1, 2], [3, 4]] = [[4, 6], [3, 4]]
  // CHECK:      4
  // CHECK-NEXT: 6
  // CHECK-NEXT: 3
  // CHECK-NEXT: 4
  // CHECK-NEXT: 0
  // CHECK-NEXT: 0
  // CHECK-NEXT: 0
  // CHECK-NEXT: 0
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %t = %c0 to %c2 step %c1 {
    %r = arith.cmpi eq, %t, %c0 : index
    %m = arith.select %r, %p, %q : tensor<2x2xf32>
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c2 step %c1 {
        %v = tensor.extract %m[%i, %j] : tensor<2x2xf32>
        vector.print %v : f32
      }
    }
  }
  return
}
