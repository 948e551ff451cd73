// Bad autocast options: one diagnostic each, no output, non-zero exit.
// The options have no source location, hence @unknown.
// RUN: mpt-opt %s --mpt-autocast="allow=linalg.matmulx" --verify-diagnostics -o /dev/null
// RUN: not mpt-opt %s --mpt-autocast="allow=linalg.matmulx" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not mpt-opt %s --mpt-autocast="deny=nodialect.op" 2>&1 | FileCheck %s --check-prefix=NODIALECT
// RUN: not mpt-opt %s --mpt-autocast="clear=reshape" 2>&1 | FileCheck %s --check-prefix=NOTNAME
// RUN: not mpt-opt %s --mpt-autocast="allow=linalg.matmul deny=linalg.matmul" 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not mpt-opt %s --mpt-autocast="dtype=f8" 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not mpt-opt %s --mpt-precision-report="dtype=f8" 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not mpt-opt %s --mpt-precision-report="format=xml" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not mpt-opt %s --mpt-precision-report="output=%t.missing-dir/report.txt" 2>&1 | FileCheck %s --check-prefix=OUTPUT

// UNKNOWN: error: unknown op 'linalg.matmulx': dialect 'linalg' defines no such op (option 'allow')
// UNKNOWN-NOT: func.func
// NODIALECT: error: unknown op 'nodialect.op': no registered dialect 'nodialect' (option 'deny')
// NOTNAME: error: 'reshape' is not an op name (expected dialect.op) (option 'clear')
// TWO: error: op 'linalg.matmul' is on two autocast lists: allow (option 'allow') and deny (option 'deny')
// DTYPE: error: unsupported autocast dtype 'f8'; supported: f16, bf16
// DTYPE-NOT: func.func
// FORMAT: error: unknown report format 'xml'; expected text or json
// OUTPUT: error: cannot open report file '{{.*}}report.txt'

// expected-error@unknown {{unknown op 'linalg.matmulx': dialect 'linalg' defines no such op (option 'allow')}}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
