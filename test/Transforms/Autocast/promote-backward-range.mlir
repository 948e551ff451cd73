// In f16, a gradient kept f32 for range (promote-backward.mlir), and what f32
// ops compute from it, is not rounded to f16 where it meets f16 gradients:
// the sum of the two stays f32, as PyTorch sums a tensor's gradients in its
// f32 type. It was painted f16 (it only adds, and the kept gradient voted
// neutral), so a pre-norm nn.Transformer's residual gradient (the layer
// norm's backward, 316x its input's gradient on a zero padding embedding)
// overflowed at a loss scale GradScaler keeps. In bf16 the sum follows its
// inputs (f32's range).
// RUN: mpt-opt %s --mpt-precision-report=dtype=f16 -o /dev/null 2>&1 | FileCheck %s --check-prefix=F16
// RUN: mpt-opt %s --mpt-precision-report=dtype=bf16 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BF16

// F16-LABEL: mpt precision report: @summed_gradients_step
// F16: range.mlir:51:9 linalg.matmul [backward] f16: allow
// F16: range.mlir:52:10 linalg.generic [backward] f32: infer {{.*}} promote: an f16 backward op that reads no low forward value runs in f32 (range)
// F16: range.mlir:58:11 linalg.generic [backward] f32: infer {{.*}} promote: no full-size input to follow: stays f32
// F16: range.mlir:64:10 linalg.generic [backward] f32: infer {{.*}} promote: reads a gradient kept f32 for range (linalg.generic at {{.*}}range.mlir:58:11) with f16 ones: stays f32
// BF16-LABEL: mpt precision report: @summed_gradients_step
// BF16: range.mlir:64:10 linalg.generic [backward] bf16: infer {{.*}} promote: its full-size inputs are bf16

#id2 = affine_map<(i, j) -> (i, j)>
#sc2 = affine_map<(i, j) -> ()>

func.func @summed_gradients_step(
    %w: tensor<4x8xf32> {mpt.role = "param"},
    %x: tensor<2x4xf32> {mpt.role = "data"},
    %xt: tensor<4x2xf32> {mpt.role = "data"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4x8xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %three = arith.constant 3.0 : f32
  %e = tensor.empty() : tensor<2x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %h = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x8xf32>) outs(%acc : tensor<2x8xf32>) -> tensor<2x8xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id2, #sc2], iterator_types = ["reduction", "reduction"]}
      ins(%h : tensor<2x8xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %dh = linalg.generic {indexing_maps = [#sc2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%seed : tensor<f32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%g: f32, %o: f32):
    linalg.yield %g : f32
  } -> tensor<2x8xf32>
  %ew = tensor.empty() : tensor<4x8xf32>
  %zw = linalg.fill ins(%zero : f32) outs(%ew : tensor<4x8xf32>) -> tensor<4x8xf32>
  %dw = linalg.matmul ins(%xt, %dh : tensor<4x2xf32>, tensor<2x8xf32>) outs(%zw : tensor<4x8xf32>) -> tensor<4x8xf32>
  %dws = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%dw : tensor<4x8xf32>) outs(%ew : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %half : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %dws3 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%dws : tensor<4x8xf32>) outs(%ew : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %three : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%dws3, %dw : tensor<4x8xf32>, tensor<4x8xf32>) outs(%ew : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %g = mpt.gradient %sum : tensor<4x8xf32>
  %new = linalg.generic {indexing_maps = [#id2, #id2, #sc2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g, %lr : tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>) outs(%ew : tensor<4x8xf32>) {
  ^bb0(%p: f32, %gg: f32, %r: f32, %o: f32):
    %s = arith.mulf %r, %gg : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<4x8xf32>
  return %loss, %new : tensor<f32>, tensor<4x8xf32>
}
