// A step whose gradients fall below f16's smallest subnormal (2^-24) when
// its backward pass runs in f16, with a static loss scale SCALE (the RUN
// lines substitute it) applied to the seed in FP32 and removed from the
// gradient in FP32, as loss scaling does:
//   loss = 2^-14 * sum(w * x)             (FP32; x = 2^-12 in the tests)
//   dy   = f16(seed * 2^-14 * SCALE)      (the scaled upstream gradient)
//   g16  = dy * f16(x)                    (f16 multiply: 2^-26 * SCALE)
//   g    = f32(g16) / SCALE               (FP32 unscale)
//   w'   = w - lr * g
// With SCALE = 1, g16 = 2^-26 rounds to 0 in f16: every gradient is lost.
// With SCALE = 65536, g16 = 2^-10 is exact and g = 2^-26 survives.

#id1 = affine_map<(i) -> (i)>
#sc1 = affine_map<(i) -> ()>

func.func @underflow_step(
    %w: tensor<16xf32> {mpt.role = "param"},
    %x: tensor<16xf32> {mpt.role = "data"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<16xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %weight = arith.constant 6.103515625e-05 : f32  // 2^-14
  %scale = arith.constant SCALE : f32
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id1, #id1, #sc1], iterator_types = ["reduction"]}
      ins(%w, %x : tensor<16xf32>, tensor<16xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.mulf %p, %weight : f32
    %s = arith.addf %q, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %e16 = tensor.empty() : tensor<16xf32>
  %g = linalg.generic {indexing_maps = [#id1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%x, %seed : tensor<16xf32>, tensor<f32>) outs(%e16 : tensor<16xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %sw = arith.mulf %s, %weight : f32
    %dy32 = arith.mulf %sw, %scale : f32
    %dy = arith.truncf %dy32 : f32 to f16
    %x16 = arith.truncf %a : f32 to f16
    %g16 = arith.mulf %dy, %x16 : f16
    %gf = arith.extf %g16 : f16 to f32
    %un = arith.divf %gf, %scale : f32
    linalg.yield %un : f32
  } -> tensor<16xf32>
  %gw = mpt.gradient %g : tensor<16xf32>
  %nw = linalg.generic {indexing_maps = [#id1, #id1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%w, %gw, %lr : tensor<16xf32>, tensor<16xf32>, tensor<f32>) outs(%e16 : tensor<16xf32>) {
  ^bb0(%p: f32, %gv: f32, %r: f32, %o: f32):
    %d = arith.mulf %r, %gv : f32
    %n = arith.subf %p, %d : f32
    linalg.yield %n : f32
  } -> tensor<16xf32>
  return %loss, %nw : tensor<f32>, tensor<16xf32>
}
