// A step with f16 and bf16 parameters, arguments and results:
//   loss = sum(f32(h)) + sum(f32(b)); dL/dh = dL/db = 1; p' = p - lr.
#id1 = affine_map<(i) -> (i)>
#sc1 = affine_map<(i) -> ()>

func.func @half_step(
    %h: tensor<4xf16> {mpt.role = "param"},
    %b: tensor<4xbf16> {mpt.role = "param"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"},
        tensor<4xf16> {mpt.updates = 0 : i64},
        tensor<4xbf16> {mpt.updates = 1 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id1, #id1, #sc1], iterator_types = ["reduction"]}
      ins(%h, %b : tensor<4xf16>, tensor<4xbf16>) outs(%z0 : tensor<f32>) {
  ^bb0(%x: f16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : f16 to f32
    %yf = arith.extf %y : bf16 to f32
    %s = arith.addf %xf, %yf : f32
    %t = arith.addf %s, %acc : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %eh = tensor.empty() : tensor<4xf16>
  %nh = linalg.generic {indexing_maps = [#id1, #sc1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%h, %seed, %lr : tensor<4xf16>, tensor<f32>, tensor<f32>) outs(%eh : tensor<4xf16>) {
  ^bb0(%p: f16, %g: f32, %r: f32, %o: f16):
    %pf = arith.extf %p : f16 to f32
    %d = arith.mulf %r, %g : f32
    %n = arith.subf %pf, %d : f32
    %n16 = arith.truncf %n : f32 to f16
    linalg.yield %n16 : f16
  } -> tensor<4xf16>
  %eb = tensor.empty() : tensor<4xbf16>
  %nb = linalg.generic {indexing_maps = [#id1, #sc1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%b, %seed, %lr : tensor<4xbf16>, tensor<f32>, tensor<f32>) outs(%eb : tensor<4xbf16>) {
  ^bb0(%p: bf16, %g: f32, %r: f32, %o: bf16):
    %pf = arith.extf %p : bf16 to f32
    %d = arith.mulf %r, %g : f32
    %n = arith.subf %pf, %d : f32
    %n16 = arith.truncf %n : f32 to bf16
    linalg.yield %n16 : bf16
  } -> tensor<4xbf16>
  return %loss, %nh, %nb : tensor<f32>, tensor<4xf16>, tensor<4xbf16>
}
