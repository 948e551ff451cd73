// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-mixed-precision | FileCheck %s --check-prefix=F16
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-mixed-precision | mpt-opt --verify-each -o /dev/null
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-mixed-precision="dtype=bf16" | FileCheck %s --check-prefix=BF16
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-mixed-precision="loss-scale=static init-scale=1024" | FileCheck %s --check-prefix=STATIC
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-mixed-precision="dtype=bf16 loss-scale=dynamic growth-interval=100 min-scale=1" | FileCheck %s --check-prefix=BF16DYN
// RUN: not mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-mixed-precision="loss-scale=sometimes" 2>&1 | FileCheck %s --check-prefix=BADMODE
// RUN: not mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-mixed-precision="dtype=f8" 2>&1 | FileCheck %s --check-prefix=BADTYPE
// RUN: not mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-mixed-precision="growth-factor=1" 2>&1 | FileCheck %s --check-prefix=BADGROWTH

// --mpt-mixed-precision on the bundled MLP step: autocast, loss scaling
// (dynamic by default for f16, none for bf16), cast cleanup and the lowering
// of every mpt op. The output is upstream MLIR (plus the contract's
// attributes, which mpt-run reads, and `mpt.recomputed` on the forward ops
// copied into the backward, which keeps a later CSE from merging them back)
// and verifies.

// F16-LABEL: func.func @mlp_step
// The dynamic loss-scaling ABI: two state arguments and two results.
// F16-SAME: %[[SCALE:[a-z0-9]+]]: tensor<f32> {mpt.initial_value = 6.553600e+04 : f32, mpt.role = "loss_scale"}
// F16-SAME: tensor<i32> {mpt.initial_value = 0 : i32, mpt.role = "loss_scale_growth_tracker"}
// F16-SAME: tensor<f32> {mpt.updates = 7 : i64}, tensor<i32> {mpt.updates = 8 : i64})
// F16-NOT: mpt.grad_seed
// F16-NOT: mpt.gradient
// F16-NOT: mpt.scale
// F16-NOT: mpt.unscale_and_check
// F16-NOT: mpt.update_scale
// F16-NOT: mpt.guard_update
// F16: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf16>, tensor<16x32xf16>) outs(%{{.*}} : tensor<8x32xf32>)
// F16: return

// BF16-LABEL: func.func @mlp_step
// BF16-NOT: loss_scale
// BF16: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xbf16>, tensor<16x32xbf16>) outs(%{{.*}} : tensor<8x32xf32>)
// BF16-NOT: {{mpt\.[a-z_]+ }}
// BF16: mpt.recomputed
// BF16-NOT: {{mpt\.[a-z_]+ }}
// BF16: return
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-mixed-precision="dtype=bf16 recompute=0" | FileCheck %s --check-prefix=NORECOMPUTE
// NORECOMPUTE-LABEL: func.func @mlp_step
// NORECOMPUTE-NOT: mpt.recomputed

// Static scaling adds no state: the scale and its reciprocal (2^-10) are
// constants.
// STATIC-LABEL: func.func @mlp_step
// STATIC-NOT: loss_scale
// STATIC-DAG: arith.constant 9.765625E-4 : f32
// STATIC-DAG: arith.constant 1.024000e+03 : f32
// STATIC-NOT: {{mpt\.[a-z_]+ }}
// STATIC: return

// bf16 can still ask for scaling; the options reach the scale update.
// BF16DYN-LABEL: func.func @mlp_step
// BF16DYN-SAME: mpt.role = "loss_scale"
// BF16DYN-DAG: arith.constant 100 : i32
// BF16DYN-DAG: arith.constant 1.000000e+00 : f32

// BADMODE: for the --loss-scale option: Cannot find option named 'sometimes'!
// BADTYPE: for the --dtype option: Cannot find option named 'f8'!
// BADGROWTH: error: {{.*}}growth-factor
