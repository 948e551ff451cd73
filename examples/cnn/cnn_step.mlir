// One SGD training step of a small CNN classifier, written to mpt's
// training-graph contract (docs/TrainingGraphContract.md):
//   a      = relu(conv3x3(x, wc) + bc)           valid padding, stride 1
//   pooled = mean over the 6x6 positions of a    (global average pooling)
//   logits = pooled @ wl + bl
//   loss   = mean(softmax_cross_entropy(logits, y))     (y one-hot)
//   p      = p - lr * dL/dp                      for p in wc bc wl bl
// Batch 8 of 8x8 single-channel images (NHWC), 4 filters (HWCF), 2 classes.
// The convolution is the first layer, so the backward pass needs the filter
// gradient only (a generic over batch, output position and filter tap).

#id4  = affine_map<(b, h, w, c) -> (b, h, w, c)>
#ch4  = affine_map<(b, h, w, c) -> (c)>
#bc4  = affine_map<(b, h, w, c) -> (b, c)>
#id   = affine_map<(i, j) -> (i, j)>
#col  = affine_map<(i, j) -> (j)>
#row  = affine_map<(i, j) -> (i)>
#scal = affine_map<(i, j) -> ()>
#id1  = affine_map<(i) -> (i)>
#sc1  = affine_map<(i) -> ()>
#sc4  = affine_map<(a, b, c, d) -> ()>
// Filter gradient: dims (b, oh, ow, kh, kw, ci, co).
#dwc_x  = affine_map<(b, oh, ow, kh, kw, ci, co) -> (b, oh + kh, ow + kw, ci)>
#dwc_dz = affine_map<(b, oh, ow, kh, kw, ci, co) -> (b, oh, ow, co)>
#dwc_o  = affine_map<(b, oh, ow, kh, kw, ci, co) -> (kh, kw, ci, co)>

func.func @cnn_step(
    %wc: tensor<3x3x1x4xf32> {mpt.role = "param"},
    %bc: tensor<4xf32> {mpt.role = "param"},
    %wl: tensor<4x2xf32> {mpt.role = "param"},
    %bl: tensor<2xf32> {mpt.role = "param"},
    %x: tensor<8x8x8x1xf32> {mpt.role = "data"},
    %y: tensor<8x2xf32> {mpt.role = "data"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"},
        tensor<3x3x1x4xf32> {mpt.updates = 0 : i64},
        tensor<4xf32> {mpt.updates = 1 : i64},
        tensor<4x2xf32> {mpt.updates = 2 : i64},
        tensor<2xf32> {mpt.updates = 3 : i64}) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %inv_batch = arith.constant 0.125 : f32
  %inv_pos = arith.constant 0.027777777777777776 : f32  // 1/36

  // ---- forward ----
  %e_act = tensor.empty() : tensor<8x6x6x4xf32>
  %z_act = linalg.fill ins(%zero : f32) outs(%e_act : tensor<8x6x6x4xf32>) -> tensor<8x6x6x4xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %wc : tensor<8x8x8x1xf32>, tensor<3x3x1x4xf32>)
      outs(%z_act : tensor<8x6x6x4xf32>) -> tensor<8x6x6x4xf32>
  %pre = linalg.generic {indexing_maps = [#id4, #ch4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv, %bc : tensor<8x6x6x4xf32>, tensor<4xf32>) outs(%e_act : tensor<8x6x6x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x6x6x4xf32>
  %act = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%pre : tensor<8x6x6x4xf32>) outs(%e_act : tensor<8x6x6x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x6x6x4xf32>
  %e8x4 = tensor.empty() : tensor<8x4xf32>
  %z8x4 = linalg.fill ins(%zero : f32) outs(%e8x4 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %poolsum = linalg.generic {indexing_maps = [#id4, #bc4], iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
      ins(%act : tensor<8x6x6x4xf32>) outs(%z8x4 : tensor<8x4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  %pooled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%poolsum : tensor<8x4xf32>) outs(%e8x4 : tensor<8x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %inv_pos : f32
    linalg.yield %m : f32
  } -> tensor<8x4xf32>
  %e8x2 = tensor.empty() : tensor<8x2xf32>
  %z8x2 = linalg.fill ins(%zero : f32) outs(%e8x2 : tensor<8x2xf32>) -> tensor<8x2xf32>
  %pw = linalg.matmul ins(%pooled, %wl : tensor<8x4xf32>, tensor<4x2xf32>)
                      outs(%z8x2 : tensor<8x2xf32>) -> tensor<8x2xf32>
  %logits = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%pw, %bl : tensor<8x2xf32>, tensor<2xf32>) outs(%e8x2 : tensor<8x2xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x2xf32>

  // softmax cross-entropy, numerically stable: lse = m + log(sum(exp(z - m)))
  %e8 = tensor.empty() : tensor<8xf32>
  %ninf8 = linalg.fill ins(%ninf : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %rowmax = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%logits : tensor<8x2xf32>) outs(%ninf8 : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %exps = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%logits, %rowmax : tensor<8x2xf32>, tensor<8xf32>) outs(%e8x2 : tensor<8x2xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<8x2xf32>
  %zero8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %sumexp = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exps : tensor<8x2xf32>) outs(%zero8 : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %ylogit = linalg.generic {indexing_maps = [#id, #id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%y, %logits : tensor<8x2xf32>, tensor<8x2xf32>) outs(%zero8 : tensor<8xf32>) {
  ^bb0(%t: f32, %z: f32, %acc: f32):
    %p = arith.mulf %t, %z : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %persample = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%sumexp, %rowmax, %ylogit : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%e8 : tensor<8xf32>) {
  ^bb0(%s: f32, %m: f32, %yz: f32, %o: f32):
    %l = math.log %s : f32
    %lse = arith.addf %l, %m : f32
    %r = arith.subf %lse, %yz : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %e0 = tensor.empty() : tensor<f32>
  %zero0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %losssum = linalg.generic {indexing_maps = [#id1, #sc1], iterator_types = ["reduction"]}
      ins(%persample : tensor<8xf32>) outs(%zero0 : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%losssum : tensor<f32>) outs(%e0 : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %inv_batch : f32
    linalg.yield %m : f32
  } -> tensor<f32>

  // ---- backward ----
  %seed = mpt.grad_seed %loss : tensor<f32>
  // dL/dz = (softmax(z) - y) * seed / batch
  %dlogits = linalg.generic {indexing_maps = [#id, #row, #id, #scal, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exps, %sumexp, %y, %seed : tensor<8x2xf32>, tensor<8xf32>, tensor<8x2xf32>, tensor<f32>)
      outs(%e8x2 : tensor<8x2xf32>) {
  ^bb0(%e: f32, %s: f32, %t: f32, %g: f32, %o: f32):
    %p = arith.divf %e, %s : f32
    %d = arith.subf %p, %t : f32
    %gs = arith.mulf %g, %inv_batch : f32
    %r = arith.mulf %d, %gs : f32
    linalg.yield %r : f32
  } -> tensor<8x2xf32>
  // dwl = pooled^T @ dz ; dbl = sum_batch dz
  %e4x8 = tensor.empty() : tensor<4x8xf32>
  %pooledT = linalg.transpose ins(%pooled : tensor<8x4xf32>) outs(%e4x8 : tensor<4x8xf32>) permutation = [1, 0]
  %e4x2 = tensor.empty() : tensor<4x2xf32>
  %z4x2 = linalg.fill ins(%zero : f32) outs(%e4x2 : tensor<4x2xf32>) -> tensor<4x2xf32>
  %dwl = linalg.matmul ins(%pooledT, %dlogits : tensor<4x8xf32>, tensor<8x2xf32>)
                       outs(%z4x2 : tensor<4x2xf32>) -> tensor<4x2xf32>
  %e2 = tensor.empty() : tensor<2xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2xf32>) -> tensor<2xf32>
  %dbl = linalg.reduce ins(%dlogits : tensor<8x2xf32>) outs(%z2 : tensor<2xf32>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  // dpooled = dz @ wl^T ; dpre = (pre > 0) * dpooled / 36 broadcast over 6x6
  %e2x4 = tensor.empty() : tensor<2x4xf32>
  %wlT = linalg.transpose ins(%wl : tensor<4x2xf32>) outs(%e2x4 : tensor<2x4xf32>) permutation = [1, 0]
  %dpooled = linalg.matmul ins(%dlogits, %wlT : tensor<8x2xf32>, tensor<2x4xf32>)
                           outs(%z8x4 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %dpre = linalg.generic {indexing_maps = [#id4, #bc4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%pre, %dpooled : tensor<8x6x6x4xf32>, tensor<8x4xf32>) outs(%e_act : tensor<8x6x6x4xf32>) {
  ^bb0(%a: f32, %g: f32, %o: f32):
    %pos = arith.cmpf ogt, %a, %zero : f32
    %gm = arith.mulf %g, %inv_pos : f32
    %r = arith.select %pos, %gm, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x6x6x4xf32>
  // dbc = sum over batch and positions of dpre
  %e4 = tensor.empty() : tensor<4xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %dbc = linalg.generic {indexing_maps = [#id4, #ch4], iterator_types = ["reduction", "reduction", "reduction", "parallel"]}
      ins(%dpre : tensor<8x6x6x4xf32>) outs(%z4 : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  // dwc[kh, kw, ci, co] = sum_{b, oh, ow} x[b, oh + kh, ow + kw, ci] * dpre[b, oh, ow, co]
  %e_w = tensor.empty() : tensor<3x3x1x4xf32>
  %z_w = linalg.fill ins(%zero : f32) outs(%e_w : tensor<3x3x1x4xf32>) -> tensor<3x3x1x4xf32>
  %dwc = linalg.generic {indexing_maps = [#dwc_x, #dwc_dz, #dwc_o],
                         iterator_types = ["reduction", "reduction", "reduction", "parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %dpre : tensor<8x8x8x1xf32>, tensor<8x6x6x4xf32>) outs(%z_w : tensor<3x3x1x4xf32>) {
  ^bb0(%a: f32, %g: f32, %acc: f32):
    %p = arith.mulf %a, %g : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<3x3x1x4xf32>
  %gwc = mpt.gradient %dwc : tensor<3x3x1x4xf32>
  %gbc = mpt.gradient %dbc : tensor<4xf32>
  %gwl = mpt.gradient %dwl : tensor<4x2xf32>
  %gbl = mpt.gradient %dbl : tensor<2xf32>

  // ---- update: p - lr * g ----
  %nwc = linalg.generic {indexing_maps = [#id4, #id4, #sc4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%wc, %gwc, %lr : tensor<3x3x1x4xf32>, tensor<3x3x1x4xf32>, tensor<f32>) outs(%e_w : tensor<3x3x1x4xf32>) {
  ^bb0(%p: f32, %g: f32, %r: f32, %o: f32):
    %s = arith.mulf %r, %g : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<3x3x1x4xf32>
  %nbc = linalg.generic {indexing_maps = [#id1, #id1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%bc, %gbc, %lr : tensor<4xf32>, tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%p: f32, %g: f32, %r: f32, %o: f32):
    %s = arith.mulf %r, %g : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  %nwl = linalg.generic {indexing_maps = [#id, #id, #scal, #id], iterator_types = ["parallel", "parallel"]}
      ins(%wl, %gwl, %lr : tensor<4x2xf32>, tensor<4x2xf32>, tensor<f32>) outs(%e4x2 : tensor<4x2xf32>) {
  ^bb0(%p: f32, %g: f32, %r: f32, %o: f32):
    %s = arith.mulf %r, %g : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<4x2xf32>
  %nbl = linalg.generic {indexing_maps = [#id1, #id1, #sc1, #id1], iterator_types = ["parallel"]}
      ins(%bl, %gbl, %lr : tensor<2xf32>, tensor<2xf32>, tensor<f32>) outs(%e2 : tensor<2xf32>) {
  ^bb0(%p: f32, %g: f32, %r: f32, %o: f32):
    %s = arith.mulf %r, %g : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<2xf32>
  return %loss, %nwc, %nbc, %nwl, %nbl
      : tensor<f32>, tensor<3x3x1x4xf32>, tensor<4xf32>, tensor<4x2xf32>, tensor<2xf32>
}
