// A step of 65536-element ops (above --mpt-vectorize-cpu-loops' parallel-min
// of 32768), so that on two threads they run as OpenMP regions
// (test/mpt-run/omp-regions.test):
//   h = w * w        loss = sum(h)        w' = w - lr * 2 w * seed
#id1 = affine_map<(i) -> (i)>
#sc1 = affine_map<(i) -> ()>

func.func @step(
    %w: tensor<65536xf32> {mpt.role = "param"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"},
        tensor<65536xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<65536xf32>
  %h = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%w : tensor<65536xf32>) outs(%e : tensor<65536xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.mulf %a, %a : f32
    linalg.yield %p : f32
  } -> tensor<65536xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id1, #sc1], iterator_types = ["reduction"]}
      ins(%h : tensor<65536xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %eg = tensor.empty() : tensor<65536xf32>
  %dw = linalg.generic {indexing_maps = [#id1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%w, %seed : tensor<65536xf32>, tensor<f32>) outs(%eg : tensor<65536xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %p = arith.mulf %a, %two : f32
    %g = arith.mulf %p, %s : f32
    linalg.yield %g : f32
  } -> tensor<65536xf32>
  %g = mpt.gradient %dw : tensor<65536xf32>
  %ew = tensor.empty() : tensor<65536xf32>
  %nw = linalg.generic {indexing_maps = [#id1, #id1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%w, %g, %lr : tensor<65536xf32>, tensor<65536xf32>, tensor<f32>) outs(%ew : tensor<65536xf32>) {
  ^bb0(%p: f32, %d: f32, %r: f32, %o: f32):
    %s = arith.mulf %r, %d : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<65536xf32>
  return %loss, %nw : tensor<f32>, tensor<65536xf32>
}
