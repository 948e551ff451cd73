// The Tensor Core schedules and kernel templates of lib/Conversion/TensorCore/
// are embedded in mpt-opt at build time. --mpt-test-tensorcore-schedules
// prints every instantiation the kernel configurations give (sm_80's default
// and small configurations in each layout, f16 and bf16, pipelined or not;
// the general path; the sm_90a f16, bf16 and FP8 kernels; the FP8 K-major
// copy), separated by `// -----` lines; parsing and verifying each one here
// makes a typo in a schedule fail this test rather than a user's run.
// RUN: mpt-opt %s --mpt-test-tensorcore-schedules -o /dev/null > %t.mlir 2> %t.err
// RUN: mpt-opt %t.mlir --split-input-file -o /dev/null
// RUN: FileCheck %s < %t.mlir
// RUN: FileCheck %s --check-prefix=ERR < %t.err

// Every file, each configuration once.
// CHECK: // sm80-mma-sync.mlir: sm_80 128x128x32 warp 64x64 3 stages NN
// CHECK-DAG: transform.named_sequence @sm80_matmul(
// CHECK-DAG: tile_sizes [128, 128] (mapping = [#gpu.block<y>, #gpu.block<x>])
// CHECK-DAG: transform.mpt.convert_to_mma_sync %{{.*}} {bf16 = false}
// CHECK-DAG: transform.include @sm80_pipeline failures(propagate)
// CHECK: // sm80-mma-sync.mlir: sm_80 128x128x32 warp 64x64 3 stages TN
// CHECK: transform.mpt.convert_to_mma_sync %{{.*}} {bf16 = true}
// CHECK: // sm80-mma-sync.mlir: sm_80 128x128x32 warp 64x64 3 stages NT
// CHECK: // sm80-mma-sync.mlir: sm_80 64x64x32 warp 32x32 2 stages NN
// CHECK: // sm80-mma-sync.mlir: sm_80 64x64x32 warp 32x32 2 stages TN
// CHECK: // sm80-mma-sync.mlir: sm_80 64x64x32 warp 32x32 2 stages NT
// CHECK: // sm80-mma-sync.mlir: sm_80 128x128x32 warp 64x64 not pipelined NN
// CHECK: transform.include @sm80_no_pipeline failures(propagate)
// CHECK: // simt.mlir: general path (SIMT)
// CHECK: // wgmma-16bit.mlir: sm_90a 512x256x1024 f16
// CHECK: func.func @body(%A: memref<512x1024xf16>, %B: memref<1024x256xf16>, %C: memref<512x256xf32>)
// CHECK: // wgmma-16bit.mlir: sm_90a 256x512x128 bf16
// CHECK: // wgmma-fp8.mlir: sm_90a 256x128x512 f8E4M3FN
// CHECK: func.func @body(%A: memref<256x512xf8E4M3FN>, %B: memref<128x512xf8E4M3FN>, %C: memref<256x128xf32>)
// CHECK: // wgmma-fp8.mlir: sm_90a 128x256x128 f8E5M2 x f8E4M3FN
// CHECK: // fp8-transpose.mlir: FP8 K-major copy 512x256 f8E5M2
// CHECK: func.func private @xpose(%in: memref<512x256xf8E5M2>, %out: memref<256x512xf8E5M2>)
// No parameter is left unsubstituted.
// CHECK-NOT: ${

// A parameter the file names but is not given, and one given but not used.
// ERR: remark: sm80-mma-sync.mlir: no value for parameter ${STAGES}
// ERR: remark: sm80-mma-sync.mlir: parameter 'UNUSED' is not used
