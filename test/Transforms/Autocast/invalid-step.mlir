// A step that breaks the training-graph contract: autocast and the report
// stop with the analysis's diagnostic and change nothing.
// RUN: mpt-opt %s --mpt-autocast --verify-diagnostics -o /dev/null
// RUN: mpt-opt %s --mpt-precision-report --verify-diagnostics -o /dev/null

func.func @gradient_without_seed(%w: tensor<4x4xf32> {mpt.role = "param"}) -> tensor<4x4xf32> {
  // expected-error@+1 {{'mpt.gradient' in a step without a backward seed}}
  %g = mpt.gradient %w : tensor<4x4xf32>
  return %g : tensor<4x4xf32>
}
