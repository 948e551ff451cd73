// RUN: mpt-opt %s --split-input-file --verify-diagnostics

func.func @gradient_of_integer_tensor(%g: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'mpt.gradient' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<4xi32>'}}
  %0 = "mpt.gradient"(%g) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @seed_of_integer_loss(%l: tensor<i32>) -> tensor<i32> {
  // expected-error @+1 {{'mpt.grad_seed' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<i32>'}}
  %0 = "mpt.grad_seed"(%l) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @gradient_changes_type(%g: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'mpt.gradient' op requires the same type for all operands and results}}
  %0 = "mpt.gradient"(%g) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @scale_not_scalar(%x: tensor<f32>, %s: tensor<2xf32>) -> tensor<f32> {
  // expected-error @+1 {{'mpt.scale' op operand #1 must be 0-d tensor of f32, but got 'tensor<2xf32>'}}
  %0 = "mpt.scale"(%x, %s) : (tensor<f32>, tensor<2xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @unscale_nothing(%s: tensor<f32>) -> tensor<i1> {
  // expected-error @+1 {{'mpt.unscale_and_check' op needs at least one gradient}}
  %0 = "mpt.unscale_and_check"(%s) : (tensor<f32>) -> tensor<i1>
  return %0 : tensor<i1>
}

// -----

func.func @growth_factor_too_small(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) -> (tensor<f32>, tensor<i32>) {
  // expected-error @+1 {{'mpt.update_scale' op growth_factor must be finite and > 1, got 1}}
  %0, %1 = mpt.update_scale %s, %t, %f {growth_factor = 1.0 : f32}
  return %0, %1 : tensor<f32>, tensor<i32>
}

// -----

func.func @backoff_out_of_range(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) -> (tensor<f32>, tensor<i32>) {
  // expected-error @+1 {{'mpt.update_scale' op backoff_factor must be in (0, 1), got 1.5}}
  %0, %1 = mpt.update_scale %s, %t, %f {backoff_factor = 1.5 : f32}
  return %0, %1 : tensor<f32>, tensor<i32>
}

// -----

func.func @zero_interval(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) -> (tensor<f32>, tensor<i32>) {
  // expected-error @+1 {{'mpt.update_scale' op growth_interval must be >= 1, got 0}}
  %0, %1 = mpt.update_scale %s, %t, %f {growth_interval = 0 : i32}
  return %0, %1 : tensor<f32>, tensor<i32>
}

// -----

func.func @negative_min_scale(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) -> (tensor<f32>, tensor<i32>) {
  // expected-error @+1 {{'mpt.update_scale' op min_scale must be finite and >= 0, got -1}}
  %0, %1 = mpt.update_scale %s, %t, %f {min_scale = -1.0 : f32}
  return %0, %1 : tensor<f32>, tensor<i32>
}

// -----

func.func @guard_type_mismatch(%a: tensor<2xf32>, %b: tensor<2xf16>, %f: tensor<i1>) -> tensor<2xf32> {
  // expected-error @+1 {{'mpt.guard_update' op failed to verify that all of {updated, original, result} have same type}}
  %0 = "mpt.guard_update"(%a, %b, %f) : (tensor<2xf32>, tensor<2xf16>, tensor<i1>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// expected-error @+1 {{argument #0: 'mpt.role' must be one of "param", "data", "optimizer_state", "hyperparameter", "loss_grad", "loss_scale", "loss_scale_growth_tracker", "buffer", "rng_state", "fp8_amax_history", "fp8_scale", got "weights"}}
func.func @unknown_role(%w: tensor<2xf32> {mpt.role = "weights"}) {
  return
}

// -----

// expected-error @+1 {{argument #0: an "rng_state" argument must be tensor<2xi64> ([seed, offset]), got 'tensor<2xi32>'}}
func.func @rng_state_type(%s: tensor<2xi32> {mpt.role = "rng_state"}) {
  return
}

// -----

// expected-error @+1 {{argument #0: unknown mpt argument attribute 'mpt.rol'}}
func.func @misspelt_attribute(%w: tensor<2xf32> {mpt.rol = "param"}) {
  return
}

// -----

// expected-error @+1 {{result #0: 'mpt.updates' index 3 is out of range (the function has 1 arguments)}}
func.func @updates_out_of_range(%w: tensor<2xf32> {mpt.role = "param"}) -> (tensor<2xf32> {mpt.updates = 3 : i64}) {
  return %w : tensor<2xf32>
}

// -----

// expected-error @+1 {{result #0 ('tensor<3xf32>') updates argument #0 of a different type ('tensor<2xf32>')}}
func.func @updates_type_mismatch(%w: tensor<2xf32> {mpt.role = "param"}) -> (tensor<3xf32> {mpt.updates = 0 : i64}) {
  %0 = tensor.empty() : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// expected-error @+1 {{results #0 and #1 both update argument #0}}
func.func @updated_twice(%w: tensor<2xf32> {mpt.role = "param"})
    -> (tensor<2xf32> {mpt.updates = 0 : i64}, tensor<2xf32> {mpt.updates = 0 : i64}) {
  return %w, %w : tensor<2xf32>, tensor<2xf32>
}

// -----

// The first earlier result that updates the same argument is named, after
// others that update other arguments.
// expected-error @+1 {{results #1 and #3 both update argument #1}}
func.func @updated_twice_later(%w: tensor<2xf32> {mpt.role = "param"},
                               %v: tensor<2xf32> {mpt.role = "param"})
    -> (tensor<2xf32> {mpt.updates = 0 : i64}, tensor<2xf32> {mpt.updates = 1 : i64},
        tensor<2xf32>, tensor<2xf32> {mpt.updates = 1 : i64}) {
  return %w, %v, %w, %v : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{result #0: 'mpt.role' must be "loss" or "guard", got "output"}}
func.func @result_role(%w: tensor<f32>) -> (tensor<f32> {mpt.role = "output"}) {
  return %w : tensor<f32>
}

// -----

// An integer loss cannot be differentiated: said at the function, not later
// as a seed that does not contribute to it.
// expected-error @+1 {{result #1: a loss (mpt.role = "loss") must be a floating-point value, got 'tensor<i32>'}}
func.func @integer_loss(%w: tensor<f32>, %l: tensor<i32>) -> (tensor<f32>, tensor<i32> {mpt.role = "loss"}) {
  return %w, %l : tensor<f32>, tensor<i32>
}

// -----

// expected-error @+1 {{result #0: a guard (mpt.role = "guard") must be a tensor<i1>}}
func.func @guard_not_i1(%w: tensor<f32>) -> (tensor<f32> {mpt.role = "guard", mpt.message = "m"}) {
  return %w : tensor<f32>
}

// -----

// expected-error @+1 {{result #0: a guard needs its 'mpt.message' string}}
func.func @guard_no_message(%g: tensor<i1>) -> (tensor<i1> {mpt.role = "guard"}) {
  return %g : tensor<i1>
}

// -----

// expected-error @+1 {{result #0: 'mpt.message' is a string on a guard result only}}
func.func @message_not_guard(%w: tensor<f32>) -> (tensor<f32> {mpt.message = "m"}) {
  return %w : tensor<f32>
}

// -----

// expected-error @+1 {{argument #0: 'mpt.initial_value' must be a number, got "big"}}
func.func @initial_value_not_number(%s: tensor<f32> {mpt.role = "loss_scale", mpt.initial_value = "big"}) {
  return
}

// -----

// A working copy names its parameter (autocast's master-weights).
// expected-error @+1 {{argument #1: 'mpt.working_copy_of' names argument #0, which is not a parameter}}
func.func @working_copy_of_data(%x: tensor<4xf32> {mpt.role = "data"},
                                %c: tensor<4xbf16> {mpt.role = "optimizer_state", mpt.working_copy_of = 0 : i64}) {
  return
}

// -----

// expected-error @+1 {{argument #1: 'mpt.working_copy_of' needs a float tensor of the shape of its parameter #0}}
func.func @working_copy_shape(%w: tensor<4xf32> {mpt.role = "param"},
                              %c: tensor<8xbf16> {mpt.role = "optimizer_state", mpt.working_copy_of = 0 : i64}) {
  return
}
