// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-training-graph-report --mpt-autocast --mpt-training-graph-report -o /dev/null 2>&1 | FileCheck %s
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-training-graph-report --mpt-autocast="dtype=bf16" --mpt-training-graph-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=BF16

// The report run again after a precision change shows the savings: most
// activations the backward reads are low-precision values now (2 bytes an
// element); those read by f32 ops (the softmax's exponentials and row sums)
// stay f32. Parameters and gradients stay f32; the f16 copy of w2 that the
// backward matmul reads (32x4, 256 B) is counted on its own, as a weight
// copy, not as a per-sample activation.
// CHECK-LABEL: mpt training-graph report: @mlp_step
// CHECK:     activations             2848 B  (f32: 2848)
// CHECK-NEXT: total                   8256 B
// CHECK-LABEL: mpt training-graph report: @mlp_step
// CHECK:     params                  2704 B  (f32: 2704)
// CHECK-NEXT: gradients               2704 B  (f32: 2704)
// CHECK:     activations             1568 B  (f16: 1280, f32: 288)
// CHECK-NEXT: param_copies             256 B  (f16: 256)
// CHECK-NEXT: total                   7232 B

// BF16-LABEL: mpt training-graph report: @mlp_step
// BF16: activations             2848 B  (f32: 2848)
// BF16-LABEL: mpt training-graph report: @mlp_step
// BF16: activations             1568 B  (bf16: 1280, f32: 288)
// BF16-NEXT: param_copies             256 B  (bf16: 256)
