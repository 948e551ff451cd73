// A gradient computed by a loop that also reads another gradient: one
// overflow check over all gradients cannot come before that read. Before,
// the marker was moved above its own definition (invalid IR, exit 0 with
// --verify-each=0).
// RUN: mpt-opt %s --verify-diagnostics --mpt-insert-loss-scaling
// RUN: not mpt-opt %s --verify-each=0 --mpt-insert-loss-scaling -o /dev/null

func.func @loop_reads_gradient(%w: tensor<4xf32> {mpt.role = "param"},
                               %v: tensor<4xf32> {mpt.role = "param"})
    -> (tensor<4xf32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64},
        tensor<4xf32> {mpt.updates = 1 : i64}) {
  %loss = arith.mulf %w, %v : tensor<4xf32>
  %seed = mpt.grad_seed %loss : tensor<4xf32>
  %dw = arith.mulf %seed, %v : tensor<4xf32>
  %gw = mpt.gradient %dw : tensor<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  // The loop carries the gradient of %w and computes the one of %v.
  // expected-note @+1 {{this 'scf.for' reads a gradient}}
  %r:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %gw, %b = %seed)
      -> (tensor<4xf32>, tensor<4xf32>) {
    %b2 = arith.mulf %b, %w : tensor<4xf32>
    scf.yield %a, %b2 : tensor<4xf32>, tensor<4xf32>
  }
  // expected-error @+1 {{this gradient is computed from an op that reads another gradient; loss scaling checks all gradients at once, before any op reads one}}
  %gv = mpt.gradient %r#1 : tensor<4xf32>
  %nw = arith.subf %w, %r#0 : tensor<4xf32>
  %nv = arith.subf %v, %gv : tensor<4xf32>
  return %loss, %nw, %nv : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
