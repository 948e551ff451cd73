// Painting rules of --mpt-autocast on small functions without training
// markers (plain autocast: every op counts as forward).
// RUN: mpt-opt %s --split-input-file --mpt-autocast=policy-level=conservative | FileCheck %s
// RUN: mpt-opt %s --split-input-file --mpt-autocast="dtype=bf16 policy-level=conservative" | FileCheck %s --check-prefix=BF16

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

// An allow op gets low-precision inputs and keeps its f32 accumulator and
// result; an infer op between two allow ops becomes low precision and
// computes in f32 inside its body (opmath); the argument is cast once, at
// function entry, and the cast is reused.
// CHECK-LABEL: func.func @infer_between_allow
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>)
// CHECK-DAG: %[[W16:.*]] = arith.truncf %[[W]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-DAG: %[[X16:.*]] = arith.truncf %[[X]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[X16]], %[[W16]] : tensor<4x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: %[[MM16:.*]] = arith.truncf %[[MM]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: %[[ACT:.*]] = linalg.generic {{.*}} ins(%[[MM16]] : tensor<4x8xf16>) outs(%{{.*}} : tensor<4x8xf16>)
// CHECK: ^bb0(%[[IN:.*]]: f16, %{{.*}}: f16):
// CHECK:   %[[E:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK:   %[[T:.*]] = math.tanh %[[E]] : f32
// CHECK:   %[[R:.*]] = arith.truncf %[[T]] : f32 to f16
// CHECK:   linalg.yield %[[R]] : f16
// CHECK: linalg.matmul ins(%[[ACT]], %[[W16]] : tensor<4x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK-NOT: arith.truncf
// CHECK: return
// BF16-LABEL: func.func @infer_between_allow
// BF16: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xbf16>, tensor<8x8xbf16>) outs(%{{.*}} : tensor<4x8xf32>)
// BF16: linalg.generic {{.*}} outs(%{{.*}} : tensor<4x8xbf16>)
func.func @infer_between_allow(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  %act = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %mm2 = linalg.matmul ins(%act, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %mm2 : tensor<4x8xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// An infer op after the last allow op is not between allow ops: it stays
// f32 and reads the matmul's f32 result directly (no cast at all).
// CHECK-LABEL: func.func @infer_after_allow
// CHECK: %[[MM:.*]] = linalg.matmul
// CHECK-NOT: arith.truncf %[[MM]]
// CHECK: linalg.generic {{.*}} ins(%[[MM]] : tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
func.func @infer_after_allow(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  %act = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.mulf %a, %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  return %act : tensor<4x8xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// Deny taints downstream: the exp generic is f32, and so is the infer op
// after it, although a matmul follows (grappler's deny propagation). The
// matmul still gets f16 inputs: the cast sits right after the infer op.
// CHECK-LABEL: func.func @deny_taints_downstream
// CHECK: %[[EXP:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: math.exp
// CHECK: %[[MUL:.*]] = linalg.generic {{.*}} ins(%[[EXP]] : tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: %[[MUL16:.*]] = arith.truncf %[[MUL]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: linalg.matmul ins(%[[MUL16]], %{{.*}} : tensor<4x8xf16>, tensor<8x8xf16>)
func.func @deny_taints_downstream(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %mul = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.mulf %a, %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mm = linalg.matmul ins(%mul, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %mm : tensor<4x8xf32>
}

// -----

// Clear ops follow low-precision neighbours both ways: the transpose of the
// weight (upstream of the matmul) and the reshape of its input (upstream)
// become f16; the cast moves to the argument, before the data movement.
// CHECK-LABEL: func.func @clear_follows
// CHECK-SAME: (%[[X:.*]]: tensor<32xf32>, %[[W:.*]]: tensor<8x4xf32>)
// CHECK-DAG: %[[W16:.*]] = arith.truncf %[[W]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-DAG: %[[X16:.*]] = arith.truncf %[[X]] : tensor<32xf32> to tensor<32xf16>
// CHECK: tensor.expand_shape %[[X16]] {{.*}} : tensor<32xf16> into tensor<4x8xf16>
// CHECK: linalg.transpose ins(%[[W16]] : tensor<8x4xf16>) outs(%{{.*}} : tensor<4x8xf16>)
// CHECK: linalg.matmul indexing_maps = {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<4x8xf16>)
func.func @clear_follows(%x: tensor<32xf32>, %w: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %x2 = tensor.expand_shape %x [[0, 1]] output_shape [4, 8] : tensor<32xf32> into tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %wt = linalg.transpose ins(%w : tensor<8x4xf32>) outs(%e : tensor<4x8xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x2, %wt : tensor<4x8xf32>, tensor<4x8xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %mm : tensor<4x4xf32>
}
