// The loss-scaling ops round-trip, and their verifiers reject bad operands
// and attributes.
// RUN: mpt-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @roundtrip(
// CHECK: %[[S:.*]] = mpt.scale %{{.*}} by %{{.*}} : tensor<4xf16>
// CHECK: %[[U:.*]]:2, %[[F:.*]] = mpt.unscale_and_check %{{.*}}, %{{.*}} by %{{.*}} : tensor<4xf32>, tensor<2x2xbf16>
// CHECK: mpt.update_scale %{{.*}}, %{{.*}}, %[[F]]{{$}}
// CHECK: mpt.update_scale %{{.*}}, %{{.*}}, %[[F]] {backoff_factor = 2.500000e-01 : f32, growth_factor = 4.000000e+00 : f32, growth_interval = 10 : i32, min_scale = 1.000000e+00 : f32}
// CHECK: mpt.guard_update %[[U]]#0, %{{.*}} if %[[F]] : tensor<4xf32>
func.func @roundtrip(%a: tensor<4xf16>, %g: tensor<4xf32>, %h: tensor<2x2xbf16>, %s: tensor<f32>, %t: tensor<i32>)
    -> (tensor<4xf16>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<4xf32>) {
  %scaled = mpt.scale %a by %s : tensor<4xf16>
  %u:2, %f = mpt.unscale_and_check %g, %h by %s : tensor<4xf32>, tensor<2x2xbf16>
  %s1, %t1 = mpt.update_scale %s, %t, %f
  %s2, %t2 = mpt.update_scale %s, %t, %f {growth_factor = 4.0 : f32, backoff_factor = 0.25 : f32, growth_interval = 10 : i32, min_scale = 1.0 : f32}
  %kept = mpt.guard_update %u#0, %g if %f : tensor<4xf32>
  return %scaled, %s1, %t1, %s2, %t2, %kept : tensor<4xf16>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<4xf32>
}

// -----

func.func @scale_not_f32(%a: tensor<4xf32>, %s: tensor<f16>) -> tensor<4xf32> {
  // expected-error @+1 {{'mpt.scale' op operand #1 must be 0-d tensor of f32, but got 'tensor<f16>'}}
  %r = "mpt.scale"(%a, %s) : (tensor<4xf32>, tensor<f16>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @no_gradients(%s: tensor<f32>) -> tensor<i1> {
  // expected-error @+1 {{'mpt.unscale_and_check' op needs at least one gradient}}
  %f = "mpt.unscale_and_check"(%s) : (tensor<f32>) -> tensor<i1>
  return %f : tensor<i1>
}

// -----

func.func @growth_factor(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) {
  // expected-error @+1 {{'mpt.update_scale' op growth_factor must be finite and > 1, got 1}}
  %s1, %t1 = mpt.update_scale %s, %t, %f {growth_factor = 1.0 : f32}
  return
}

// -----

func.func @backoff_factor(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) {
  // expected-error @+1 {{'mpt.update_scale' op backoff_factor must be in (0, 1), got 1}}
  %s1, %t1 = mpt.update_scale %s, %t, %f {backoff_factor = 1.0 : f32}
  return
}

// -----

func.func @growth_interval(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) {
  // expected-error @+1 {{'mpt.update_scale' op growth_interval must be >= 1, got 0}}
  %s1, %t1 = mpt.update_scale %s, %t, %f {growth_interval = 0 : i32}
  return
}

// -----

func.func @min_scale(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) {
  // expected-error @+1 {{'mpt.update_scale' op min_scale must be finite and >= 0, got -1}}
  %s1, %t1 = mpt.update_scale %s, %t, %f {min_scale = -1.0 : f32}
  return
}

// -----

func.func @guard_types(%a: tensor<4xf32>, %b: tensor<4xf16>, %f: tensor<i1>) -> tensor<4xf32> {
  // expected-error @+1 {{'mpt.guard_update' op failed to verify that all of {updated, original, result} have same type}}
  %r = "mpt.guard_update"(%a, %b, %f) : (tensor<4xf32>, tensor<4xf16>, tensor<i1>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
