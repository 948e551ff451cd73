// dtype=mxfp8 / mxfp4 on bad input: one located error each, no output.
// RUN: mpt-opt %s --split-input-file --verify-diagnostics --mpt-autocast="dtype=mxfp4 mx-backward=mxfp4 mx-pad=false"
// RUN: mpt-opt %s --split-input-file --verify-diagnostics --mpt-mixed-precision="dtype=mxfp4 mx-backward=mxfp4 mx-pad=false"

#id = affine_map<(i) -> (i)>
#sc = affine_map<(i) -> ()>

// A step without a contraction: nothing would take MX operands.
// expected-error @+1 {{dtype=mxfp4: no contraction of this step can take MX operands (a linalg contraction with one reduction dimension that autocast puts in low precision, with two inputs and static shapes, outside loops); use dtype=bf16}}
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

// mx-pad=false: a reduction dimension of 40 is not whole blocks.
func.func @not_whole_blocks(%x: tensor<2x40xf32>, %w: tensor<40x3xf32>) -> tensor<2x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-error @+1 {{mx-pad=false: reduction dimension of size 40 (operand 0) is not a multiple of the MX block size 32}}
  %y = linalg.matmul ins(%x, %w : tensor<2x40xf32>, tensor<40x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// mx-backward=mxfp4: the backward matmul (dw = x^T dy) would read
// gradients in MXFP4. Every reduction dimension is whole blocks.
#id2 = affine_map<(i, j) -> (i, j)>
#all = affine_map<(i, j) -> ()>
func.func @fp4_gradients(%w: tensor<32x32xf32> {mpt.role = "param"},
                         %x: tensor<32x32xf32> {mpt.role = "data"},
                         %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<32x32xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %y = linalg.matmul ins(%x, %w : tensor<32x32xf32>, tensor<32x32xf32>) outs(%z : tensor<32x32xf32>) -> tensor<32x32xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id2, #all], iterator_types = ["reduction", "reduction"]}
      ins(%y : tensor<32x32xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %dy = linalg.generic {indexing_maps = [#all, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%seed : tensor<f32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%s: f32, %o: f32):
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  %xt = linalg.transpose ins(%x : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) permutation = [1, 0]
  // expected-error @+1 {{mx-backward=mxfp4: the operands of a backward contraction (gradients) cannot be MXFP4; use mx-backward=mxfp8 or bf16 (MXFP4 training recipes keep the backward in MXFP8 or bf16)}}
  %dw = linalg.matmul ins(%xt, %dy : tensor<32x32xf32>, tensor<32x32xf32>) outs(%z : tensor<32x32xf32>) -> tensor<32x32xf32>
  %g = mpt.gradient %dw : tensor<32x32xf32>
  %nw = linalg.generic {indexing_maps = [#id2, #id2, #all, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g, %lr : tensor<32x32xf32>, tensor<32x32xf32>, tensor<f32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%a: f32, %b: f32, %l: f32, %o: f32):
    %m = arith.mulf %b, %l : f32
    %r = arith.subf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<32x32xf32>
  return %loss, %nw : tensor<f32>, tensor<32x32xf32>
}

// -----

// A step that already has MX operands (autocast with an MX dtype twice).
// expected-error @+1 {{the step already has MX operands ('mpt.mx'): run autocast with dtype=mxfp4 once, on the FP32 step}}
func.func @twice(%x: tensor<2x32xf32>, %w: tensor<32x3xf32>) -> tensor<2x3xf32> attributes {mpt.mx = "mxfp8"} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x32xf32>, tensor<32x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// An empty batch: every contraction has an empty operand (the weight
// gradient's K is 0), which has nothing to scale; the rewrite built an
// extract_slice out of bounds of an empty tensor. None is a candidate.
// expected-error @+1 {{no contraction of this step can take MX operands}}
func.func @empty_batch(%w: tensor<4x3xf32> {mpt.role = "param"}, %x: tensor<0x4xf32> {mpt.role = "data"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4x3xf32> {mpt.updates = 0 : i64}) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<0x3xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<0x3xf32>) -> tensor<0x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<0x4xf32>, tensor<4x3xf32>) outs(%z : tensor<0x3xf32>) -> tensor<0x3xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce { arith.addf } ins(%y : tensor<0x3xf32>) outs(%z0 : tensor<f32>) dimensions = [0, 1]
  %seed = mpt.grad_seed %loss : tensor<f32>
  %dy = linalg.broadcast ins(%seed : tensor<f32>) outs(%e : tensor<0x3xf32>) dimensions = [0, 1]
  %ew = tensor.empty() : tensor<4x3xf32>
  %zw = linalg.fill ins(%c0 : f32) outs(%ew : tensor<4x3xf32>) -> tensor<4x3xf32>
  %dw = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
       ins(%x, %dy : tensor<0x4xf32>, tensor<0x3xf32>) outs(%zw : tensor<4x3xf32>) -> tensor<4x3xf32>
  %gw = mpt.gradient %dw : tensor<4x3xf32>
  %nw = linalg.sub ins(%w, %gw : tensor<4x3xf32>, tensor<4x3xf32>) outs(%ew : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %loss, %nw : tensor<f32>, tensor<4x3xf32>
}
