// RUN: mpt-opt %s | mpt-opt | FileCheck %s
// RUN: mpt-opt %s --mlir-print-op-generic | mpt-opt | FileCheck %s

// Round trip of every mpt op, in custom and generic form.

// CHECK-LABEL: func.func @markers
// CHECK: %[[SEED:.*]] = mpt.grad_seed %{{.*}} : tensor<f32>
// CHECK: mpt.gradient %{{.*}} : tensor<4x3xf16>
func.func @markers(%loss: tensor<f32>, %g: tensor<4x3xf16>) -> (tensor<f32>, tensor<4x3xf16>) {
  %seed = mpt.grad_seed %loss : tensor<f32>
  %gw = mpt.gradient %g : tensor<4x3xf16>
  return %seed, %gw : tensor<f32>, tensor<4x3xf16>
}

// CHECK-LABEL: func.func @generic_form_markers
// CHECK: mpt.grad_seed %{{.*}} : tensor<f32>
// CHECK: mpt.gradient %{{.*}} : tensor<2xbf16>
func.func @generic_form_markers(%loss: tensor<f32>, %g: tensor<2xbf16>) -> (tensor<f32>, tensor<2xbf16>) {
  %seed = "mpt.grad_seed"(%loss) : (tensor<f32>) -> tensor<f32>
  %gw = "mpt.gradient"(%g) : (tensor<2xbf16>) -> tensor<2xbf16>
  return %seed, %gw : tensor<f32>, tensor<2xbf16>
}

// CHECK-LABEL: func.func @loss_scaling
// CHECK: mpt.scale %{{.*}} by %{{.*}} : tensor<f32>
// CHECK: %[[U:.*]]:2, %[[INF:.*]] = mpt.unscale_and_check %{{.*}}, %{{.*}} by %{{.*}} : tensor<4x3xf32>, tensor<3xf32>
// CHECK: mpt.update_scale %{{.*}}, %{{.*}}, %[[INF]] {growth_factor = 4.000000e+00 : f32, growth_interval = 10 : i32}
// CHECK: mpt.guard_update %[[U]]#0, %{{.*}} if %[[INF]] : tensor<4x3xf32>
func.func @loss_scaling(%seed: tensor<f32>, %scale: tensor<f32>, %tracker: tensor<i32>,
                        %dw: tensor<4x3xf32>, %db: tensor<3xf32>, %w: tensor<4x3xf32>)
    -> (tensor<f32>, tensor<f32>, tensor<i32>, tensor<4x3xf32>) {
  %s = mpt.scale %seed by %scale : tensor<f32>
  %u:3 = mpt.unscale_and_check %dw, %db by %scale : tensor<4x3xf32>, tensor<3xf32>
  %ns, %nt = mpt.update_scale %scale, %tracker, %u#2 {growth_factor = 4.0 : f32, growth_interval = 10 : i32}
  %nw = mpt.guard_update %u#0, %w if %u#2 : tensor<4x3xf32>
  return %s, %ns, %nt, %nw : tensor<f32>, tensor<f32>, tensor<i32>, tensor<4x3xf32>
}

// The contract's attributes are accepted on arguments and results.
// CHECK-LABEL: func.func @contract_attributes
// CHECK-SAME: mpt.role = "param"
// CHECK-SAME: mpt.initial_value = 6.553600e+04 : f32, mpt.role = "loss_scale"
// CHECK-SAME: mpt.role = "loss"
// CHECK-SAME: mpt.updates = 0 : i64
func.func @contract_attributes(%w: tensor<2xf32> {mpt.role = "param"},
                               %s: tensor<f32> {mpt.role = "loss_scale", mpt.initial_value = 65536.0 : f32})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<2xf32> {mpt.updates = 0 : i64}) {
  return %s, %w : tensor<f32>, tensor<2xf32>
}
