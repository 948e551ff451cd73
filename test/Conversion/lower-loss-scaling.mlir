// --mpt-lower-loss-scaling: each loss-scaling op to linalg / arith / tensor.
// RUN: mpt-opt %s --split-input-file --mpt-lower-loss-scaling | FileCheck %s
// RUN: mpt-opt %s --split-input-file --mpt-lower-loss-scaling | FileCheck %s --check-prefix=NOMPT
// NOMPT-NOT: {{mpt\.(scale|unscale_and_check|update_scale|guard_update)}}

// mpt.scale: elementwise, in FP32 for an f16 tensor, rounded back to f16.
// CHECK-LABEL: func.func @scale_f16(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf16>, %[[S:.*]]: tensor<f32>)
// CHECK: %[[SV:.*]] = tensor.extract %[[S]][] : tensor<f32>
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x3xf16>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[X]] : tensor<2x3xf16>) outs(%[[INIT]] : tensor<2x3xf16>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT: %[[E:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[E]], %[[SV]] : f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[M]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[T]] : f16
// CHECK: return %[[R]]
func.func @scale_f16(%x: tensor<2x3xf16>, %s: tensor<f32>) -> tensor<2x3xf16> {
  %r = mpt.scale %x by %s : tensor<2x3xf16>
  return %r : tensor<2x3xf16>
}

// -----

// mpt.unscale_and_check: 1/scale in f64, rounded to f32; each gradient
// multiplied in FP32 (in f64 for an f64 gradient, dynamic shapes kept), a
// flag reduced over each unscaled gradient from false, and the flags or-ed
// as scalars (one flag threaded through all reductions would make them one
// alias set for bufferization).
// CHECK-LABEL: func.func @unscale_and_check(
// CHECK-SAME: %[[G16:.*]]: tensor<2x3xf16>, %[[G64:.*]]: tensor<?xf64>, %[[S:.*]]: tensor<f32>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-DAG: %[[FALSE:.*]] = arith.constant false
// CHECK-DAG: %[[INF16:.*]] = arith.constant 0x7C00 : f16
// CHECK-DAG: %[[NINF16:.*]] = arith.constant 0xFC00 : f16
// CHECK-DAG: %[[INF64:.*]] = arith.constant 0x7FF0000000000000 : f64
// CHECK: %[[SV:.*]] = tensor.extract %[[S]][] : tensor<f32>
// CHECK-NEXT: %[[S64:.*]] = arith.extf %[[SV]] : f32 to f64
// CHECK-NEXT: %[[INV64:.*]] = arith.divf %[[ONE]], %[[S64]] : f64
// CHECK-NEXT: %[[INV:.*]] = arith.truncf %[[INV64]] : f64 to f32
// CHECK: %[[U16:.*]] = linalg.generic {{.*}} ins(%[[G16]] : tensor<2x3xf16>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT: arith.mulf %{{.*}}, %[[INV]] : f32
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to f16
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<i1>
// CHECK-NEXT: %[[NONE1:.*]] = linalg.fill ins(%[[FALSE]] : i1) outs(%[[E1]] : tensor<i1>) -> tensor<i1>
// CHECK-NEXT: %[[F1:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%[[U16]] : tensor<2x3xf16>) outs(%[[NONE1]] : tensor<i1>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f16, %[[ACC:.*]]: i1):
// CHECK-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[V]], %[[V]] : f16
// CHECK-NEXT: %[[PINF:.*]] = arith.cmpf oeq, %[[V]], %[[INF16]] : f16
// CHECK-NEXT: %[[MINF:.*]] = arith.cmpf oeq, %[[V]], %[[NINF16]] : f16
// CHECK-NEXT: %[[O1:.*]] = arith.ori %[[NAN]], %[[PINF]] : i1
// CHECK-NEXT: %[[O2:.*]] = arith.ori %[[O1]], %[[MINF]] : i1
// CHECK-NEXT: %[[O3:.*]] = arith.ori %[[ACC]], %[[O2]] : i1
// CHECK-NEXT: linalg.yield %[[O3]] : i1
// CHECK: %[[FV1:.*]] = tensor.extract %[[F1]][] : tensor<i1>
// CHECK: %[[INVW:.*]] = arith.extf %[[INV]] : f32 to f64
// CHECK: %[[DIM:.*]] = tensor.dim %[[G64]], %{{.*}} : tensor<?xf64>
// CHECK-NEXT: %[[E64:.*]] = tensor.empty(%[[DIM]]) : tensor<?xf64>
// CHECK-NEXT: %[[U64:.*]] = linalg.generic {{.*}} ins(%[[G64]] : tensor<?xf64>) outs(%[[E64]] : tensor<?xf64>)
// CHECK-NEXT: ^bb0(%[[IN64:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT: arith.mulf %[[IN64]], %[[INVW]] : f64
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<i1>
// CHECK-NEXT: %[[NONE2:.*]] = linalg.fill ins(%[[FALSE]] : i1) outs(%[[E2]] : tensor<i1>) -> tensor<i1>
// CHECK-NEXT: %[[F2:.*]] = linalg.generic {{.*}} ins(%[[U64]] : tensor<?xf64>) outs(%[[NONE2]] : tensor<i1>)
// CHECK: arith.cmpf oeq, %{{.*}}, %[[INF64]] : f64
// CHECK: %[[FV2:.*]] = tensor.extract %[[F2]][] : tensor<i1>
// CHECK-NEXT: %[[ANY:.*]] = arith.ori %[[FV1]], %[[FV2]] : i1
// CHECK-NEXT: %[[F:.*]] = tensor.from_elements %[[ANY]] : tensor<i1>
// CHECK: return %[[U16]], %[[U64]], %[[F]]
func.func @unscale_and_check(%g16: tensor<2x3xf16>, %g64: tensor<?xf64>, %s: tensor<f32>)
    -> (tensor<2x3xf16>, tensor<?xf64>, tensor<i1>) {
  %u:2, %f = mpt.unscale_and_check %g16, %g64 by %s : tensor<2x3xf16>, tensor<?xf64>
  return %u#0, %u#1, %f : tensor<2x3xf16>, tensor<?xf64>, tensor<i1>
}

// -----

// mpt.update_scale: GradScaler's update on the extracted scalars.
// CHECK-LABEL: func.func @update_scale(
// CHECK-SAME: %[[S:.*]]: tensor<f32>, %[[T:.*]]: tensor<i32>, %[[F:.*]]: tensor<i1>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[INTERVAL:.*]] = arith.constant 7 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK-DAG: %[[GROWTH:.*]] = arith.constant 4.000000e+00 : f32
// CHECK-DAG: %[[MIN:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[BACKOFF:.*]] = arith.constant 2.500000e-01 : f32
// CHECK: %[[SV:.*]] = tensor.extract %[[S]][] : tensor<f32>
// CHECK-NEXT: %[[TV:.*]] = tensor.extract %[[T]][] : tensor<i32>
// CHECK-NEXT: %[[FV:.*]] = tensor.extract %[[F]][] : tensor<i1>
// CHECK-NEXT: %[[BACKED:.*]] = arith.mulf %[[SV]], %[[BACKOFF]] : f32
// CHECK-NEXT: %[[FLOORED:.*]] = arith.maximumf %[[BACKED]], %[[MIN]] : f32
// CHECK-NEXT: %[[GROWN:.*]] = arith.mulf %[[SV]], %[[GROWTH]] : f32
// CHECK-NEXT: %[[FINITE:.*]] = arith.cmpf olt, %[[GROWN]], %[[INF]] : f32
// CHECK-NEXT: %[[GROWN_OR_KEPT:.*]] = arith.select %[[FINITE]], %[[GROWN]], %[[SV]] : f32
// CHECK-NEXT: %[[COUNTED:.*]] = arith.addi %[[TV]], %[[ONE]] : i32
// CHECK-NEXT: %[[REACHED:.*]] = arith.cmpi sge, %[[COUNTED]], %[[INTERVAL]] : i32
// CHECK-NEXT: %[[CLEAN_S:.*]] = arith.select %[[REACHED]], %[[GROWN_OR_KEPT]], %[[SV]] : f32
// CHECK-NEXT: %[[CLEAN_T:.*]] = arith.select %[[REACHED]], %[[ZERO]], %[[COUNTED]] : i32
// CHECK-NEXT: %[[NEW_S:.*]] = arith.select %[[FV]], %[[FLOORED]], %[[CLEAN_S]] : f32
// CHECK-NEXT: %[[NEW_T:.*]] = arith.select %[[FV]], %[[ZERO]], %[[CLEAN_T]] : i32
// CHECK-NEXT: %[[RS:.*]] = tensor.from_elements %[[NEW_S]] : tensor<f32>
// CHECK-NEXT: %[[RT:.*]] = tensor.from_elements %[[NEW_T]] : tensor<i32>
// CHECK-NEXT: return %[[RS]], %[[RT]]
func.func @update_scale(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) -> (tensor<f32>, tensor<i32>) {
  %ns, %nt = mpt.update_scale %s, %t, %f {growth_factor = 4.0 : f32, backoff_factor = 0.25 : f32, growth_interval = 7 : i32, min_scale = 1.0 : f32}
  return %ns, %nt : tensor<f32>, tensor<i32>
}

// -----

// Without min_scale there is no floor (GradScaler).
// CHECK-LABEL: func.func @update_scale_no_floor(
// CHECK-NOT: arith.maximumf
// CHECK: return
func.func @update_scale_no_floor(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) -> (tensor<f32>, tensor<i32>) {
  %ns, %nt = mpt.update_scale %s, %t, %f
  return %ns, %nt : tensor<f32>, tensor<i32>
}

// -----

// mpt.guard_update: a select of whole tensors on the extracted flag.
// CHECK-LABEL: func.func @guard_update(
// CHECK-SAME: %[[NEW:.*]]: tensor<4xf32>, %[[OLD:.*]]: tensor<4xf32>, %[[F:.*]]: tensor<i1>)
// CHECK-NEXT: %[[FV:.*]] = tensor.extract %[[F]][] : tensor<i1>
// CHECK-NEXT: %[[R:.*]] = arith.select %[[FV]], %[[OLD]], %[[NEW]] : tensor<4xf32>
// CHECK-NEXT: return %[[R]]
func.func @guard_update(%new: tensor<4xf32>, %old: tensor<4xf32>, %f: tensor<i1>) -> tensor<4xf32> {
  %r = mpt.guard_update %new, %old if %f : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// The training markers are not the lowering's business.
// CHECK-LABEL: func.func @markers_kept(
// CHECK: mpt.grad_seed
// CHECK: mpt.gradient
func.func @markers_kept(%w: tensor<4xf32> {mpt.role = "param"})
    -> (tensor<4xf32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %loss = arith.mulf %w, %w : tensor<4xf32>
  %seed = mpt.grad_seed %loss : tensor<4xf32>
  %g = mpt.gradient %seed : tensor<4xf32>
  %nw = arith.subf %w, %g : tensor<4xf32>
  return %loss, %nw : tensor<4xf32>, tensor<4xf32>
}

// -----

// Nothing to lower: the step is left as it is (the pass drives only the
// loss-scaling ops and what their lowering creates, not a fold of every op).
// CHECK-LABEL: func.func @nothing_to_lower(
// CHECK-NEXT: %[[A:.*]] = arith.constant 1.0
// CHECK-NEXT: %[[B:.*]] = arith.constant 2.0
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT: return %[[S]]
func.func @nothing_to_lower() -> f32 {
  %a = arith.constant 1.0 : f32
  %b = arith.constant 2.0 : f32
  %s = arith.addf %a, %b : f32
  return %s : f32
}

// -----

// The constants the lowering creates (in its generics' bodies too) are
// uniqued with the step's and hoisted to the front of the function.
// CHECK-LABEL: func.func @constants_hoisted(
// CHECK-DAG: arith.constant 0x7C00 : f16
// CHECK-DAG: arith.constant 0xFC00 : f16
// CHECK-DAG: arith.constant false
// CHECK-DAG: arith.constant 1.000000e+00 : f64
// CHECK-NOT: arith.constant
// CHECK: return
func.func @constants_hoisted(%g1: tensor<4xf16>, %g2: tensor<4xf16>, %s: tensor<f32>)
    -> (tensor<4xf16>, tensor<4xf16>, tensor<i1>) {
  %one = arith.constant 1.0 : f64
  %u:2, %f = mpt.unscale_and_check %g1, %g2 by %s : tensor<4xf16>, tensor<4xf16>
  return %u#0, %u#1, %f : tensor<4xf16>, tensor<4xf16>, tensor<i1>
}
