// dtype=fp8 on bad input: one located error each, no output.
// RUN: mpt-opt %s --split-input-file --verify-diagnostics --mpt-autocast="dtype=fp8"

#id = affine_map<(i) -> (i)>
#sc = affine_map<(i) -> ()>

// A step without a contraction: nothing would take FP8.
// expected-error @+1 {{dtype=fp8: no contraction of this step can take FP8 operands (a linalg contraction or convolution that autocast puts in low precision, with two inputs and static shapes, outside loops); use dtype=bf16}}
func.func @no_contraction(%w: tensor<4xf32> {mpt.role = "param"},
                          %x: tensor<4xf32> {mpt.role = "data"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %e4 = tensor.empty() : tensor<4xf32>
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%w, %x : tensor<4xf32>, tensor<4xf32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %loss = linalg.generic {indexing_maps = [#id, #sc], iterator_types = ["reduction"]}
      ins(%p : tensor<4xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %dw = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel"]}
      ins(%x, %seed : tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %m = arith.mulf %a, %s : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %g = mpt.gradient %dw : tensor<4xf32>
  %nw = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%w, %g : tensor<4xf32>, tensor<4xf32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %loss, %nw : tensor<f32>, tensor<4xf32>
}

// -----

// A step that already has FP8 scaling (autocast with dtype=fp8 twice).
// expected-error @+1 {{the step already has FP8 scaling ('mpt.fp8'): run autocast with dtype=fp8 once, on the FP32 step}}
func.func @twice(%x: tensor<2x4xf32>, %w: tensor<4x3xf32>) -> tensor<2x3xf32> attributes {mpt.fp8 = "hybrid"} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// The state arguments' types are part of the contract.
// expected-error @+1 {{argument #1: an "fp8_scale" argument must be a non-empty static tensor<Nxf32>, got 'tensor<2x2xf32>'}}
func.func @bad_scale(%x: tensor<2xf32> {mpt.role = "data"},
                     %s: tensor<2x2xf32> {mpt.role = "fp8_scale"}) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{argument #0: an "fp8_amax_history" argument must be a non-empty static tensor<LxNxf32>, got 'tensor<0x4xf32>'}}
func.func @bad_history(%h: tensor<0x4xf32> {mpt.role = "fp8_amax_history"}) -> tensor<0x4xf32> {
  return %h : tensor<0x4xf32>
}

// -----

// A private helper the step calls is not a step: FP8 state (arguments and
// results) cannot reach it without rewriting its callers. Its matmul stays
// bf16 with a warning; the pass had appended the state arguments to the
// helper and left the call with too few operands (invalid IR).
// expected-warning @+1 {{dtype=fp8: @helper_forward is a private function and not a training step (no mpt.grad_seed), so its 1 contraction(s) stay bf16: FP8 scaling state is arguments and results of the step; inline the function into the step (--inline) to give them FP8 operands}}
func.func private @helper_forward(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %y = linalg.matmul ins(%x, %w : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}
func.func @calls_helper(%W: tensor<16x16xf32> {mpt.role = "param"}, %x: tensor<16x16xf32> {mpt.role = "data"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<16x16xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %y = func.call @helper_forward(%x, %W) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce ins(%y : tensor<16x16xf32>) outs(%z0 : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %acc: f32) {
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
  %seed = mpt.grad_seed %loss : tensor<f32>
  %e = tensor.empty() : tensor<16x16xf32>
  %g0 = linalg.broadcast ins(%seed : tensor<f32>) outs(%e : tensor<16x16xf32>) dimensions = [0, 1]
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %dW = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %g0 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  %g = mpt.gradient %dW : tensor<16x16xf32>
  %n = linalg.sub ins(%W, %g : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %loss, %n : tensor<f32>, tensor<16x16xf32>
}

// -----

// A step written in bf16, its matmuls accumulating in bf16: the FP8
// rewrite accumulates in f32 and built an invalid arith.mulf (f8 x f8 ->
// bf16) with no location. Such a contraction is not a candidate: the step
// has none.
// expected-error @+1 {{dtype=fp8: no contraction of this step can take FP8 operands}}
func.func @bf16_accumulator(%w: tensor<4x2xbf16> {mpt.role = "param"}, %x: tensor<8x4xbf16> {mpt.role = "data"})
    -> (tensor<bf16> {mpt.role = "loss"}, tensor<4x2xbf16> {mpt.updates = 0 : i64}) {
  %c0 = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<8x2xbf16>
  %z = linalg.fill ins(%c0 : bf16) outs(%e : tensor<8x2xbf16>) -> tensor<8x2xbf16>
  %y = linalg.matmul ins(%x, %w : tensor<8x4xbf16>, tensor<4x2xbf16>) outs(%z : tensor<8x2xbf16>) -> tensor<8x2xbf16>
  %e0 = tensor.empty() : tensor<bf16>
  %z0 = linalg.fill ins(%c0 : bf16) outs(%e0 : tensor<bf16>) -> tensor<bf16>
  %loss = linalg.reduce { arith.addf } ins(%y : tensor<8x2xbf16>) outs(%z0 : tensor<bf16>) dimensions = [0, 1]
  %seed = mpt.grad_seed %loss : tensor<bf16>
  %dy = linalg.broadcast ins(%seed : tensor<bf16>) outs(%e : tensor<8x2xbf16>) dimensions = [0, 1]
  %ew = tensor.empty() : tensor<4x2xbf16>
  %zw = linalg.fill ins(%c0 : bf16) outs(%ew : tensor<4x2xbf16>) -> tensor<4x2xbf16>
  %dw = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
       ins(%x, %dy : tensor<8x4xbf16>, tensor<8x2xbf16>) outs(%zw : tensor<4x2xbf16>) -> tensor<4x2xbf16>
  %gw = mpt.gradient %dw : tensor<4x2xbf16>
  %nw = linalg.sub ins(%w, %gw : tensor<4x2xbf16>, tensor<4x2xbf16>) outs(%ew : tensor<4x2xbf16>) -> tensor<4x2xbf16>
  return %loss, %nw : tensor<bf16>, tensor<4x2xbf16>
}
