// dtype=mxfp8 / mxfp4 with bad options: one error before any IR is touched,
// no output, non-zero exit.
// RUN: not mpt-opt %s --mpt-autocast="dtype=mxfp8 mx-backward=e5m2" 2>&1 | FileCheck %s --check-prefix=BACKWARD --implicit-check-not=error:
// RUN: not mpt-opt %s --mpt-mixed-precision="dtype=mxfp4 mx-backward=fp16" 2>&1 | FileCheck %s --check-prefix=BACKWARD16 --implicit-check-not=error:
// RUN: not mpt-opt %s --mpt-autocast="dtype=mxfp8 master-weights=1" 2>&1 | FileCheck %s --check-prefix=MASTER --implicit-check-not=error:
// RUN: not mpt-opt %s --mpt-autocast="dtype=mxfp6" 2>&1 | FileCheck %s --check-prefix=DTYPE --implicit-check-not=error:
// RUN: not mpt-opt %s --mpt-autocast="dtype=mxfp8 mx-scale=round" 2>&1 | FileCheck %s --check-prefix=SCALE --implicit-check-not=error:
// SCALE: error: unknown mx-scale 'round'; expected floor or ceil
// BACKWARD: error: unknown mx-backward 'e5m2'; expected mxfp8 or bf16
// BACKWARD-NOT: func.func
// BACKWARD16: error: unknown mx-backward 'fp16'; expected mxfp8 or bf16
// MASTER: error: master-weights is not supported with dtype=mxfp8
// DTYPE: error: unsupported autocast dtype 'mxfp6'; supported: f16, bf16, fp8, mxfp8, mxfp4

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
