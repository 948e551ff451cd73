// Bad options are one error at the module and a failing exit.
// RUN: mpt-opt %s --verify-diagnostics --mpt-matmul-to-cpu-kernels="report=- report-format=xml" -o /dev/null
// RUN: mpt-opt %s --verify-diagnostics --mpt-matmul-to-cpu-kernels="report=%t.missing/nowhere/r.txt" -o /dev/null
// RUN: not mpt-opt %s --mpt-matmul-to-cpu-kernels="report=- report-format=xml" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not mpt-opt %s --mpt-matmul-to-cpu-kernels="report=%t.missing/nowhere/r.txt" 2>&1 | FileCheck %s --check-prefix=REPORT
// FORMAT: error: mpt-matmul-to-cpu-kernels: report-format must be text or json, got 'xml'
// REPORT: error: mpt-matmul-to-cpu-kernels: cannot open report file '{{.*}}r.txt':

// expected-error@+1 {{mpt-matmul-to-cpu-kernels:}}
module {
  func.func @f(%a: memref<32x32xbf16>, %c: memref<32x32xf32>) {
    linalg.matmul ins(%a, %a : memref<32x32xbf16>, memref<32x32xbf16>) outs(%c : memref<32x32xf32>)
    return
  }
}
