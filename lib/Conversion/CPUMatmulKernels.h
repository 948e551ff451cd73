//===- CPUMatmulKernels.h - the CPU matmul kernels, as MLIR ----*- C++ -*-===//
//
// The kernel functions --mpt-matmul-to-cpu-kernels calls. Each computes
// C += A * B for A (M x K), B (K x N) and f32 C (M x N), all with unit inner
// stride, for any M, N and K (dynamic), so one copy serves every contraction
// of a module. Edges are handled by zero padding with masked vector loads,
// never by a separate slow path.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_LIB_CONVERSION_CPUMATMULKERNELS_H
#define MPT_LIB_CONVERSION_CPUMATMULKERNELS_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace mpt::cpu {

/// bf16 x bf16 -> f32 on AMX, written with the upstream `amx` dialect
/// because 22.1.8's --convert-vector-to-amx reloads the accumulator around
/// every tile multiply (amx.tile_load is declared as writing memory, so it
/// is not hoisted):
///  * A is copied to a zero-padded row-major buffer (rows and K rounded up
///    to 32), B to VNNI panels of 32 columns (`Bp[n/32][k/2][2*(n%32)+k%2]`,
///    two rows interleaved with vector.interleave), C to a zero-padded f32
///    buffer;
///  * Cp += Ap * Bp in 32x32 blocks: a 2x2 block of 16x16 f32 tiles carried
///    through the K loop as scf.for iter_args (4 tile loads and 4 tdpbf16ps
///    per 32 of K), K blocked by 512 so that a block of B stays in L2;
///  * the valid part of Cp is written back to C with masked stores.
/// Products of bf16 values are exact in f32; the sums are in f32, in a
/// different order than the scalar loops (pairs of k, then 32-wide steps).
inline constexpr llvm::StringLiteral kAMXKernelName = "__mpt_amx_matmul_bf16";
inline constexpr llvm::StringLiteral kAMXKernel = R"mlir(
func.func private @__mpt_amx_matmul_bf16(
    %A: memref<?x?xbf16, strided<[?, 1], offset: ?>>,
    %B: memref<?x?xbf16, strided<[?, 1], offset: ?>>,
    %C: memref<?x?xf32, strided<[?, 1], offset: ?>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %cKB = arith.constant 512 : index
  %zbf = arith.constant dense<0.0> : vector<32xbf16>
  %zf = arith.constant dense<0.0> : vector<16xf32>
  %M = memref.dim %A, %c0 : memref<?x?xbf16, strided<[?, 1], offset: ?>>
  %K = memref.dim %A, %c1 : memref<?x?xbf16, strided<[?, 1], offset: ?>>
  %N = memref.dim %B, %c1 : memref<?x?xbf16, strided<[?, 1], offset: ?>>
  %Mb = arith.ceildivui %M, %c32 : index
  %Nb = arith.ceildivui %N, %c32 : index
  %Kb = arith.ceildivui %K, %c32 : index
  %Mp = arith.muli %Mb, %c32 : index
  %Np = arith.muli %Nb, %c32 : index
  %Kp = arith.muli %Kb, %c32 : index
  %Kh = arith.muli %Kb, %c16 : index
  %Ap = memref.alloc(%Mp, %Kp) {alignment = 64 : i64} : memref<?x?xbf16>
  %Bp = memref.alloc(%Nb, %Kh) {alignment = 64 : i64} : memref<?x?x64xbf16>
  %Cp = memref.alloc(%Mp, %Np) {alignment = 64 : i64} : memref<?x?xf32>
  // A -> Ap (row-major, zero padded to 32x32 blocks).
  scf.for %i = %c0 to %Mp step %c1 {
    %inrow = arith.cmpi ult, %i, %M : index
    scf.for %k = %c0 to %Kp step %c32 {
      %v = scf.if %inrow -> (vector<32xbf16>) {
        %rem = arith.subi %K, %k : index
        %m = vector.create_mask %rem : vector<32xi1>
        %r = vector.maskedload %A[%i, %k], %m, %zbf : memref<?x?xbf16, strided<[?, 1], offset: ?>>, vector<32xi1>, vector<32xbf16> into vector<32xbf16>
        scf.yield %r : vector<32xbf16>
      } else {
        scf.yield %zbf : vector<32xbf16>
      }
      vector.store %v, %Ap[%i, %k] : memref<?x?xbf16>, vector<32xbf16>
    }
  }
  // B -> Bp: panels of 32 columns, rows of k pairs interleaved (VNNI).
  scf.for %kk = %c0 to %Kh step %c1 {
    %k0 = arith.muli %kk, %c2 : index
    %k1 = arith.addi %k0, %c1 : index
    %in0 = arith.cmpi ult, %k0, %K : index
    %in1 = arith.cmpi ult, %k1, %K : index
    scf.for %nb = %c0 to %Nb step %c1 {
      %n = arith.muli %nb, %c32 : index
      %rem = arith.subi %N, %n : index
      %m = vector.create_mask %rem : vector<32xi1>
      %r0 = scf.if %in0 -> (vector<32xbf16>) {
        %r = vector.maskedload %B[%k0, %n], %m, %zbf : memref<?x?xbf16, strided<[?, 1], offset: ?>>, vector<32xi1>, vector<32xbf16> into vector<32xbf16>
        scf.yield %r : vector<32xbf16>
      } else {
        scf.yield %zbf : vector<32xbf16>
      }
      %r1 = scf.if %in1 -> (vector<32xbf16>) {
        %r = vector.maskedload %B[%k1, %n], %m, %zbf : memref<?x?xbf16, strided<[?, 1], offset: ?>>, vector<32xi1>, vector<32xbf16> into vector<32xbf16>
        scf.yield %r : vector<32xbf16>
      } else {
        scf.yield %zbf : vector<32xbf16>
      }
      %v = vector.interleave %r0, %r1 : vector<32xbf16> -> vector<64xbf16>
      vector.store %v, %Bp[%nb, %kk, %c0] : memref<?x?x64xbf16>, vector<64xbf16>
    }
  }
  // C -> Cp.
  scf.for %i = %c0 to %Mp step %c1 {
    %inrow = arith.cmpi ult, %i, %M : index
    scf.for %j = %c0 to %Np step %c16 {
      %v = scf.if %inrow -> (vector<16xf32>) {
        %rem = arith.subi %N, %j : index
        %m = vector.create_mask %rem : vector<16xi1>
        %r = vector.maskedload %C[%i, %j], %m, %zf : memref<?x?xf32, strided<[?, 1], offset: ?>>, vector<16xi1>, vector<16xf32> into vector<16xf32>
        scf.yield %r : vector<16xf32>
      } else {
        scf.yield %zf : vector<16xf32>
      }
      vector.store %v, %Cp[%i, %j] : memref<?x?xf32>, vector<16xf32>
    }
  }
  // Cp += Ap * Bp: 2x2 blocks of 16x16 f32 tiles kept in tile registers
  // across the K loop.
  scf.for %kb = %c0 to %Kp step %cKB {
    %kbe = arith.addi %kb, %cKB : index
    %kend = arith.minui %kbe, %Kp : index
    scf.for %i = %c0 to %Mp step %c32 {
      %i16 = arith.addi %i, %c16 : index
      scf.for %j = %c0 to %Np step %c32 {
        %j16 = arith.addi %j, %c16 : index
        %nb = arith.divui %j, %c32 : index
        %t00 = amx.tile_load %Cp[%i, %j] : memref<?x?xf32> into !amx.tile<16x16xf32>
        %t01 = amx.tile_load %Cp[%i, %j16] : memref<?x?xf32> into !amx.tile<16x16xf32>
        %t10 = amx.tile_load %Cp[%i16, %j] : memref<?x?xf32> into !amx.tile<16x16xf32>
        %t11 = amx.tile_load %Cp[%i16, %j16] : memref<?x?xf32> into !amx.tile<16x16xf32>
        %r:4 = scf.for %k = %kb to %kend step %c32
            iter_args(%a00 = %t00, %a01 = %t01, %a10 = %t10, %a11 = %t11)
            -> (!amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>) {
          %kh = arith.divui %k, %c2 : index
          %x0 = amx.tile_load %Ap[%i, %k] : memref<?x?xbf16> into !amx.tile<16x32xbf16>
          %x1 = amx.tile_load %Ap[%i16, %k] : memref<?x?xbf16> into !amx.tile<16x32xbf16>
          %y0 = amx.tile_load %Bp[%nb, %kh, %c0] : memref<?x?x64xbf16> into !amx.tile<16x32xbf16>
          %y1 = amx.tile_load %Bp[%nb, %kh, %c32] : memref<?x?x64xbf16> into !amx.tile<16x32xbf16>
          %n00 = amx.tile_mulf %x0, %y0, %a00 : !amx.tile<16x32xbf16>, !amx.tile<16x32xbf16>, !amx.tile<16x16xf32>
          %n01 = amx.tile_mulf %x0, %y1, %a01 : !amx.tile<16x32xbf16>, !amx.tile<16x32xbf16>, !amx.tile<16x16xf32>
          %n10 = amx.tile_mulf %x1, %y0, %a10 : !amx.tile<16x32xbf16>, !amx.tile<16x32xbf16>, !amx.tile<16x16xf32>
          %n11 = amx.tile_mulf %x1, %y1, %a11 : !amx.tile<16x32xbf16>, !amx.tile<16x32xbf16>, !amx.tile<16x16xf32>
          scf.yield %n00, %n01, %n10, %n11 : !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>
        }
        amx.tile_store %Cp[%i, %j], %r#0 : memref<?x?xf32>, !amx.tile<16x16xf32>
        amx.tile_store %Cp[%i, %j16], %r#1 : memref<?x?xf32>, !amx.tile<16x16xf32>
        amx.tile_store %Cp[%i16, %j], %r#2 : memref<?x?xf32>, !amx.tile<16x16xf32>
        amx.tile_store %Cp[%i16, %j16], %r#3 : memref<?x?xf32>, !amx.tile<16x16xf32>
      }
    }
  }
  // Cp -> C (valid region only).
  scf.for %i = %c0 to %M step %c1 {
    scf.for %j = %c0 to %N step %c16 {
      %rem = arith.subi %N, %j : index
      %m = vector.create_mask %rem : vector<16xi1>
      %v = vector.load %Cp[%i, %j] : memref<?x?xf32>, vector<16xf32>
      vector.maskedstore %C[%i, %j], %m, %v : memref<?x?xf32, strided<[?, 1], offset: ?>>, vector<16xi1>, vector<16xf32>
    }
  }
  memref.dealloc %Ap : memref<?x?xbf16>
  memref.dealloc %Bp : memref<?x?x64xbf16>
  memref.dealloc %Cp : memref<?x?xf32>
  return
}
)mlir";

/// `elementType` (f32, f16 or bf16) x same -> f32 with AVX-512 vectors:
/// A packed into panels of 8 rows (k-major), B into panels of 32 columns,
/// both converted to f32 (exact), and C updated in 8x32 blocks held in 16
/// vector<16xf32> accumulators across the whole K loop (one broadcast of A
/// and two loads of B per k). Each product is rounded before it is added
/// and k runs in order, as in the scalar loops of convert-linalg-to-loops:
/// the result is bit-identical to them (no FMA contraction).
std::string avx512KernelName(llvm::StringRef elementType);
std::string avx512Kernel(llvm::StringRef elementType);

} // namespace mpt::cpu

#endif // MPT_LIB_CONVERSION_CPUMATMULKERNELS_H
