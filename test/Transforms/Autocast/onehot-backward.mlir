// In f16, a contraction with a one-hot operand in the backward (the
// importer's embedding gradient: onehot(ids)^T @ grad) stays f32: it sums
// gradient rows, which PyTorch runs in the gradient's type (the embedding
// backward is not autocast), and the gradient it reads can exceed f16's
// range under the loss scale (f16-padding-gradients.test). The forward
// contraction and, in bf16 (f32's range), the backward one stay low.
// RUN: mpt-opt %s --mpt-precision-report=dtype=f16 -o /dev/null 2>&1 | FileCheck %s --check-prefix=F16
// RUN: mpt-opt %s --mpt-precision-report=dtype=bf16 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BF16

// F16-LABEL: mpt precision report: @embedding_step
// F16: backward.mlir:31:{{[0-9]+}} linalg.matmul [forward] f16: allow
// F16: backward.mlir:58:{{[0-9]+}} linalg.matmul [backward] f32: range: a one-hot contraction in the backward (an embedding or index gradient
// BF16-LABEL: mpt precision report: @embedding_step
// BF16: backward.mlir:58:{{[0-9]+}} linalg.matmul [backward] bf16: allow

#id2 = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (i, 0)>
#row = affine_map<(i, j) -> (j)>
#sc2 = affine_map<(i, j) -> ()>

func.func @embedding_step(
    %table: tensor<8x4xf32> {mpt.role = "param"},
    %ids: tensor<6x1xi64> {mpt.role = "data"},
    %x: tensor<6x8xf32> {mpt.role = "data"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<8x4xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %vocab = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : tensor<8xi64>
  %e = tensor.empty() : tensor<6x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<6x4xf32>) -> tensor<6x4xf32>
  %h = linalg.matmul ins(%x, %table : tensor<6x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<6x4xf32>) -> tensor<6x4xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id2, #sc2], iterator_types = ["reduction", "reduction"]}
      ins(%h : tensor<6x4xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %dh = linalg.generic {indexing_maps = [#sc2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%seed : tensor<f32>) outs(%e : tensor<6x4xf32>) {
  ^bb0(%g: f32, %o: f32):
    linalg.yield %g : f32
  } -> tensor<6x4xf32>
  %eh = tensor.empty() : tensor<6x8xf32>
  %onehot = linalg.generic {indexing_maps = [#col, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ids, %vocab : tensor<6x1xi64>, tensor<8xi64>) outs(%eh : tensor<6x8xf32>) {
  ^bb0(%i: i64, %v: i64, %o: f32):
    %eq = arith.cmpi eq, %i, %v : i64
    %f = arith.uitofp %eq : i1 to f32
    linalg.yield %f : f32
  } -> tensor<6x8xf32>
  %et = tensor.empty() : tensor<8x6xf32>
  %onehot_t = linalg.transpose ins(%onehot : tensor<6x8xf32>) outs(%et : tensor<8x6xf32>) permutation = [1, 0]
  %ew = tensor.empty() : tensor<8x4xf32>
  %zw = linalg.fill ins(%zero : f32) outs(%ew : tensor<8x4xf32>) -> tensor<8x4xf32>
  %dt = linalg.matmul ins(%onehot_t, %dh : tensor<8x6xf32>, tensor<6x4xf32>) outs(%zw : tensor<8x4xf32>) -> tensor<8x4xf32>
  %g = mpt.gradient %dt : tensor<8x4xf32>
  %new = linalg.generic {indexing_maps = [#id2, #id2, #sc2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%table, %g, %lr : tensor<8x4xf32>, tensor<8x4xf32>, tensor<f32>) outs(%ew : tensor<8x4xf32>) {
  ^bb0(%p: f32, %gg: f32, %r: f32, %o: f32):
    %s = arith.mulf %r, %gg : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<8x4xf32>
  return %loss, %new : tensor<f32>, tensor<8x4xf32>
}
