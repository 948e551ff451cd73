// Bad options are one error at the module (checked by --verify-diagnostics)
// and a failing exit with that message (the second group of runs).
// RUN: mpt-opt %s --verify-diagnostics --mpt-matmul-to-tensorcore="tile-k=24" -o /dev/null
// RUN: mpt-opt %s --verify-diagnostics --mpt-matmul-to-tensorcore="tile-m=96" -o /dev/null
// RUN: mpt-opt %s --verify-diagnostics --mpt-matmul-to-tensorcore="stages=4" -o /dev/null
// RUN: mpt-opt %s --verify-diagnostics --mpt-matmul-to-tensorcore="warp-m=24" -o /dev/null
// RUN: mpt-opt %s --verify-diagnostics --mpt-dump-gpu-binaries="dir=%t.missing/nowhere" -o /dev/null
// RUN: mpt-opt %s --verify-diagnostics --mpt-matmul-to-tensorcore="report=- report-format=xml" -o /dev/null
// RUN: mpt-opt %s --verify-diagnostics --mpt-matmul-to-tensorcore="report=%t.missing/nowhere/r.txt" -o /dev/null
// The messages:
// A chip is one of the enum's spellings: llvm::cl rejects any other value
// while parsing the options (of the pass and of the pipeline).
// RUN: not mpt-opt %s --mpt-matmul-to-tensorcore="chip=sm_70" 2>&1 | FileCheck %s --check-prefix=CHIP --implicit-check-not=Cannot
// RUN: not mpt-opt %s --mpt-gpu-codegen="chip=sm_70" 2>&1 | FileCheck %s --check-prefix=CHIP --implicit-check-not=Cannot
// RUN: not mpt-opt %s --mpt-matmul-to-tensorcore="general=cpu" 2>&1 | FileCheck %s --check-prefix=GENERAL --implicit-check-not=Cannot
// RUN: not mpt-opt %s --mpt-gpu-codegen="general=cpu" 2>&1 | FileCheck %s --check-prefix=GENERAL --implicit-check-not=Cannot
// RUN: not mpt-opt %s --mpt-matmul-to-tensorcore="tile-k=24" 2>&1 | FileCheck %s --check-prefix=TILEK
// RUN: not mpt-opt %s --mpt-matmul-to-tensorcore="tile-m=96" 2>&1 | FileCheck %s --check-prefix=TILEM
// RUN: not mpt-opt %s --mpt-matmul-to-tensorcore="stages=4" 2>&1 | FileCheck %s --check-prefix=SMEM
// RUN: not mpt-opt %s --mpt-matmul-to-tensorcore="warp-m=24" 2>&1 | FileCheck %s --check-prefix=WARP
// RUN: not mpt-opt %s --mpt-dump-gpu-binaries="dir=%t.missing/nowhere" 2>&1 | FileCheck %s --check-prefix=DUMP
// RUN: not mpt-opt %s --mpt-matmul-to-tensorcore="report=- report-format=xml" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not mpt-opt %s --mpt-matmul-to-tensorcore="report=%t.missing/nowhere/r.txt" 2>&1 | FileCheck %s --check-prefix=REPORT

// CHIP: for the --chip option: Cannot find option named 'sm_70'!
// GENERAL: for the --general option: Cannot find option named 'cpu'!
// TILEK: error: mpt-matmul-to-tensorcore: tile-k must be a positive multiple of 16
// TILEM: error: mpt-matmul-to-tensorcore: tile-m/tile-n must be positive multiples of warp-m/warp-n
// SMEM: error: mpt-matmul-to-tensorcore: 4 stages of 128x32 and 32x128 tiles need 65536 bytes of shared memory (> 48 KiB)
// WARP: error: mpt-matmul-to-tensorcore: warp-m must be a positive multiple of 16 and warp-n of 8
// DUMP: error: mpt-dump-gpu-binaries: '{{.*}}nowhere' is not a directory
// FORMAT: error: mpt-matmul-to-tensorcore: report-format must be text or json, got 'xml'
// REPORT: error: mpt-matmul-to-tensorcore: cannot open report file '{{.*}}r.txt': {{.*}}
// CHIP-NOT: func.func

// expected-error-re@+1 {{mpt-{{(matmul-to-tensorcore|dump-gpu-binaries)}}: {{.*}}}}
module {
  func.func @f(%A: memref<128x128xf16>, %C: memref<128x128xf32>) {
    linalg.matmul ins(%A, %A : memref<128x128xf16>, memref<128x128xf16>) outs(%C : memref<128x128xf32>)
    return
  }
}
