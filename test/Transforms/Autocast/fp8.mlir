// dtype=fp8: the contractions bf16 autocast would paint take FP8 operands
// (E4M3 forward; E5M2 for gradients with fp8-format=hybrid), each cast as
// f8(clamp(x * scale, -max, max)) from the f32 value, accumulate in f32 from
// zero and are divided by the product of their operands' scales; the
// scaling state is appended to the signature. docs/FP8.md.
// RUN: mpt-opt %s --split-input-file --mpt-autocast="dtype=fp8" | FileCheck %s --check-prefix=HYBRID
// RUN: mpt-opt %s --split-input-file --mpt-autocast="dtype=fp8 fp8-format=e4m3 amax-history-len=1 amax-compute=most_recent margin=2" | FileCheck %s --check-prefix=E4M3
// RUN: mpt-opt %s --split-input-file --mpt-mixed-precision="dtype=fp8 amax-history-len=16" | FileCheck %s --check-prefix=PIPE

#id = affine_map<(i, j) -> (i, j)>
#all = affine_map<(i, j) -> ()>

// loss = sum(x @ w); dw = x^T @ ones; w' = w - lr * dw.
// HYBRID-LABEL: func.func @linear
// HYBRID-SAME: %[[H:[a-z0-9]+]]: tensor<1024x3xf32> {mpt.initial_value = 0.000000e+00 : f32, mpt.role = "fp8_amax_history"}
// HYBRID-SAME: %[[S:[a-z0-9]+]]: tensor<3xf32> {mpt.initial_value = 1.000000e+00 : f32, mpt.role = "fp8_scale"}
// HYBRID-SAME: tensor<1024x3xf32> {mpt.updates = 3 : i64}, tensor<3xf32> {mpt.updates = 4 : i64})
// HYBRID-SAME: attributes {mpt.fp8 = "hybrid"}
// The forward matmul: x (tensor 0) and w (tensor 1) in E4M3, cast from
// the f32 arguments with their scales.
// HYBRID: %[[C1:.*]] = arith.constant 1 : index
// HYBRID-NEXT: %[[SW:.*]] = tensor.extract %[[S]][%[[C1]]]
// HYBRID: %[[QW:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<4x3xf32>) outs(%{{.*}} : tensor<4x3xf8E4M3FN>)
// HYBRID: arith.mulf %{{.*}}, %[[SW]] : f32
// HYBRID-NEXT: arith.maximumf %{{.*}}, %{{.*}} : f32
// HYBRID-NEXT: arith.minimumf
// HYBRID-NEXT: arith.truncf %{{.*}} : f32 to f8E4M3FN
// The amax: max |w|.
// HYBRID: ins(%arg0 : tensor<4x3xf32>) outs(%{{.*}} : tensor<f32>)
// HYBRID: arith.maxnumf
// HYBRID: %[[C0:.*]] = arith.constant 0 : index
// HYBRID-NEXT: %[[SX:.*]] = tensor.extract %[[S]][%[[C0]]]
// HYBRID: %[[QX:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<2x4xf32>) outs(%{{.*}} : tensor<2x4xf8E4M3FN>)
// HYBRID: %[[Y:.*]] = linalg.matmul ins(%[[QX]], %[[QW]] : tensor<2x4xf8E4M3FN>, tensor<4x3xf8E4M3FN>) outs(%{{.*}} : tensor<2x3xf32>)
// HYBRID-NEXT: %[[P:.*]] = arith.mulf %[[SX]], %[[SW]] : f32
// HYBRID: linalg.generic {{.*}} ins(%[[Y]] : tensor<2x3xf32>)
// HYBRID-NEXT: ^bb0
// HYBRID-NEXT: arith.divf %{{.*}}, %[[P]] : f32
// The backward matmul: x^T is the forward's FP8 x transposed (tensor 0,
// its scale), the loss gradient is E5M2 (tensor 2).
// HYBRID: mpt.grad_seed
// HYBRID: %[[C2:.*]] = arith.constant 2 : index
// HYBRID-NEXT: %[[SD:.*]] = tensor.extract %[[S]][%[[C2]]]
// HYBRID: %[[QD:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3xf8E5M2>)
// HYBRID: %[[QXT:.*]] = linalg.transpose ins(%[[QX]] : tensor<2x4xf8E4M3FN>) outs(%{{.*}} : tensor<4x2xf8E4M3FN>) permutation = [1, 0]
// HYBRID-NEXT: linalg.matmul ins(%[[QXT]], %[[QD]] : tensor<4x2xf8E4M3FN>, tensor<2x3xf8E5M2>) outs(%{{.*}} : tensor<4x3xf32>)
// HYBRID-NEXT: arith.mulf %[[SX]], %[[SD]] : f32
// The state update: this step's amaxes in row 0, the max over the history,
// the scales, the history rolled.
// HYBRID: %[[A:.*]] = tensor.from_elements {{.*}} : tensor<3xf32>
// HYBRID: %[[REC:.*]] = tensor.insert_slice %[[A]] into %[[H]][0, 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<1024x3xf32>
// HYBRID: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[REC]] : tensor<1024x3xf32>)
// HYBRID: arith.constant dense<[4.480000e+02, 4.480000e+02, 5.734400e+04]> : tensor<3xf32>
// HYBRID: arith.divf
// HYBRID-NEXT: arith.divf
// HYBRID-NEXT: arith.cmpf ogt
// HYBRID-NEXT: arith.cmpf olt
// HYBRID-NEXT: arith.andi
// HYBRID-NEXT: arith.select
// HYBRID: tensor.extract_slice %[[REC]][1, 0] [1023, 3] [1, 1]
// HYBRID: tensor.insert_slice %[[A]] into %{{.*}}[1023, 0] [1, 3] [1, 1]
// HYBRID: return

// E4M3-LABEL: func.func @linear
// E4M3-SAME: tensor<1x3xf32> {mpt.initial_value = 0.000000e+00 : f32, mpt.role = "fp8_amax_history"}
// E4M3-SAME: attributes {mpt.fp8 = "e4m3"}
// E4M3-NOT: f8E5M2
// E4M3-NOT: "reduction", "parallel"
// E4M3: arith.constant 4.000000e+00 : f32
// E4M3-NOT: f8E5M2
// E4M3: return

// PIPE-LABEL: func.func @linear
// PIPE-SAME: tensor<16x3xf32> {mpt.initial_value = 0.000000e+00 : f32, mpt.role = "fp8_amax_history"}
// PIPE-NOT: mpt.grad_seed
// PIPE-NOT: mpt.gradient
// PIPE: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x4xf8E4M3FN>, tensor<4x3xf8E4M3FN>)
// PIPE: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x2xf8E4M3FN>, tensor<2x3xf8E5M2>)
func.func @linear(%w: tensor<4x3xf32> {mpt.role = "param"},
                  %x: tensor<2x4xf32> {mpt.role = "data"},
                  %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4x3xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e23 = tensor.empty() : tensor<2x3xf32>
  %z23 = linalg.fill ins(%zero : f32) outs(%e23 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z23 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%y : tensor<2x3xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %dy = linalg.generic {indexing_maps = [#all, #id], iterator_types = ["parallel", "parallel"]}
      ins(%seed : tensor<f32>) outs(%e23 : tensor<2x3xf32>) {
  ^bb0(%s: f32, %o: f32):
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  %e42 = tensor.empty() : tensor<4x2xf32>
  %xt = linalg.transpose ins(%x : tensor<2x4xf32>) outs(%e42 : tensor<4x2xf32>) permutation = [1, 0]
  %e43 = tensor.empty() : tensor<4x3xf32>
  %z43 = linalg.fill ins(%zero : f32) outs(%e43 : tensor<4x3xf32>) -> tensor<4x3xf32>
  %dw = linalg.matmul ins(%xt, %dy : tensor<4x2xf32>, tensor<2x3xf32>) outs(%z43 : tensor<4x3xf32>) -> tensor<4x3xf32>
  %g = mpt.gradient %dw : tensor<4x3xf32>
  %nw = linalg.generic {indexing_maps = [#id, #id, #all, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g, %lr : tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>) outs(%e43 : tensor<4x3xf32>) {
  ^bb0(%a: f32, %b: f32, %l: f32, %o: f32):
    %m = arith.mulf %b, %l : f32
    %r = arith.subf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<4x3xf32>
  return %loss, %nw : tensor<f32>, tensor<4x3xf32>
}

// -----

// A contraction that accumulates into a nonzero init (a bias): the product
// accumulates from zero, is descaled, and the init is added after. A
// function without training markers gets the same rewrite and state.
// HYBRID-LABEL: func.func @bias_init
// HYBRID-SAME: %[[B:[a-z0-9]+]]: tensor<2x3xf32>
// HYBRID-SAME: tensor<1024x2xf32> {{.*}}"fp8_amax_history"
// HYBRID: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x3xf32>)
// HYBRID-NEXT: %[[M:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x4xf8E4M3FN>, tensor<4x3xf8E4M3FN>) outs(%[[Z]] : tensor<2x3xf32>)
// HYBRID: linalg.generic {{.*}} ins(%[[M]], %[[B]] : tensor<2x3xf32>, tensor<2x3xf32>)
// HYBRID-NEXT: ^bb0(%[[IN:.*]]: f32, %[[INIT:.*]]: f32, %{{.*}}: f32):
// HYBRID-NEXT: %[[D:.*]] = arith.divf %[[IN]], %{{.*}} : f32
// HYBRID-NEXT: arith.addf %[[INIT]], %[[D]] : f32
func.func @bias_init(%x: tensor<2x4xf32>, %w: tensor<4x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%b : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
