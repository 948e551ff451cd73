// RUN: not mpt-opt %s --mpt-training-graph-report="format=yaml" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not mpt-opt %s --mpt-training-graph-report="output=/nonexistent/dir/report.txt" 2>&1 | FileCheck %s --check-prefix=OUTPUT
// RUN: not mpt-opt %s --mpt-training-graph-report="colour=red" 2>&1 | FileCheck %s --check-prefix=OPTION

// Bad options: one error each, a non-zero exit and no IR printed.
// FORMAT: for the --format option: Cannot find option named 'yaml'!
// FORMAT-NOT: func.func
// OUTPUT: error: mpt-training-graph-report: cannot open report file '/nonexistent/dir/report.txt'
// OUTPUT-NOT: func.func
// OPTION: no such option colour
// OPTION-NOT: func.func
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
