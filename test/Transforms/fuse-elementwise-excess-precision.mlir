// RUN: mpt-opt %s --split-input-file --mpt-fuse-elementwise="excess-precision=1" | FileCheck %s
// Without the option every rounding stays:
// RUN: mpt-opt %s --split-input-file --mpt-fuse-elementwise | FileCheck %s --check-prefix=ROUNDED
// The marks the pass puts on widenings while it fuses do not stay:
// RUN: mpt-opt %s --split-input-file --mpt-fuse-elementwise="excess-precision=1" | FileCheck %s --check-prefix=NOMARK
// NOMARK-NOT: mpt.widens_input

// Two autocast ops fused: the product's rounding to bf16, which the add
// widened back, goes; the add's rounding (stored) stays.
#id = affine_map<(i) -> (i)>
// CHECK-LABEL: func.func @chain
// CHECK: linalg.generic
// CHECK: %[[P:.*]] = arith.mulf
// CHECK-NEXT: %[[Z:.*]] = arith.extf
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[P]], %[[Z]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.truncf %[[S]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
// ROUNDED-LABEL: func.func @chain
// ROUNDED: arith.mulf
// ROUNDED-NEXT: arith.truncf {{.*}} : f32 to bf16
// ROUNDED: arith.extf {{.*}} : bf16 to f32
// ROUNDED: arith.addf
func.func @chain(%a: tensor<16xbf16>, %b: tensor<16xbf16>, %c: tensor<16xbf16>) -> tensor<16xbf16> {
  %e = tensor.empty() : tensor<16xbf16>
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<16xbf16>, tensor<16xbf16>) outs(%e : tensor<16xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.truncf %2 : f32 to bf16
    linalg.yield %3 : bf16
  } -> tensor<16xbf16>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%p, %c : tensor<16xbf16>, tensor<16xbf16>) outs(%e : tensor<16xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.addf %0, %1 : f32
    %3 = arith.truncf %2 : f32 to bf16
    linalg.yield %3 : bf16
  } -> tensor<16xbf16>
  return %s : tensor<16xbf16>
}

// -----

// A producer whose f16 result the step also returns (stored): the fused op
// yields the rounded value, and its reader takes the f32 product.
#id = affine_map<(i) -> (i)>
// CHECK-LABEL: func.func @stored_and_read
// CHECK: %[[P:.*]] = arith.mulf
// CHECK-NEXT: %[[R:.*]] = arith.truncf %[[P]] : f32 to f16
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[P]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[R]], %[[S]] : f16, f32
func.func @stored_and_read(%a: tensor<16xf32>) -> (tensor<16xf16>, tensor<16xf32>) {
  %eh = tensor.empty() : tensor<16xf16>
  %ef = tensor.empty() : tensor<16xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<16xf32>) outs(%eh : tensor<16xf16>) {
  ^bb0(%x: f32, %o: f16):
    %0 = arith.mulf %x, %x : f32
    %1 = arith.truncf %0 : f32 to f16
    linalg.yield %1 : f16
  } -> tensor<16xf16>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%p : tensor<16xf16>) outs(%ef : tensor<16xf32>) {
  ^bb0(%x: f16, %o: f32):
    %0 = arith.extf %x : f16 to f32
    %1 = arith.addf %0, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<16xf32>
  return %p, %s : tensor<16xf16>, tensor<16xf32>
}

// -----

// Kept: a cast op's rounding of an input (autocast's cast of an f32 value
// into a low op) and of a constant, a round trip written inside one op,
// and FP8 (a quantization, not autocast's rounding).
#id = affine_map<(i) -> (i)>
// CHECK-LABEL: func.func @kept
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: bf16, %{{.*}}: f32):
// CHECK-NEXT: %[[C:.*]] = arith.truncf %[[X]] : f32 to bf16
// CHECK-NEXT: %[[CF:.*]] = arith.extf %[[C]] : bf16 to f32
// CHECK-NEXT: arith.mulf %[[CF]], %[[CF]] : f32
// CHECK-LABEL: func.func @kept_constant
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT: arith.extf %{{.*}} : bf16 to f32
// CHECK-LABEL: func.func @kept_in_one_op
// CHECK: %[[T:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[T]] : bf16 to f32
// CHECK-NEXT: linalg.yield %[[T]], %[[W]]
// CHECK-LABEL: func.func @kept_fp8
// CHECK: arith.truncf %{{.*}} : f32 to f8E4M3FN
// CHECK-NEXT: arith.extf %{{.*}} : f8E4M3FN to f32
func.func @kept(%a: tensor<16xf32>, %b: tensor<16xbf16>) -> tensor<16xf32> {
  %eb = tensor.empty() : tensor<16xbf16>
  %ef = tensor.empty() : tensor<16xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<16xf32>) outs(%eb : tensor<16xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %0 = arith.truncf %x : f32 to bf16
    linalg.yield %0 : bf16
  } -> tensor<16xbf16>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%c, %b : tensor<16xbf16>, tensor<16xbf16>) outs(%ef : tensor<16xf32>) {
  ^bb0(%x: bf16, %y: bf16, %o: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.mulf %0, %0 : f32
    %2 = arith.extf %y : bf16 to f32
    %3 = arith.addf %1, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<16xf32>
  return %s : tensor<16xf32>
}

func.func @kept_constant() -> tensor<16xf32> {
  %k = arith.constant dense<1.01> : tensor<16xf32>
  %eb = tensor.empty() : tensor<16xbf16>
  %ef = tensor.empty() : tensor<16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%k : tensor<16xf32>) outs(%eb : tensor<16xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %0 = arith.truncf %x : f32 to bf16
    linalg.yield %0 : bf16
  } -> tensor<16xbf16>
  %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%r : tensor<16xbf16>) outs(%ef : tensor<16xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %0 = arith.extf %x : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  return %w : tensor<16xf32>
}

func.func @kept_in_one_op(%a: tensor<16xf32>) -> (tensor<16xbf16>, tensor<16xf32>) {
  %eb = tensor.empty() : tensor<16xbf16>
  %ef = tensor.empty() : tensor<16xf32>
  %r:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<16xf32>) outs(%eb, %ef : tensor<16xbf16>, tensor<16xf32>) {
  ^bb0(%x: f32, %o: bf16, %o2: f32):
    %0 = arith.mulf %x, %x : f32
    %1 = arith.truncf %0 : f32 to bf16
    %2 = arith.extf %1 : bf16 to f32
    linalg.yield %1, %2 : bf16, f32
  } -> (tensor<16xbf16>, tensor<16xf32>)
  return %r#0, %r#1 : tensor<16xbf16>, tensor<16xf32>
}

func.func @kept_fp8(%a: tensor<16xf32>) -> tensor<16xf32> {
  %e8 = tensor.empty() : tensor<16xf8E4M3FN>
  %ef = tensor.empty() : tensor<16xf32>
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<16xf32>) outs(%e8 : tensor<16xf8E4M3FN>) {
  ^bb0(%x: f32, %o: f8E4M3FN):
    %0 = arith.mulf %x, %x : f32
    %1 = arith.truncf %0 : f32 to f8E4M3FN
    linalg.yield %1 : f8E4M3FN
  } -> tensor<16xf8E4M3FN>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%q : tensor<16xf8E4M3FN>) outs(%ef : tensor<16xf32>) {
  ^bb0(%x: f8E4M3FN, %o: f32):
    %0 = arith.extf %x : f8E4M3FN to f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  return %d : tensor<16xf32>
}
