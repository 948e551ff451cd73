// Executes the dynamic scale update on the CPU: growth-interval clean steps
// double the scale and restart the tracker, an overflow halves it, growth
// never goes past the FP32 maximum, and min-scale floors the backoff
// (GradScaler has no floor; Keras floors at 1).
//
// @main calls @sgd_step with the ABI --mpt-insert-loss-scaling gives it, so
// parsing skips the verifier; the pass manager verifies after every pass.
// @update_* are not training steps: the insert pass leaves them alone and
// the lowering lowers their mpt.update_scale.
// RUN: mpt-opt %s --mlir-very-unsafe-disable-verifier-on-parsing \
// RUN:   --mpt-insert-loss-scaling="growth-interval=3" --mpt-lower-loss-scaling --mpt-strip-training-markers \
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

// loss = sum(w * x); g = x * seed; w' = w - lr * g.
func.func @sgd_step(
    %w: tensor<4xf32> {mpt.role = "param"},
    %x: tensor<4xf32> {mpt.role = "data"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %e4 = tensor.empty() : tensor<4xf32>
  %loss = linalg.generic {indexing_maps = [#id, #id, #sc], iterator_types = ["reduction"]}
      ins(%w, %x : tensor<4xf32>, tensor<4xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%wi: f32, %xi: f32, %acc: f32):
    %p = arith.mulf %wi, %xi : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %seed = mpt.grad_seed %loss : tensor<f32>
  %dw = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel"]}
      ins(%x, %seed : tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%xi: f32, %s: f32, %o: f32):
    %p = arith.mulf %xi, %s : f32
    linalg.yield %p : f32
  } -> tensor<4xf32>
  %g = mpt.gradient %dw : tensor<4xf32>
  %nw = linalg.generic {indexing_maps = [#id, #id, #sc, #id], iterator_types = ["parallel"]}
      ins(%w, %g, %lr : tensor<4xf32>, tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%p: f32, %gi: f32, %r: f32, %o: f32):
    %d = arith.mulf %r, %gi : f32
    %n = arith.subf %p, %d : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %loss, %nw : tensor<f32>, tensor<4xf32>
}

func.func @update_growth_only(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) -> (tensor<f32>, tensor<i32>) {
  %ns, %nt = mpt.update_scale %s, %t, %f {growth_interval = 3 : i32}
  return %ns, %nt : tensor<f32>, tensor<i32>
}
func.func @update_floor_one(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) -> (tensor<f32>, tensor<i32>) {
  %ns, %nt = mpt.update_scale %s, %t, %f {min_scale = 1.0 : f32}
  return %ns, %nt : tensor<f32>, tensor<i32>
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
  %w0 = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %x = arith.constant dense<[0.5, 0.25, -1.0, 2.0]> : tensor<4xf32>
  %xo = arith.constant dense<[1.0e36, 0.25, -1.0, 2.0]> : tensor<4xf32>
  %lr = arith.constant dense<0.5> : tensor<f32>
  %s0 = arith.constant dense<65536.0> : tensor<f32>
  %t0 = arith.constant dense<0> : tensor<i32>

  // CHECK-LABEL: growth
  // CHECK-NEXT: scale 65536
  // CHECK-NEXT: tracker 1
  // CHECK-NEXT: scale 65536
  // CHECK-NEXT: tracker 2
  // The third clean step reaches growth-interval = 3.
  // CHECK-NEXT: scale 131072
  // CHECK-NEXT: tracker 0
  // CHECK-NEXT: scale 131072
  // CHECK-NEXT: tracker 1
  // An overflow halves the scale and restarts the count.
  // CHECK-NEXT: scale 65536
  // CHECK-NEXT: tracker 0
  // The four applied updates are exact: w - 4 * 0.5 * x.
  // CHECK-NEXT: data =
  // CHECK-NEXT: [0,  1.5,  5,  0]
  vector.print str "growth\n"
  %l1, %w1, %s1, %t1 = call @sgd_step(%w0, %x, %lr, %s0, %t0)
      : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<i32>)
  call @print_scale(%s1, %t1) : (tensor<f32>, tensor<i32>) -> ()
  %l2, %w2, %s2, %t2 = call @sgd_step(%w1, %x, %lr, %s1, %t1)
      : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<i32>)
  call @print_scale(%s2, %t2) : (tensor<f32>, tensor<i32>) -> ()
  %l3, %w3, %s3, %t3 = call @sgd_step(%w2, %x, %lr, %s2, %t2)
      : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<i32>)
  call @print_scale(%s3, %t3) : (tensor<f32>, tensor<i32>) -> ()
  %l4, %w4, %s4, %t4 = call @sgd_step(%w3, %x, %lr, %s3, %t3)
      : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<i32>)
  call @print_scale(%s4, %t4) : (tensor<f32>, tensor<i32>) -> ()
  %l5, %w5, %s5, %t5 = call @sgd_step(%w4, %xo, %lr, %s4, %t4)
      : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<i32>)
  call @print_scale(%s5, %t5) : (tensor<f32>, tensor<i32>) -> ()
  %m = bufferization.to_buffer %w5 : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %m : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()

  %clean = arith.constant dense<false> : tensor<i1>
  %overflow = arith.constant dense<true> : tensor<i1>
  %t2c = arith.constant dense<2> : tensor<i32>

  // Growth that would overflow FP32 keeps the scale (2^127 * 2 = inf) and
  // still restarts the tracker; 3e38 * 2 likewise.
  // CHECK-LABEL: edges
  // CHECK-NEXT: scale 1.70141e+38
  // CHECK-NEXT: tracker 0
  // CHECK-NEXT: scale 3e+38
  // CHECK-NEXT: tracker 0
  vector.print str "edges\n"
  %big = arith.constant dense<0x7F000000> : tensor<f32>
  %e1s, %e1t = call @update_growth_only(%big, %t2c, %clean) : (tensor<f32>, tensor<i32>, tensor<i1>) -> (tensor<f32>, tensor<i32>)
  call @print_scale(%e1s, %e1t) : (tensor<f32>, tensor<i32>) -> ()
  %big2 = arith.constant dense<3.0e38> : tensor<f32>
  %e2s, %e2t = call @update_growth_only(%big2, %t2c, %clean) : (tensor<f32>, tensor<i32>, tensor<i1>) -> (tensor<f32>, tensor<i32>)
  call @print_scale(%e2s, %e2t) : (tensor<f32>, tensor<i32>) -> ()

  // Backoff below 1: without a floor 1 -> 0.5 (GradScaler); with
  // min_scale = 1 it stays 1 (Keras).
  // CHECK-NEXT: scale 0.5
  // CHECK-NEXT: tracker 0
  // CHECK-NEXT: scale 1
  // CHECK-NEXT: tracker 0
  %one = arith.constant dense<1.0> : tensor<f32>
  %e3s, %e3t = call @update_growth_only(%one, %t2c, %overflow) : (tensor<f32>, tensor<i32>, tensor<i1>) -> (tensor<f32>, tensor<i32>)
  call @print_scale(%e3s, %e3t) : (tensor<f32>, tensor<i32>) -> ()
  %e4s, %e4t = call @update_floor_one(%one, %t2c, %overflow) : (tensor<f32>, tensor<i32>, tensor<i1>) -> (tensor<f32>, tensor<i32>)
  call @print_scale(%e4s, %e4t) : (tensor<f32>, tensor<i32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>)
