// RUN: mpt-opt %s --split-input-file --mpt-update-in-place | FileCheck %s

// The new parameter is computed into the parameter: the elementwise
// update's init (a tensor.empty its body ignores) becomes argument 0.
#id = affine_map<(i) -> (i)>
// CHECK-LABEL: func.func @sgd
// CHECK-SAME: (%[[W:.*]]: tensor<8xf32> {mpt.role = "param"}
// CHECK: %[[N:.*]] = linalg.generic {{.*}} outs(%[[W]] : tensor<8xf32>)
// CHECK: return %{{.*}}, %[[N]]
func.func @sgd(%w: tensor<8xf32> {mpt.role = "param"}, %g: tensor<8xf32> {mpt.role = "data"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<8xf32> {mpt.updates = 0 : i64}) {
  %l = arith.constant dense<0.0> : tensor<f32>
  %e = tensor.empty() : tensor<8xf32>
  %n = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%w, %g : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %l, %n : tensor<f32>, tensor<8xf32>
}

// -----

// Left alone: a body that reads its init (an accumulation into it), a
// reduction, and a result no mpt.updates marks.
#id = affine_map<(i) -> (i)>
#sc = affine_map<(i) -> ()>
// CHECK-LABEL: func.func @not_in_place
// CHECK: %[[E:.*]] = tensor.empty() : tensor<8xf32>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<8xf32>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<f32>)
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<8xf32>)
func.func @not_in_place(%w: tensor<8xf32> {mpt.role = "param"}, %s: tensor<f32> {mpt.role = "optimizer_state"},
                        %v: tensor<8xf32> {mpt.role = "optimizer_state"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<8xf32> {mpt.updates = 0 : i64},
        tensor<f32> {mpt.updates = 1 : i64}, tensor<8xf32>) {
  %l = arith.constant dense<0.0> : tensor<f32>
  %e = tensor.empty() : tensor<8xf32>
  %acc = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%w : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %x = arith.addf %a, %o : f32
    linalg.yield %x : f32
  } -> tensor<8xf32>
  %e0 = tensor.empty() : tensor<f32>
  %sum = linalg.generic {indexing_maps = [#id, #sc], iterator_types = ["reduction"]}
      ins(%w : tensor<8xf32>) outs(%e0 : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %x = arith.addf %a, %o : f32
    linalg.yield %x : f32
  } -> tensor<f32>
  %other = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%v : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %x = arith.negf %a : f32
    linalg.yield %x : f32
  } -> tensor<8xf32>
  return %l, %acc, %sum, %other : tensor<f32>, tensor<8xf32>, tensor<f32>, tensor<8xf32>
}
