// Executes dynamically loss-scaled SGD-with-momentum and Adam steps on the
// CPU: a clean step gives the same numbers as without scaling (the scale is
// a power of two) and counts towards growth; a step whose gradients
// overflow (inf) or are NaN leaves parameters and optimizer state bit for
// bit as they were (checked on the raw bits, with a -0.0, a denormal and a
// NaN with a payload in the state) and halves the scale.
//
// @main calls the steps with the ABI the pass gives them (two trailing
// scale arguments and results), so the input only verifies after
// --mpt-insert-loss-scaling: parsing skips the verifier, and the pass
// manager verifies the module after every pass.
// RUN: mpt-opt %s --mlir-very-unsafe-disable-verifier-on-parsing \
// RUN:   --mpt-insert-loss-scaling --mpt-lower-loss-scaling --mpt-strip-training-markers \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata --lower-affine \
// RUN:   --convert-math-to-llvm --convert-math-to-libm --convert-vector-to-llvm --convert-arith-to-llvm \
// RUN:   --convert-index-to-llvm --convert-cf-to-llvm --finalize-memref-to-llvm --convert-func-to-llvm \
// RUN:   --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_libs \
// RUN: | FileCheck %s

#id = affine_map<(i) -> (i)>
#sc = affine_map<(i) -> ()>
#s0 = affine_map<() -> ()>

// ---- the steps (as in test/Transforms/insert-loss-scaling-*.mlir) ----

func.func @sgd_momentum_step(
    %w: tensor<4xf32> {mpt.role = "param"},
    %b: tensor<f32> {mpt.role = "param"},
    %vw: tensor<4xf32> {mpt.role = "optimizer_state"},
    %vb: tensor<f32> {mpt.role = "optimizer_state"},
    %x: tensor<4xf32> {mpt.role = "data"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"},
    %mu: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"},
        tensor<4xf32> {mpt.updates = 0 : i64},
        tensor<f32> {mpt.updates = 1 : i64},
        tensor<4xf32> {mpt.updates = 2 : i64},
        tensor<f32> {mpt.updates = 3 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %e4 = tensor.empty() : tensor<4xf32>
  // ---- forward ----
  %loss = linalg.generic {indexing_maps = [#id, #id, #sc, #sc], iterator_types = ["reduction"]}
      ins(%w, %x, %b : tensor<4xf32>, tensor<4xf32>, tensor<f32>) outs(%z0 : tensor<f32>) {
  ^bb0(%wi: f32, %xi: f32, %bi: f32, %acc: f32):
    %p = arith.mulf %wi, %xi : f32
    %q = arith.addf %p, %bi : f32
    %s = arith.addf %q, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  // ---- backward: dw = x * seed, db = 4 * seed ----
  %seed = mpt.grad_seed %loss : tensor<f32>
  %dw = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel"]}
      ins(%x, %seed : tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%xi: f32, %s: f32, %o: f32):
    %p = arith.mulf %xi, %s : f32
    linalg.yield %p : f32
  } -> tensor<4xf32>
  %db = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%seed : tensor<f32>) outs(%e0 : tensor<f32>) {
  ^bb0(%s: f32, %o: f32):
    %four = arith.constant 4.0 : f32
    %p = arith.mulf %s, %four : f32
    linalg.yield %p : f32
  } -> tensor<f32>
  %gw = mpt.gradient %dw : tensor<4xf32>
  %gb = mpt.gradient %db : tensor<f32>
  // ---- update ----
  %nvw = linalg.generic {indexing_maps = [#id, #id, #sc, #id], iterator_types = ["parallel"]}
      ins(%vw, %gw, %mu : tensor<4xf32>, tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%v: f32, %g: f32, %m: f32, %o: f32):
    %p = arith.mulf %m, %v : f32
    %s = arith.addf %p, %g : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %nvb = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%vb, %gb, %mu : tensor<f32>, tensor<f32>, tensor<f32>) outs(%e0 : tensor<f32>) {
  ^bb0(%v: f32, %g: f32, %m: f32, %o: f32):
    %p = arith.mulf %m, %v : f32
    %s = arith.addf %p, %g : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %nw = linalg.generic {indexing_maps = [#id, #id, #sc, #id], iterator_types = ["parallel"]}
      ins(%w, %nvw, %lr : tensor<4xf32>, tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%p: f32, %v: f32, %r: f32, %o: f32):
    %d = arith.mulf %r, %v : f32
    %n = arith.subf %p, %d : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  %nb = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%b, %nvb, %lr : tensor<f32>, tensor<f32>, tensor<f32>) outs(%e0 : tensor<f32>) {
  ^bb0(%p: f32, %v: f32, %r: f32, %o: f32):
    %d = arith.mulf %r, %v : f32
    %n = arith.subf %p, %d : f32
    linalg.yield %n : f32
  } -> tensor<f32>
  return %loss, %nw, %nb, %nvw, %nvb : tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<f32>
}

func.func @adam_step(
    %w: tensor<4xf32> {mpt.role = "param"},
    %m: tensor<4xf32> {mpt.role = "optimizer_state"},
    %v: tensor<4xf32> {mpt.role = "optimizer_state"},
    %t: tensor<f32> {mpt.role = "optimizer_state"},
    %x: tensor<4xf32> {mpt.role = "data"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"},
    %beta1: tensor<f32> {mpt.role = "hyperparameter"},
    %beta2: tensor<f32> {mpt.role = "hyperparameter"},
    %eps: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"},
        tensor<4xf32> {mpt.updates = 0 : i64},
        tensor<4xf32> {mpt.updates = 1 : i64},
        tensor<4xf32> {mpt.updates = 2 : i64},
        tensor<f32> {mpt.updates = 3 : i64}) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %e4 = tensor.empty() : tensor<4xf32>
  // ---- forward: loss = sum(w * x) ----
  %loss = linalg.generic {indexing_maps = [#id, #id, #sc], iterator_types = ["reduction"]}
      ins(%w, %x : tensor<4xf32>, tensor<4xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%wi: f32, %xi: f32, %acc: f32):
    %p = arith.mulf %wi, %xi : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  // ---- backward: dw = x * seed ----
  %seed = mpt.grad_seed %loss : tensor<f32>
  %dw = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel"]}
      ins(%x, %seed : tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%xi: f32, %s: f32, %o: f32):
    %p = arith.mulf %xi, %s : f32
    linalg.yield %p : f32
  } -> tensor<4xf32>
  %g = mpt.gradient %dw : tensor<4xf32>
  // ---- update (Adam) ----
  %nt = linalg.generic {indexing_maps = [#s0, #s0], iterator_types = []}
      ins(%t : tensor<f32>) outs(%e0 : tensor<f32>) {
  ^bb0(%ti: f32, %o: f32):
    %n = arith.addf %ti, %one : f32
    linalg.yield %n : f32
  } -> tensor<f32>
  %nm = linalg.generic {indexing_maps = [#id, #id, #sc, #id], iterator_types = ["parallel"]}
      ins(%m, %g, %beta1 : tensor<4xf32>, tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%mi: f32, %gi: f32, %b1: f32, %o: f32):
    %a = arith.mulf %b1, %mi : f32
    %c = arith.subf %one, %b1 : f32
    %d = arith.mulf %c, %gi : f32
    %n = arith.addf %a, %d : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  %nv = linalg.generic {indexing_maps = [#id, #id, #sc, #id], iterator_types = ["parallel"]}
      ins(%v, %g, %beta2 : tensor<4xf32>, tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%vi: f32, %gi: f32, %b2: f32, %o: f32):
    %a = arith.mulf %b2, %vi : f32
    %c = arith.subf %one, %b2 : f32
    %g2 = arith.mulf %gi, %gi : f32
    %d = arith.mulf %c, %g2 : f32
    %n = arith.addf %a, %d : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  // w' = w - lr * (m' / (1 - b1^t')) / (sqrt(v' / (1 - b2^t')) + eps)
  %nw = linalg.generic {indexing_maps = [#id, #id, #id, #sc, #sc, #sc, #sc, #sc, #id], iterator_types = ["parallel"]}
      ins(%w, %nm, %nv, %nt, %lr, %beta1, %beta2, %eps : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      outs(%e4 : tensor<4xf32>) {
  ^bb0(%wi: f32, %mi: f32, %vi: f32, %ti: f32, %r: f32, %b1: f32, %b2: f32, %ep: f32, %o: f32):
    %p1 = math.powf %b1, %ti : f32
    %c1 = arith.subf %one, %p1 : f32
    %mhat = arith.divf %mi, %c1 : f32
    %p2 = math.powf %b2, %ti : f32
    %c2 = arith.subf %one, %p2 : f32
    %vhat = arith.divf %vi, %c2 : f32
    %sq = math.sqrt %vhat : f32
    %den = arith.addf %sq, %ep : f32
    %step = arith.divf %mhat, %den : f32
    %lstep = arith.mulf %r, %step : f32
    %n = arith.subf %wi, %lstep : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %loss, %nw, %nm, %nv, %nt : tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>
}

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

// The raw bits of a tensor, as i32.
func.func @print_bits(%t: tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xi32>
  %bits = linalg.map ins(%t : tensor<4xf32>) outs(%e : tensor<4xi32>)
    (%f: f32, %o: i32) {
      %b = arith.bitcast %f : f32 to i32
      linalg.yield %b : i32
    }
  %m = bufferization.to_buffer %bits : tensor<4xi32> to memref<4xi32>
  %u = memref.cast %m : memref<4xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}
func.func @print_values(%t: tensor<4xf32>) {
  %m = bufferization.to_buffer %t : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %m : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
func.func @print_scalar_bits(%t: tensor<f32>) {
  %v = tensor.extract %t[] : tensor<f32>
  %b = arith.bitcast %v : f32 to i32
  vector.print %b : i32
  return
}
func.func @print_scale(%s: tensor<f32>, %t: tensor<i32>) {
  %sv = tensor.extract %s[] : tensor<f32>
  %tv = tensor.extract %t[] : tensor<i32>
  vector.print str "scale "
  vector.print %sv : f32
  vector.print str "tracker "
  vector.print %tv : i32
  return
}

func.func @main() {
  %lr = arith.constant dense<0.5> : tensor<f32>
  %mu = arith.constant dense<0.5> : tensor<f32>
  %scale0 = arith.constant dense<65536.0> : tensor<f32>
  %tracker0 = arith.constant dense<0> : tensor<i32>
  %tracker5 = arith.constant dense<5> : tensor<i32>

  // ---- SGD with momentum, clean step: v' = 0.5 v + g, w' = w - 0.5 v' ----
  %w = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = arith.constant dense<0.5> : tensor<f32>
  %vw = arith.constant dense<[0.0, 0.5, -1.0, 2.0]> : tensor<4xf32>
  %vb = arith.constant dense<0.0> : tensor<f32>
  %x = arith.constant dense<[0.25, -0.5, 1.0, 2.0]> : tensor<4xf32>
  %l1, %w1, %b1, %vw1, %vb1, %s1, %t1 = call @sgd_momentum_step(%w, %b, %vw, %vb, %x, %lr, %mu, %scale0, %tracker0)
      : (tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<i32>)
        -> (tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<i32>)
  vector.print str "sgd clean\n"
  // CHECK-LABEL: sgd clean
  // g = x exactly (65536 is a power of two): v' = [0.25, -0.25, 0.5, 3],
  // w' = [0.875, 2.125, 2.75, 2.5]; db = 4 * seed = 4, vb' = 4, b' = -1.5.
  // CHECK: data =
  // CHECK-NEXT: [0.875,  2.125,  2.75,  2.5]
  // CHECK: data =
  // CHECK-NEXT: [0.25,  -0.25,  0.5,  3]
  // CHECK-NEXT: scale 65536
  // CHECK-NEXT: tracker 1
  call @print_values(%w1) : (tensor<4xf32>) -> ()
  call @print_values(%vw1) : (tensor<4xf32>) -> ()
  call @print_scale(%s1, %t1) : (tensor<f32>, tensor<i32>) -> ()
  %b1v = tensor.extract %b1[] : tensor<f32>
  %vb1v = tensor.extract %vb1[] : tensor<f32>
  // CHECK-NEXT: -1.5
  // CHECK-NEXT: 4
  vector.print %b1v : f32
  vector.print %vb1v : f32

  // ---- SGD with momentum, overflowing step ----
  // State with awkward bits: 0.1, -0.0, a denormal (1e-40), a NaN with
  // payload 1 (0x7FC00001); 1e36 * 65536 overflows FP32 to inf.
  %wo = arith.constant dense<[0.1, -0.0, 1.0e-40, 0x7FC00001]> : tensor<4xf32>
  %vo = arith.constant dense<[-0.0, 0.3, 0x7F7FFFFF, -1.0e-45]> : tensor<4xf32>
  %xo = arith.constant dense<[1.0e36, 1.0, 1.0, 1.0]> : tensor<4xf32>
  %l2, %w2, %b2, %vw2, %vb2, %s2, %t2 = call @sgd_momentum_step(%wo, %b, %vo, %vb, %xo, %lr, %mu, %scale0, %tracker5)
      : (tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<i32>)
        -> (tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<i32>)
  vector.print str "sgd overflow\n"
  // CHECK-LABEL: sgd overflow
  // CHECK: data =
  // CHECK-NEXT: [1036831949,  -2147483648,  71362,  2143289345]
  // CHECK: data =
  // CHECK-NEXT: [1036831949,  -2147483648,  71362,  2143289345]
  // CHECK: data =
  // CHECK-NEXT: [-2147483648,  1050253722,  2139095039,  -2147483647]
  // CHECK: data =
  // CHECK-NEXT: [-2147483648,  1050253722,  2139095039,  -2147483647]
  // CHECK-NEXT: 1056964608
  // CHECK-NEXT: 1056964608
  // CHECK-NEXT: 0
  // CHECK-NEXT: 0
  // CHECK-NEXT: scale 32768
  // CHECK-NEXT: tracker 0
  call @print_bits(%wo) : (tensor<4xf32>) -> ()
  call @print_bits(%w2) : (tensor<4xf32>) -> ()
  call @print_bits(%vo) : (tensor<4xf32>) -> ()
  call @print_bits(%vw2) : (tensor<4xf32>) -> ()
  call @print_scalar_bits(%b) : (tensor<f32>) -> ()
  call @print_scalar_bits(%b2) : (tensor<f32>) -> ()
  call @print_scalar_bits(%vb) : (tensor<f32>) -> ()
  call @print_scalar_bits(%vb2) : (tensor<f32>) -> ()
  call @print_scale(%s2, %t2) : (tensor<f32>, tensor<i32>) -> ()

  // ---- SGD with momentum, NaN gradient (NaN data) at scale 32768 ----
  %xn = arith.constant dense<[1.0, 0x7FC00000, 1.0, 1.0]> : tensor<4xf32>
  %l3, %w3, %b3, %vw3, %vb3, %s3, %t3 = call @sgd_momentum_step(%w, %b, %vw, %vb, %xn, %lr, %mu, %s2, %t2)
      : (tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<i32>)
        -> (tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<i32>)
  vector.print str "sgd nan\n"
  // CHECK-LABEL: sgd nan
  // CHECK: data =
  // CHECK-NEXT: [1065353216,  1073741824,  1077936128,  1082130432]
  // CHECK: data =
  // CHECK-NEXT: [0,  1056964608,  -1082130432,  1073741824]
  // CHECK-NEXT: scale 16384
  // CHECK-NEXT: tracker 0
  call @print_bits(%w3) : (tensor<4xf32>) -> ()
  call @print_bits(%vw3) : (tensor<4xf32>) -> ()
  call @print_scale(%s3, %t3) : (tensor<f32>, tensor<i32>) -> ()

  // ---- Adam ----
  %beta1 = arith.constant dense<0.9> : tensor<f32>
  %beta2 = arith.constant dense<0.999> : tensor<f32>
  %eps = arith.constant dense<1.0e-8> : tensor<f32>
  %m0 = arith.constant dense<0.0> : tensor<4xf32>
  %v0 = arith.constant dense<0.0> : tensor<4xf32>
  %step0 = arith.constant dense<0.0> : tensor<f32>
  %la, %wa, %ma, %va, %ta, %sa, %tra = call @adam_step(%w, %m0, %v0, %step0, %x, %lr, %beta1, %beta2, %eps, %scale0, %tracker0)
      : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<i32>)
        -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<i32>)
  vector.print str "adam clean\n"
  // CHECK-LABEL: adam clean
  // The first Adam step moves each weight by lr * sign(g) (bias-corrected
  // m / sqrt(v) = g / |g|), up to the FP32 rounding of 1 - beta^t and
  // eps = 1e-8: 6 printed digits pin it to 1e-6 relative.
  // CHECK: data =
  // CHECK-NEXT: [0.5,  2.5,  2.5,  3.5]
  // CHECK: data =
  // CHECK-NEXT: [0.025,  -0.05,  0.1,  0.2]
  // CHECK-NEXT: scale 65536
  // CHECK-NEXT: tracker 1
  // CHECK-NEXT: 1065353216
  call @print_values(%wa) : (tensor<4xf32>) -> ()
  call @print_values(%ma) : (tensor<4xf32>) -> ()
  call @print_scale(%sa, %tra) : (tensor<f32>, tensor<i32>) -> ()
  call @print_scalar_bits(%ta) : (tensor<f32>) -> ()

  // Overflow from the state after the clean step: everything is kept.
  %lb, %wb, %mb, %vb_, %tb, %sb, %trb = call @adam_step(%wa, %ma, %va, %ta, %xo, %lr, %beta1, %beta2, %eps, %sa, %tra)
      : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<i32>)
        -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<i32>)
  vector.print str "adam overflow\n"
  // CHECK-LABEL: adam overflow
  // CHECK: data =
  // CHECK-NEXT: [[W_BITS:\[.*\]]]
  // CHECK: data =
  // CHECK-NEXT: [[W_BITS]]
  // CHECK: data =
  // CHECK-NEXT: [[M_BITS:\[.*\]]]
  // CHECK: data =
  // CHECK-NEXT: [[M_BITS]]
  // CHECK: data =
  // CHECK-NEXT: [[V_BITS:\[.*\]]]
  // CHECK: data =
  // CHECK-NEXT: [[V_BITS]]
  // CHECK-NEXT: 1065353216
  // CHECK-NEXT: 1065353216
  // CHECK-NEXT: scale 32768
  // CHECK-NEXT: tracker 0
  call @print_bits(%wa) : (tensor<4xf32>) -> ()
  call @print_bits(%wb) : (tensor<4xf32>) -> ()
  call @print_bits(%ma) : (tensor<4xf32>) -> ()
  call @print_bits(%mb) : (tensor<4xf32>) -> ()
  call @print_bits(%va) : (tensor<4xf32>) -> ()
  call @print_bits(%vb_) : (tensor<4xf32>) -> ()
  call @print_scalar_bits(%ta) : (tensor<f32>) -> ()
  call @print_scalar_bits(%tb) : (tensor<f32>) -> ()
  call @print_scale(%sb, %trb) : (tensor<f32>, tensor<i32>) -> ()
  return
}
