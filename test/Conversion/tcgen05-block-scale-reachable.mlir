// REQUIRES: ptxas
// Not an mpt lowering: the check behind docs/TensorCore.md's statement that
// sm_100a block-scaled MMA (MXFP8 with E8M0 scales) is reachable with MLIR
// 22 and CUDA 13's ptxas. MLIR 22's NVVM dialect has tcgen05.mma.block_scale
// (kind mxf8f6f4 / mxf4 / mxf4nvf4, operands in tensor memory and shared-
// memory descriptors), it translates to PTX ISA 8.8 and ptxas assembles it
// for sm_100a. mpt has no kernel that uses it (no nvgpu- or linalg-level
// path exists upstream: TMEM allocation, the instruction descriptor, the
// scale-factor copies and the epilogue would all be emitted by hand).
// RUN: rm -rf %t && mkdir -p %t
// RUN: mpt-opt %s --gpu-module-to-binary="format=isa" | mpt-opt --mpt-dump-gpu-binaries="dir=%t" -o /dev/null
// RUN: FileCheck %s < %t/k.sm_100a.ptx
// RUN: %ptxas -arch=sm_100a %t/k.sm_100a.ptx -o %t/k.cubin

// CHECK: .target sm_100a
// CHECK: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale

module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
    llvm.func @mx(%d: !llvm.ptr<6>, %a: i64, %b: i64, %idesc: i32, %sa: !llvm.ptr<6>, %sb: !llvm.ptr<6>) attributes {nvvm.kernel} {
      %t = llvm.mlir.constant(true) : i1
      nvvm.tcgen05.mma.block_scale %d, %a, %b, %idesc, %t, %sa, %sb {kind = #nvvm.block_scale_kind<mxf8f6f4>, ctaGroup = #nvvm.cta_group<cta_1>} : (!llvm.ptr<6>, i64, i64, i32, i1, !llvm.ptr<6>, !llvm.ptr<6>)
      llvm.return
    }
  }
}
