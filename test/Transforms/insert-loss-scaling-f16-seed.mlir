// An f16 loss gives an f16 seed: a constant scale above 65504 (the f16
// maximum) would make the seed, and so every step, overflow. Static mode
// rejects it; a scale that fits is accepted; dynamic mode backs off from
// 65536 on the first step by itself.
// RUN: mpt-opt %s --verify-diagnostics --mpt-insert-loss-scaling="mode=static init-scale=65536"
// RUN: mpt-opt %s --mpt-insert-loss-scaling="mode=static init-scale=32768" | FileCheck %s --check-prefix=FITS
// RUN: mpt-opt %s --mpt-insert-loss-scaling="mode=dynamic init-scale=65536" | FileCheck %s --check-prefix=DYNAMIC
// RUN: not mpt-opt %s --mpt-insert-loss-scaling="mode=static" -o /dev/null

// FITS-LABEL: func.func @f16_loss(
// FITS: mpt.scale %{{.*}} by %{{.*}} : tensor<4xf16>
// DYNAMIC-LABEL: func.func @f16_loss(
// DYNAMIC: mpt.update_scale
func.func @f16_loss(%w: tensor<4xf16> {mpt.role = "param"})
    -> (tensor<4xf16> {mpt.role = "loss"}, tensor<4xf16> {mpt.updates = 0 : i64}) {
  %loss = arith.mulf %w, %w : tensor<4xf16>
  // expected-error @+1 {{init-scale 65536 overflows the backward seed's element type 'f16' (largest finite value 65504): every step would be skipped; use a smaller init-scale or mode=dynamic}}
  %seed = mpt.grad_seed %loss : tensor<4xf16>
  %dw = arith.mulf %seed, %w : tensor<4xf16>
  %g = mpt.gradient %dw : tensor<4xf16>
  %nw = arith.subf %w, %g : tensor<4xf16>
  return %loss, %nw : tensor<4xf16>, tensor<4xf16>
}
