// Autocast and loss scaling compose in either order on the MLP example: the
// loss-scaling ops stay f32 (the scaled seed, the unscaled gradients, the
// guarded updates), and the result lowers to upstream MLIR.
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-insert-loss-scaling --mpt-precision-report 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-insert-loss-scaling --mpt-autocast | FileCheck %s
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-autocast --mpt-insert-loss-scaling | FileCheck %s
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-autocast --mpt-insert-loss-scaling --mpt-lower-loss-scaling --mpt-strip-training-markers | FileCheck %s --check-prefix=LOWERED

// REPORT: mpt.scale [backward] f32: loss scaling op: stays f32
// REPORT: linalg.matmul [backward] f16: allow
// REPORT: mpt.unscale_and_check [update] f32: loss scaling op: stays f32
// REPORT: mpt.guard_update [update] f32: loss scaling op: stays f32
// REPORT: mpt.update_scale [update] f32: loss scaling op: stays f32

// CHECK-LABEL: func.func @mlp_step
// CHECK: mpt.scale %{{.*}} by %{{.*}} : tensor<f32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x8xf16>, tensor<8x4xf16>) outs(%{{.*}} : tensor<32x4xf32>)
// CHECK: mpt.unscale_and_check %{{.*}} by %{{.*}} : tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>
// CHECK: mpt.guard_update %{{.*}}, %{{.*}} if %{{.*}} : tensor<16x32xf32>

// LOWERED-LABEL: func.func @mlp_step
// LOWERED-NOT: = mpt.
// LOWERED: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf16>, tensor<16x32xf16>) outs(%{{.*}} : tensor<8x32xf32>)
// LOWERED-NOT: = mpt.
// LOWERED: return
