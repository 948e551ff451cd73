// Bad autocast options: one diagnostic each, no output, non-zero exit.
// --implicit-check-not: exactly one error. options-errors-verify.mlir checks
// the same kind of diagnostic with --verify-diagnostics.
// RUN: not mpt-opt %s --mpt-autocast="allow=linalg.matmulx" 2>&1 | FileCheck %s --check-prefix=UNKNOWN --implicit-check-not=error:
// RUN: not mpt-opt %s --mpt-autocast="deny=nodialect.op" 2>&1 | FileCheck %s --check-prefix=NODIALECT --implicit-check-not=error:
// RUN: not mpt-opt %s --mpt-autocast="clear=reshape" 2>&1 | FileCheck %s --check-prefix=NOTNAME --implicit-check-not=error:
// RUN: not mpt-opt %s --mpt-autocast="allow=linalg.matmul deny=linalg.matmul" 2>&1 | FileCheck %s --check-prefix=TWO --implicit-check-not=error:
// A dtype is one of the enum's spellings: llvm::cl rejects any other value
// (its own message, then mlir's empty "error:" for the pass option). So is
// a report format.
// RUN: not mpt-opt %s --mpt-autocast="dtype=f8" 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not mpt-opt %s --mpt-precision-report="dtype=f8" 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not mpt-opt %s --mpt-precision-report="format=xml" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not mpt-opt %s --mpt-precision-report="output=%t.missing-dir/report.txt" 2>&1 | FileCheck %s --check-prefix=OUTPUT --implicit-check-not=error:

// UNKNOWN: error: unknown op 'linalg.matmulx': dialect 'linalg' defines no such op (option 'allow')
// UNKNOWN-NOT: func.func
// NODIALECT: error: unknown op 'nodialect.op': no registered dialect 'nodialect' (option 'deny')
// NOTNAME: error: 'reshape' is not an op name (expected dialect.op) (option 'clear')
// TWO: error: op 'linalg.matmul' is on two autocast lists: allow (option 'allow') and deny (option 'deny')
// DTYPE: for the --dtype option: Cannot find option named 'f8'!
// DTYPE-NOT: func.func
// FORMAT: for the --format option: Cannot find option named 'xml'!
// FORMAT-NOT: func.func
// OUTPUT: error: mpt-precision-report: cannot open report file '{{.*}}report.txt'

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
