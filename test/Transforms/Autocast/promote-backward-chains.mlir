// What is promoted in f16 all the same. In the backward of a low forward op
// (here a = h * h), an op that reads what such an op computed (u reads t,
// which reads the low forward h) runs in the forward's type too: a
// decomposed batch norm's backward is a chain of such ops, one PyTorch
// kernel in the forward's type. And an op that only adds gradients (v, the
// gradient of a value used twice) needs no more range than its inputs: it
// follows them, as PyTorch accumulates gradients in their tensor's type.
// (loss-region=0: the ops after the last contraction would stay f32 as the
// loss region, and this small step has little else.)
// RUN: mpt-opt %s --mpt-precision-report="dtype=f16 loss-region=0" -o /dev/null 2>&1 | FileCheck %s
// CHECK-LABEL: mpt precision report: @low_forward_backward_step
// CHECK: linalg.matmul [backward] f16: allow
// CHECK-NEXT: {{.*}}:[[# @LINE + 53]]:{{.*}} linalg.generic [backward] f16: infer {{.*}} promote: its full-size inputs are f16
// CHECK-NEXT: {{.*}}:[[# @LINE + 58]]:{{.*}} linalg.generic [backward] f16: infer {{.*}} promote: its full-size inputs are f16
// CHECK-NEXT: {{.*}}:[[# @LINE + 64]]:{{.*}} linalg.generic [backward] f16: infer {{.*}} promote: its full-size inputs are f16
// CHECK-NOT: reads no low forward value

#id2 = affine_map<(i, j) -> (i, j)>
#sc2 = affine_map<(i, j) -> ()>
#col2 = affine_map<(i, j) -> (j)>
#id1 = affine_map<(i) -> (i)>
#sc1 = affine_map<(i) -> ()>

func.func @low_forward_backward_step(
    %b: tensor<8xf32> {mpt.role = "param"},
    %w: tensor<4x8xf32> {mpt.role = "data"},
    %w2: tensor<8x8xf32> {mpt.role = "data"},
    %w2t: tensor<8x8xf32> {mpt.role = "data"},
    %x: tensor<2x4xf32> {mpt.role = "data"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<8xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<2x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %h = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x8xf32>) outs(%acc : tensor<2x8xf32>) -> tensor<2x8xf32>
  %hb = linalg.generic {indexing_maps = [#id2, #col2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%h, %b : tensor<2x8xf32>, tensor<8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.addf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %a = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%hb : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %v : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %y = linalg.matmul ins(%a, %w2 : tensor<2x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<2x8xf32>) -> tensor<2x8xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id2, #sc2], iterator_types = ["reduction", "reduction"]}
      ins(%y : tensor<2x8xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%v: f32, %s: f32):
    %r = arith.addf %v, %s : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %dy = linalg.generic {indexing_maps = [#sc2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%seed : tensor<f32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%g: f32, %o: f32):
    linalg.yield %g : f32
  } -> tensor<2x8xf32>
  %da = linalg.matmul ins(%dy, %w2t : tensor<2x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<2x8xf32>) -> tensor<2x8xf32>
  // t: the backward of a = hb * hb reads the low forward hb.
  %t = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%da, %hb : tensor<2x8xf32>, tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %u = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = arith.addf %p, %p : f32
    %s = arith.mulf %r, %half : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %v = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%da, %da : tensor<2x8xf32>, tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.addf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %dh = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%u, %v : tensor<2x8xf32>, tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.addf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %e8 = tensor.empty() : tensor<8xf32>
  %z8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %db = linalg.generic {indexing_maps = [#id2, #col2], iterator_types = ["reduction", "parallel"]}
      ins(%dh : tensor<2x8xf32>) outs(%z8 : tensor<8xf32>) {
  ^bb0(%p: f32, %s: f32):
    %r = arith.addf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %g = mpt.gradient %db : tensor<8xf32>
  %new = linalg.generic {indexing_maps = [#id1, #id1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%b, %g, %lr : tensor<8xf32>, tensor<8xf32>, tensor<f32>) outs(%e8 : tensor<8xf32>) {
  ^bb0(%p: f32, %gg: f32, %r: f32, %o: f32):
    %s = arith.mulf %r, %gg : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<8xf32>
  return %loss, %new : tensor<f32>, tensor<8xf32>
}
