// Steps that mpt-run must refuse, one per function (chosen with --entry).

// A dynamic batch size: mpt-run needs static shapes.
func.func @dynamic(%w: tensor<4xf32> {mpt.role = "param"},
                   %x: tensor<?x4xf32> {mpt.role = "data"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %l = arith.constant dense<0.0> : tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}

// No result is the loss.
func.func @no_loss(%w: tensor<4xf32> {mpt.role = "param"})
    -> (tensor<4xf32> {mpt.updates = 0 : i64}) {
  return %w : tensor<4xf32>
}

// The loss has four elements: mpt-run logs one number per step.
func.func @vector_loss(%w: tensor<4xf32> {mpt.role = "param"})
    -> (tensor<4xf32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  return %w, %w : tensor<4xf32>, tensor<4xf32>
}

// An i16 argument.
func.func @i16_arg(%w: tensor<4xi16> {mpt.role = "param"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4xi16> {mpt.updates = 0 : i64}) {
  %l = arith.constant dense<0.0> : tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xi16>
}

// A gradient that reaches no update: the TrainingGraph analysis rejects it.
func.func @dangling(%w: tensor<4xf32> {mpt.role = "param"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %l = arith.constant dense<1.0> : tensor<f32>
  %seed = mpt.grad_seed %l : tensor<f32>
  %seed2 = mpt.grad_seed %l : tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}

// complex arithmetic has no lowering in --mpt-lower-to-cpu.
func.func @complex_op(%w: tensor<2xf32> {mpt.role = "param"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<2xf32> {mpt.updates = 0 : i64}) {
  %c = arith.constant 0 : index
  %a = tensor.extract %w[%c] : tensor<2xf32>
  %z = complex.create %a, %a : complex<f32>
  %n = complex.abs %z : complex<f32>
  %l = tensor.from_elements %n : tensor<f32>
  return %l, %w : tensor<f32>, tensor<2xf32>
}

// The "gradient" of a data argument: the seed does not reach it. mpt-run
// names the gradient after the parameter it updates (its SSA name, %w).
func.func @gradient_not_from_seed(%w: tensor<4xf32> {mpt.role = "param"},
                                  %x: tensor<4xf32> {mpt.role = "data"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %l = arith.constant dense<1.0> : tensor<f32>
  %seed = mpt.grad_seed %l : tensor<f32>
  %g = mpt.gradient %x : tensor<4xf32>
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %l, %w2 : tensor<f32>, tensor<4xf32>
}
