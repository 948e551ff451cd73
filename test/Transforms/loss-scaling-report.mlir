// --mpt-loss-scaling-report says what loss scaling inserted: the mode and
// scale state, the seed scaled, the gradients unscaled and checked, the
// guarded results.
// RUN: mpt-opt %s --mpt-insert-loss-scaling --mpt-loss-scaling-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: mpt-opt %s --mpt-insert-loss-scaling="mode=static init-scale=1024" --mpt-loss-scaling-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATIC
// RUN: mpt-opt %s --mpt-insert-loss-scaling="min-scale=1 growth-interval=100" --mpt-loss-scaling-report="format=json output=%t.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: mpt-opt %s --mpt-loss-scaling-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not mpt-opt %s --mpt-loss-scaling-report=format=xml 2>&1 | FileCheck %s --check-prefix=BAD-FORMAT
// RUN: not mpt-opt %s --mpt-loss-scaling-report=output=%t.missing/dir/report.txt -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-OUTPUT

// DYNAMIC: mpt loss-scaling report: @step ({{.*}}loss-scaling-report.mlir:[[@LINE+51]]:1)
// DYNAMIC-NEXT:   mode: dynamic
// DYNAMIC-NEXT:   loss scale: argument #3, initial value 65536
// DYNAMIC-NEXT:   growth tracker: argument #4
// DYNAMIC-NEXT:   scale update at {{.*}}: growth_factor 2, backoff_factor 0.5, growth_interval 2000, min_scale 0
// DYNAMIC-NEXT:   seed scaled: 'mpt.grad_seed' at {{.*}}loss-scaling-report.mlir:[[@LINE+53]]:11
// DYNAMIC-NEXT:   gradients unscaled and checked: 2 (in 1 overflow check)
// DYNAMIC-NEXT:   guarded results: 2
// DYNAMIC-NEXT:     result #1 keeps argument #0 on overflow
// DYNAMIC-NEXT:     result #2 keeps argument #1 on overflow
// DYNAMIC-NOT: @helper
// (no contract attributes or markers; all-functions=1 lists it)

// STATIC: mpt loss-scaling report: @step
// STATIC-NEXT:   mode: static
// STATIC-NEXT:   loss scale: constant 1024
// STATIC-NEXT:   seed scaled: 'mpt.grad_seed' at
// STATIC-NEXT:   gradients unscaled and checked: 2 (in 1 overflow check)
// STATIC-NEXT:   guarded results: 2

// JSON: "functions": [
// JSON: "function": "step",
// JSON: "gradients_unscaled": 2,
// JSON: "guarded_results": [
// JSON-NEXT: {
// JSON-NEXT: "arg": 0,
// JSON-NEXT: "result": 1
// JSON: "mode": "dynamic",
// JSON-NEXT: "overflow_checks": 1,
// JSON-NEXT: "scale_arg": 3,
// JSON-NEXT: "scale_initial_value": 65536,
// JSON-NEXT: "scale_updates": [
// JSON-NEXT: {
// JSON-NEXT: "backoff_factor": 0.5,
// JSON-NEXT: "growth_factor": 2,
// JSON-NEXT: "growth_interval": 100,
// JSON-NEXT: "loc": "{{.*}}",
// JSON-NEXT: "min_scale": 1
// JSON: "seeds_scaled": [
// JSON-NEXT: "'mpt.grad_seed' at {{.*}}"
// JSON: "tracker_arg": 4
// JSON-NOT: "function": "helper"
// (the JSON lists the training steps only, as the text does)

// NONE: mpt loss-scaling report: @step
// NONE-NEXT:   mode: none
// NONE-NOT: @helper

// BAD-OUTPUT: error: mpt-loss-scaling-report: cannot open report file '{{.*}}report.txt'

// BAD-FORMAT: for the --format option: Cannot find option named 'xml'!
func.func @step(%w: tensor<4xf32> {mpt.role = "param"},
                %b: tensor<4xf32> {mpt.role = "param"},
                %x: tensor<4xf32> {mpt.role = "data"})
    -> (tensor<4xf32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64},
        tensor<4xf32> {mpt.updates = 1 : i64}) {
  %y = arith.mulf %w, %x : tensor<4xf32>
  %loss = arith.addf %y, %b : tensor<4xf32>
  %seed = mpt.grad_seed %loss : tensor<4xf32>
  %dw = arith.mulf %seed, %x : tensor<4xf32>
  %gw = mpt.gradient %dw : tensor<4xf32>
  %gb = mpt.gradient %seed : tensor<4xf32>
  %nw = arith.subf %w, %gw : tensor<4xf32>
  %nb = arith.subf %b, %gb : tensor<4xf32>
  return %loss, %nw, %nb : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

func.func @helper(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
