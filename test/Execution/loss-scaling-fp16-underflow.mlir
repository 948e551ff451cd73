// An FP16 step whose small gradients flush to zero keeps them with loss
// scaling. Written by hand the way autocast lays it out: FP32 master
// weights, forward and backward products in FP16, the loss reduced in FP32,
// the gradient cast back to FP32 before the optimizer.
//
// loss = 1e-4 * sum(w * x); dL/dw = 1e-4 * x = [1, 1.5, 2, 2.5] * 1e-8, all
// below half the smallest FP16 subnormal (2^-25 ~ 2.98e-8), so the FP16
// backward product rounds them to 0. With a scale of 65536 the product is
// ~6.6e-4 (a normal FP16 number) and unscaling in FP32 recovers it.
// w = 0 and lr = 1, so the updated weights print -gradient.
//
// RUN: mpt-opt %s --mpt-insert-loss-scaling="mode=none" --mpt-strip-training-markers --convert-elementwise-to-linalg \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata --lower-affine \
// RUN:   --convert-math-to-llvm --convert-math-to-libm --convert-vector-to-llvm --convert-arith-to-llvm \
// RUN:   --convert-index-to-llvm --convert-cf-to-llvm --finalize-memref-to-llvm --convert-func-to-llvm \
// RUN:   --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_libs \
// RUN: | FileCheck %s --check-prefix=UNSCALED
// RUN: mpt-opt %s --mpt-insert-loss-scaling="mode=static init-scale=65536" --mpt-lower-loss-scaling --mpt-strip-training-markers --convert-elementwise-to-linalg \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata --lower-affine \
// RUN:   --convert-math-to-llvm --convert-math-to-libm --convert-vector-to-llvm --convert-arith-to-llvm \
// RUN:   --convert-index-to-llvm --convert-cf-to-llvm --finalize-memref-to-llvm --convert-func-to-llvm \
// RUN:   --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_libs \
// RUN: | FileCheck %s --check-prefix=SCALED

// Without scaling every gradient is flushed to zero.
// UNSCALED: data =
// UNSCALED-NEXT: [0,  0,  0,  0]

// With scaling the gradients survive. The values are deterministic (IEEE
// rounding); they differ from the exact 1e-8 * [1, 1.5, 2, 2.5] by less than
// 6e-4 relative, from rounding 65536e-4, x and their product to FP16
// (at most 2^-11 relative each).
// SCALED: data =
// SCALED-NEXT: [-1.00044e-08,  -1.5003e-08,  -2.00089e-08,  -2.50147e-08]

#id = affine_map<(i) -> (i)>
#sc = affine_map<(i) -> ()>
#s0 = affine_map<() -> ()>

func.func @fp16_step(
    %w: tensor<4xf32> {mpt.role = "param"},
    %x: tensor<4xf32> {mpt.role = "data"},
    %lr: tensor<f32> {mpt.role = "hyperparameter"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 1.0e-4 : f32
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %e4 = tensor.empty() : tensor<4xf32>
  %e4h = tensor.empty() : tensor<4xf16>
  // ---- forward: FP16 products, FP32 reduction ----
  %w16 = arith.truncf %w : tensor<4xf32> to tensor<4xf16>
  %x16 = arith.truncf %x : tensor<4xf32> to tensor<4xf16>
  %y16 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%w16, %x16 : tensor<4xf16>, tensor<4xf16>) outs(%e4h : tensor<4xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %p = arith.mulf %a, %b : f16
    linalg.yield %p : f16
  } -> tensor<4xf16>
  %sum = linalg.generic {indexing_maps = [#id, #sc], iterator_types = ["reduction"]}
      ins(%y16 : tensor<4xf16>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f16, %acc: f32):
    %a32 = arith.extf %a : f16 to f32
    %s = arith.addf %a32, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#s0, #s0], iterator_types = []}
      ins(%sum : tensor<f32>) outs(%e0 : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %c : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  // ---- backward: dL/dsum = c * seed in FP32, cast to FP16 at the
  // boundary; dL/dw16 = dL/dy16 * x16 in FP16; cast back to FP32 ----
  %seed = mpt.grad_seed %loss : tensor<f32>
  %dw16 = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel"]}
      ins(%x16, %seed : tensor<4xf16>, tensor<f32>) outs(%e4h : tensor<4xf16>) {
  ^bb0(%xi: f16, %s: f32, %o: f16):
    %ds = arith.mulf %s, %c : f32
    %ds16 = arith.truncf %ds : f32 to f16
    %p = arith.mulf %ds16, %xi : f16
    linalg.yield %p : f16
  } -> tensor<4xf16>
  %dw = arith.extf %dw16 : tensor<4xf16> to tensor<4xf32>
  %g = mpt.gradient %dw : tensor<4xf32>
  // ---- update in FP32 ----
  %nw = linalg.generic {indexing_maps = [#id, #id, #sc, #id], iterator_types = ["parallel"]}
      ins(%w, %g, %lr : tensor<4xf32>, tensor<4xf32>, tensor<f32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%p: f32, %gi: f32, %r: f32, %o: f32):
    %d = arith.mulf %r, %gi : f32
    %n = arith.subf %p, %d : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %loss, %nw : tensor<f32>, tensor<4xf32>
}

func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %w = arith.constant dense<0.0> : tensor<4xf32>
  %x = arith.constant dense<[1.0e-4, 1.5e-4, 2.0e-4, 2.5e-4]> : tensor<4xf32>
  %lr = arith.constant dense<1.0> : tensor<f32>
  %loss, %nw = call @fp16_step(%w, %x, %lr)
      : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> (tensor<f32>, tensor<4xf32>)
  %m = bufferization.to_buffer %nw : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %m : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
