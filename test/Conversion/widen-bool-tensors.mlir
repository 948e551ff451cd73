// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-widen-bool-tensors))" --split-input-file | FileCheck %s

// A mask computed by one op and read by two: stored as i8 (0 or 1), narrowed
// back in each reader's body.
#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @mask_read_twice
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<4x37xi8>
// CHECK: %[[MASK:.*]] = linalg.generic
// CHECK-SAME: outs(%[[EMPTY]] : tensor<4x37xi8>)
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: i8):
// CHECK: %[[C:.*]] = arith.cmpf ogt
// CHECK: %[[W:.*]] = arith.extui %[[C]] : i1 to i8
// CHECK: linalg.yield %[[W]] : i8
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[MASK]], %{{.*}} : tensor<4x37xi8>, tensor<4x37xf32>)
// CHECK: ^bb0(%[[B:.*]]: i8, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[N:.*]] = arith.trunci %[[B]] : i8 to i1
// CHECK: arith.select %[[N]]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[MASK]] : tensor<4x37xi8>)
// CHECK: arith.trunci
// CHECK: arith.uitofp
func.func @mask_read_twice(%x: tensor<4x37xf32>) -> (tensor<4x37xf32>, tensor<4x37xf32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x37xi1>
  %mask = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x37xf32>) outs(%e1 : tensor<4x37xi1>) {
  ^bb0(%a: f32, %o: i1):
    %p = arith.cmpf ogt, %a, %zero : f32
    linalg.yield %p : i1
  } -> tensor<4x37xi1>
  %e2 = tensor.empty() : tensor<4x37xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mask, %x : tensor<4x37xi1>, tensor<4x37xf32>) outs(%e2 : tensor<4x37xf32>) {
  ^bb0(%m: i1, %a: f32, %o: f32):
    %s = arith.select %m, %a, %zero : f32
    linalg.yield %s : f32
  } -> tensor<4x37xf32>
  %count = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mask : tensor<4x37xi1>) outs(%e2 : tensor<4x37xf32>) {
  ^bb0(%m: i1, %o: f32):
    %f = arith.uitofp %m : i1 to f32
    linalg.yield %f : f32
  } -> tensor<4x37xf32>
  return %relu, %count : tensor<4x37xf32>, tensor<4x37xf32>
}

// -----

// A mask the function returns stays i1 (its type is the caller's), and so
// does one whose init the body reads.
#id = affine_map<(i) -> (i)>
// CHECK-LABEL: func.func @returned
// CHECK-NOT: i8
// CHECK: return {{.*}} : tensor<8xi1>
func.func @returned(%x: tensor<8xf32>) -> tensor<8xi1> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xi1>
  %mask = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xi1>) {
  ^bb0(%a: f32, %o: i1):
    %p = arith.cmpf ogt, %a, %zero : f32
    linalg.yield %p : i1
  } -> tensor<8xi1>
  return %mask : tensor<8xi1>
}

// CHECK-LABEL: func.func @reads_init
// CHECK-NOT: i8
func.func @reads_init(%x: tensor<8xf32>, %old: tensor<8xi1>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %mask = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%old : tensor<8xi1>) {
  ^bb0(%a: f32, %o: i1):
    %p = arith.cmpf ogt, %a, %zero : f32
    %q = arith.ori %p, %o : i1
    linalg.yield %q : i1
  } -> tensor<8xi1>
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%mask, %x : tensor<8xi1>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%m: i1, %a: f32, %o: f32):
    %s = arith.select %m, %a, %zero : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
