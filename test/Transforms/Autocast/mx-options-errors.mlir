// dtype=mxfp8 / mxfp4 with bad options: one error before any IR is touched,
// no output, non-zero exit.
// Values outside an option's enum are llvm::cl's error (then mlir's empty
// "error:" for a pass option); --implicit-check-not=Cannot: only one.
// RUN: not mpt-opt %s --mpt-autocast="dtype=mxfp8 mx-backward=e5m2" 2>&1 | FileCheck %s --check-prefix=BACKWARD --implicit-check-not=Cannot
// RUN: not mpt-opt %s --mpt-mixed-precision="dtype=mxfp4 mx-backward=fp16" 2>&1 | FileCheck %s --check-prefix=BACKWARD16 --implicit-check-not=error:
// RUN: not mpt-opt %s --mpt-precision-report="dtype=mxfp8 mx-scale=round" 2>&1 | FileCheck %s --check-prefix=SCALE --implicit-check-not=Cannot
// RUN: not mpt-opt %s --mpt-precision-report="dtype=mxfp8 master-weights=1" 2>&1 | FileCheck %s --check-prefix=MASTER --implicit-check-not=error:
// RUN: not mpt-opt %s --mpt-autocast="dtype=mxfp8 master-weights=1" 2>&1 | FileCheck %s --check-prefix=MASTER --implicit-check-not=error:
// RUN: not mpt-opt %s --mpt-autocast="dtype=mxfp6" 2>&1 | FileCheck %s --check-prefix=DTYPE --implicit-check-not=Cannot
// RUN: not mpt-opt %s --mpt-autocast="dtype=mxfp8 mx-scale=round" 2>&1 | FileCheck %s --check-prefix=SCALE --implicit-check-not=Cannot
// SCALE: for the --mx-scale option: Cannot find option named 'round'!
// BACKWARD: for the --mx-backward option: Cannot find option named 'e5m2'!
// BACKWARD-NOT: func.func
// BACKWARD16: for the --mx-backward option: Cannot find option named 'fp16'!
// MASTER: error: master-weights is not supported with dtype=mxfp8
// DTYPE: for the --dtype option: Cannot find option named 'mxfp6'!

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
