// The loss region stays f32 by default, as PyTorch's fp32 list keeps losses
// and their backward: on the bundled MLP, the ops after the last forward
// contraction that reads a parameter (the output bias add, the
// target-times-logit contraction of the cross-entropy) and the backward ops
// from the seed up to the first backward contraction (dL/dlogits). The
// contractions of the model (forward and backward) stay f16. loss-region=0
// turns the rule off: the bias add and the loss contraction are painted f16.
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-precision-report -o /dev/null 2>&1 | FileCheck %s
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-precision-report="loss-region=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-mixed-precision="loss-region=0" -o /dev/null

// CHECK-LABEL: mpt precision report: @mlp_step
// CHECK: mlp_step.mlir:51:10 linalg.matmul [forward] f16: allow
// CHECK-NEXT: mlp_step.mlir:53:13 linalg.generic [forward] f32: infer op in the loss region (after the last forward contraction, before the loss): stays f32, as PyTorch's fp32 list keeps losses (loss-region=0 turns this off)
// CHECK: mlp_step.mlir:84:13 linalg.generic [forward] f32: allow op in the loss region (after the last forward contraction, before the loss)
// CHECK: mlp_step.mlir:117:14 linalg.generic [backward] f32: infer op in the loss region (from the backward seed to the first backward contraction)
// CHECK: mlp_step.mlir:132:10 linalg.matmul [backward] f16: allow
// CHECK: mlp_step.mlir:144:11 linalg.matmul [backward] f16: allow
// CHECK: mlp_step.mlir:146:9 linalg.generic [backward] f16:
// CHECK: mlp_step.mlir:158:10 linalg.matmul [backward] f16: allow

// OFF-LABEL: mpt precision report: @mlp_step
// OFF: mlp_step.mlir:53:13 linalg.generic [forward] f16: infer (structure: elementwise arithmetic) between allow ops: painted f16
// OFF: mlp_step.mlir:84:13 linalg.generic [forward] f16: allow (structure: contraction)
// OFF-NOT: loss region
