// dtype=fp8 with bad options: one error before any IR is touched, no output,
// non-zero exit.
// RUN: not mpt-opt %s --mpt-autocast="dtype=fp8 amax-history-len=0" 2>&1 | FileCheck %s --check-prefix=LEN --implicit-check-not=error:
// RUN: not mpt-opt %s --mpt-mixed-precision="dtype=fp8 amax-history-len=0" 2>&1 | FileCheck %s --check-prefix=LEN --implicit-check-not=error:
// Values outside an option's enum are llvm::cl's error (then mlir's empty
// "error:" for a pass option); --implicit-check-not=Cannot: only one.
// RUN: not mpt-opt %s --mpt-autocast="dtype=fp8 fp8-format=e5m2" 2>&1 | FileCheck %s --check-prefix=FORMAT --implicit-check-not=Cannot
// RUN: not mpt-opt %s --mpt-autocast="dtype=fp8 amax-compute=mean" 2>&1 | FileCheck %s --check-prefix=COMPUTE --implicit-check-not=Cannot
// RUN: not mpt-opt %s --mpt-autocast="dtype=fp8 margin=-1" 2>&1 | FileCheck %s --check-prefix=MARGIN --implicit-check-not=error:
// RUN: not mpt-opt %s --mpt-autocast="dtype=fp8 master-weights=1" 2>&1 | FileCheck %s --check-prefix=MASTER --implicit-check-not=error:
// RUN: not mpt-opt %s --mpt-autocast="dtype=fp8 fp8-scaling=just-in-time" 2>&1 | FileCheck %s --check-prefix=SCALING --implicit-check-not=Cannot
// RUN: not mpt-opt %s --mpt-mixed-precision="dtype=fp8 fp8-scaling=just-in-time" 2>&1 | FileCheck %s --check-prefix=SCALING --implicit-check-not=error:
// RUN: not mpt-opt %s --mpt-precision-report="dtype=fp8 fp8-scaling=just-in-time" 2>&1 | FileCheck %s --check-prefix=SCALING --implicit-check-not=Cannot
// The report takes autocast's options, declared once, and checks them alike.
// RUN: not mpt-opt %s --mpt-precision-report="dtype=fp8 amax-history-len=0" 2>&1 | FileCheck %s --check-prefix=LEN --implicit-check-not=error:
// RUN: not mpt-opt %s --mpt-precision-report="dtype=fp8 margin=-1" 2>&1 | FileCheck %s --check-prefix=MARGIN --implicit-check-not=error:
// RUN: not mpt-opt %s --mpt-mixed-precision="dtype=fp8 amax-compute=mean" 2>&1 | FileCheck %s --check-prefix=COMPUTE --implicit-check-not=error:
// LEN: error: amax-history-len must be between 1 and 1048576, got 0
// LEN-NOT: func.func
// FORMAT: for the --fp8-format option: Cannot find option named 'e5m2'!
// COMPUTE: for the --amax-compute option: Cannot find option named 'mean'!
// MARGIN: error: margin must be between 0 and 64, got -1
// SCALING: for the --fp8-scaling option: Cannot find option named 'just-in-time'!
// SCALING-NOT: func.func
// MASTER: error: master-weights is not supported with dtype=fp8

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
