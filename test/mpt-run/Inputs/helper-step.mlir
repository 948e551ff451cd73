// A step that calls helper functions (a user's code split into functions):
// mpt-run compiles the step and every function it calls, directly or not.
//   loss = dot(w, x) (through @dot, which calls @mul); dL/dw = x; w' = w - lr x
#id1 = affine_map<(i) -> (i)>
#sc1 = affine_map<(i) -> ()>

func.func private @mul(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %p = arith.mulf %a, %b : tensor<4xf32>
  return %p : tensor<4xf32>
}

func.func @dot(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %p = func.call @mul(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.reduce ins(%p : tensor<4xf32>) outs(%z0 : tensor<f32>) dimensions = [0]
    (%v: f32, %acc: f32) {
      %t = arith.addf %v, %acc : f32
      linalg.yield %t : f32
    }
  return %s : tensor<f32>
}

// Not called by the step: mpt-run leaves it out.
func.func @unused(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

func.func @helper_step(
    %w: tensor<4xf32> {mpt.role = "param"},
    %x: tensor<4xf32> {mpt.role = "data"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %loss = func.call @dot(%w, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %e4 = tensor.empty() : tensor<4xf32>
  %dw = linalg.generic {indexing_maps = [#id1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%x, %seed : tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %g = arith.mulf %a, %s : f32
    linalg.yield %g : f32
  } -> tensor<4xf32>
  %g = mpt.gradient %dw : tensor<4xf32>
  %nw = linalg.generic {indexing_maps = [#id1, #id1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%w, %g, %lr : tensor<4xf32>, tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%p: f32, %d: f32, %r: f32, %o: f32):
    %s = arith.mulf %r, %d : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %loss, %nw : tensor<f32>, tensor<4xf32>
}
