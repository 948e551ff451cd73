// RUN: mpt-opt %s --split-input-file --mpt-test-training-graph --verify-diagnostics -o /dev/null

// Forward computes the loss; backward starts at the seed and ends at the
// gradient markers; the update computes the mpt.updates results. A transposed
// weight that only the backward reads is backward; the learning-rate product
// that only the update reads is update.
#id = affine_map<(i, j) -> (i, j)>
#s = affine_map<(i, j) -> ()>
func.func @linear_regression(%w: tensor<4x2xf32> {mpt.role = "param"},
                             %x: tensor<3x4xf32> {mpt.role = "data"},
                             %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4x2xf32> {mpt.updates = 0 : i64}) {
  // expected-remark @+1 {{forward}}
  %zero = arith.constant 0.0 : f32
  // expected-remark @+1 {{forward}}
  %e = tensor.empty() : tensor<3x2xf32>
  // expected-remark @+1 {{forward}}
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  // expected-remark @+1 {{forward}}
  %y = linalg.matmul ins(%x, %w : tensor<3x4xf32>, tensor<4x2xf32>) outs(%z : tensor<3x2xf32>) -> tensor<3x2xf32>
  // expected-remark @+1 {{forward}}
  %e0 = tensor.empty() : tensor<f32>
  // expected-remark @+1 {{forward}}
  %loss = linalg.generic {indexing_maps = [#id, #s], iterator_types = ["reduction", "reduction"]}
      ins(%y : tensor<3x2xf32>) outs(%e0 : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %r = arith.addf %sq, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  // expected-remark @+1 {{backward}}
  %seed = mpt.grad_seed %loss : tensor<f32>
  // expected-remark @+1 {{backward}}
  %dy = linalg.generic {indexing_maps = [#id, #s, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %seed : tensor<3x2xf32>, tensor<f32>) outs(%e : tensor<3x2xf32>) {
  ^bb0(%a: f32, %g: f32, %o: f32):
    %two = arith.addf %a, %a : f32
    %r = arith.mulf %two, %g : f32
    linalg.yield %r : f32
  } -> tensor<3x2xf32>
  // expected-remark @+1 {{backward}}
  %ex = tensor.empty() : tensor<4x3xf32>
  // expected-remark @+1 {{backward}}
  %xT = linalg.transpose ins(%x : tensor<3x4xf32>) outs(%ex : tensor<4x3xf32>) permutation = [1, 0]
  // expected-remark @+1 {{backward}}
  %ew = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{backward}}
  %zw = linalg.fill ins(%zero : f32) outs(%ew : tensor<4x2xf32>) -> tensor<4x2xf32>
  // expected-remark @+1 {{backward}}
  %dw = linalg.matmul ins(%xT, %dy : tensor<4x3xf32>, tensor<3x2xf32>) outs(%zw : tensor<4x2xf32>) -> tensor<4x2xf32>
  // expected-remark @+1 {{backward}}
  %gw = mpt.gradient %dw : tensor<4x2xf32>
  // expected-remark @+1 {{update}}
  %eu = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{update}}
  %nw = linalg.generic {indexing_maps = [#id, #id, #s, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %gw, %lr : tensor<4x2xf32>, tensor<4x2xf32>, tensor<f32>) outs(%eu : tensor<4x2xf32>) {
  ^bb0(%p: f32, %g: f32, %r: f32, %o: f32):
    %d = arith.mulf %r, %g : f32
    %n = arith.subf %p, %d : f32
    linalg.yield %n : f32
  } -> tensor<4x2xf32>
  // Computed but returned nowhere.
  // expected-remark @+1 {{unused}}
  %dead = arith.addf %lr, %lr : tensor<f32>
  return %loss, %nw : tensor<f32>, tensor<4x2xf32>
}

// -----

// The seed can come in as a "loss_grad" argument; momentum decay, which reads
// only optimizer state and hyperparameters, is update.
func.func @momentum_with_loss_grad_argument(
    %w: tensor<4xf32> {mpt.role = "param"},
    %m: tensor<4xf32> {mpt.role = "optimizer_state"},
    %x: tensor<4xf32> {mpt.role = "data"},
    %dl: tensor<4xf32> {mpt.role = "loss_grad"},
    %beta: tensor<4xf32> {mpt.role = "hyperparameter"})
    -> (tensor<4xf32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64},
        tensor<4xf32> {mpt.updates = 1 : i64}) {
  // expected-remark @+1 {{forward}}
  %loss = arith.mulf %w, %x : tensor<4xf32>
  // expected-remark @+1 {{backward}}
  %dw = arith.mulf %dl, %x : tensor<4xf32>
  // expected-remark @+1 {{backward}}
  %g = mpt.gradient %dw : tensor<4xf32>
  // expected-remark @+1 {{update}}
  %decay = arith.mulf %m, %beta : tensor<4xf32>
  // expected-remark @+1 {{update}}
  %m2 = arith.addf %decay, %g : tensor<4xf32>
  // expected-remark @+1 {{update}}
  %w2 = arith.subf %w, %m2 : tensor<4xf32>
  return %loss, %w2, %m2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Gradient accumulation: the forward and backward of each micro-batch run
// inside an scf.for; the ops in the loop are classified one by one, the loop
// itself (it carries the gradient accumulator) is backward, and the zeros the
// accumulator starts from serve only the backward.
func.func @gradient_accumulation(%w: tensor<4xf32> {mpt.role = "param"},
                                 %x: tensor<4xf32> {mpt.role = "data"})
    -> (tensor<4xf32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  // expected-remark @+1 {{forward}}
  %c0 = arith.constant 0 : index
  // expected-remark @+1 {{forward}}
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{forward}}
  %c4 = arith.constant 4 : index
  // expected-remark @+1 {{forward}}
  %l0 = arith.constant dense<0.0> : tensor<4xf32>
  // expected-remark @+1 {{backward}}
  %g0 = arith.constant dense<0.0> : tensor<4xf32>
  // expected-remark @+1 {{backward}}
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%lacc = %l0, %gacc = %g0) -> (tensor<4xf32>, tensor<4xf32>) {
    // expected-remark @+1 {{forward}}
    %l = arith.mulf %w, %x : tensor<4xf32>
    // expected-remark @+1 {{forward}}
    %lsum = arith.addf %lacc, %l : tensor<4xf32>
    // expected-remark @+1 {{backward}}
    %seed = mpt.grad_seed %l : tensor<4xf32>
    // expected-remark @+1 {{backward}}
    %dw = arith.mulf %seed, %x : tensor<4xf32>
    // expected-remark @+1 {{backward}}
    %gsum = arith.addf %gacc, %dw : tensor<4xf32>
    scf.yield %lsum, %gsum : tensor<4xf32>, tensor<4xf32>
  }
  // expected-remark @+1 {{backward}}
  %g = mpt.gradient %r#1 : tensor<4xf32>
  // expected-remark @+1 {{update}}
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %r#0, %w2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Without training markers (an inference function) every op is forward.
func.func @no_markers(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-remark @+1 {{forward}}
  %y = arith.mulf %x, %x : tensor<4xf32>
  // expected-remark @+1 {{forward}}
  %unused = arith.addf %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
