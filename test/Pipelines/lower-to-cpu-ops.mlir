// RUN: mpt-opt %s --mpt-lower-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s

// Ops beyond matmul and generics that a step may contain run after
// --mpt-lower-to-cpu: linalg.softmax (decomposed first), math.tanh on a
// tensor (libm), tensor.pad and tensor.concat, i64 and i1 tensors.

func.func @ops(%x: tensor<3xf32>, %k: tensor<2xi64>, %m: tensor<2xi1>)
    -> (tensor<3xf32>, tensor<3xf32>, tensor<6xf32>, tensor<2xi64>) {
  %e = tensor.empty() : tensor<3xf32>
  %sm = linalg.softmax dimension(0) ins(%x : tensor<3xf32>) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %t = math.tanh %x : tensor<3xf32>
  %c0 = arith.constant 0.0 : f32
  %p = tensor.pad %x low[1] high[0] { ^bb0(%i: index): tensor.yield %c0 : f32 } : tensor<3xf32> to tensor<4xf32>
  %s = tensor.extract_slice %x[0] [2] [1] : tensor<3xf32> to tensor<2xf32>
  %cat = tensor.concat dim(0) %p, %s : (tensor<4xf32>, tensor<2xf32>) -> tensor<6xf32>
  %z = arith.constant dense<0> : tensor<2xi64>
  %sel = arith.select %m, %k, %z : tensor<2xi1>, tensor<2xi64>
  return %sm, %t, %cat, %sel : tensor<3xf32>, tensor<3xf32>, tensor<6xf32>, tensor<2xi64>
}

func.func @main() {
  %x = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %k = arith.constant dense<[7, 9]> : tensor<2xi64>
  %m = arith.constant dense<[true, false]> : tensor<2xi1>
  %sm, %t, %cat, %sel = func.call @ops(%x, %k, %m)
      : (tensor<3xf32>, tensor<2xi64>, tensor<2xi1>) -> (tensor<3xf32>, tensor<3xf32>, tensor<6xf32>, tensor<2xi64>)
  // softmax([1, 2, 3]) = exp(x - 3) / sum
  // CHECK:      0.0900306
  // CHECK-NEXT: 0.244728
  // CHECK-NEXT: 0.665241
  call @print3(%sm) : (tensor<3xf32>) -> ()
  // CHECK-NEXT: 0.761594
  // CHECK-NEXT: 0.964028
  // CHECK-NEXT: 0.995055
  call @print3(%t) : (tensor<3xf32>) -> ()
  // CHECK-NEXT: 0
  // CHECK-NEXT: 1
  // CHECK-NEXT: 2
  // CHECK-NEXT: 3
  // CHECK-NEXT: 1
  // CHECK-NEXT: 2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  scf.for %i = %c0 to %c6 step %c1 {
    %v = tensor.extract %cat[%i] : tensor<6xf32>
    vector.print %v : f32
  }
  // CHECK-NEXT: 7
  // CHECK-NEXT: 0
  %s0 = tensor.extract %sel[%c0] : tensor<2xi64>
  vector.print %s0 : i64
  %s1 = tensor.extract %sel[%c1] : tensor<2xi64>
  vector.print %s1 : i64
  return
}

func.func private @print3(%t: tensor<3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c3 step %c1 {
    %v = tensor.extract %t[%i] : tensor<3xf32>
    vector.print %v : f32
  }
  return
}
