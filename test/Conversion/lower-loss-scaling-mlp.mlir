// The canonical example, loss-scaled and lowered: the result verifies, has
// no mpt ops left (markers stripped too), and lowers to the LLVM dialect
// with the CPU pipeline.
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-insert-loss-scaling --mpt-lower-loss-scaling --mpt-strip-training-markers | FileCheck %s
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-insert-loss-scaling --mpt-lower-loss-scaling --mpt-strip-training-markers \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata --lower-affine \
// RUN:   --convert-math-to-llvm --convert-math-to-libm --convert-vector-to-llvm --convert-arith-to-llvm \
// RUN:   --convert-index-to-llvm --convert-cf-to-llvm --finalize-memref-to-llvm --convert-func-to-llvm \
// RUN:   --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @mlp_step(
// CHECK-SAME: %{{.*}}: tensor<f32> {mpt.initial_value = 6.553600e+04 : f32, mpt.role = "loss_scale"}, %{{.*}}: tensor<i32> {mpt.initial_value = 0 : i32, mpt.role = "loss_scale_growth_tracker"})
// CHECK-SAME: tensor<f32> {mpt.updates = 7 : i64}, tensor<i32> {mpt.updates = 8 : i64})
// CHECK-NOT: mpt.{{[a-z_]+}} %
// CHECK: return

// LLVM: llvm.func @mlp_step(
