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
/// is not hoisted). Blocked for the caches (GotoBLAS order, sizes measured
/// with bench/cpu/bench.py):
///  * K runs in blocks of 256. Per K block, B is packed into VNNI tiles
///    (16 k-pairs x 16 columns, rows of k pairs interleaved with
///    vector.interleave), each tile 1 KiB contiguous: tile (n/16, k/32) of
///    the block at rows ((n/16) * kTiles + k/32) * 16 of `Bp`.
///  * Per 32 rows of A in the block, A is packed the same way (16 x 32
///    tiles, 1 KiB each) into `Ap`: 16 KiB, which stays in L1 while the
///    32-column panels of B stream past it.
///  * Per 32x32 block of C: a 2x2 block of 16x16 f32 tiles loaded from C,
///    carried through the K block as scf.for iter_args (4 tile loads and 4
///    tdpbf16ps per 32 of K), stored back. A block that crosses an edge of
///    C goes through a zero-padded 32x32 scratch copy (masked loads and
///    stores); the packs read the edges of A and B with masked loads.
/// With `transA` (`transB`), A is given as its transpose, K x M (B as
/// N x K), row-major: the packs read 16 rows of it (for A, pairs of rows
/// interleaved into k pairs), each a row of 16 dwords (a bf16 pair each),
/// and transpose the 16x16 dword block with a shuffle network into the
/// tile's rows, so that a linear layer's x W^T and dY^T x need no separate
/// transpose (--mpt-fold-operand-transposes).
/// With `zeroC` set, C is taken as zeros (its old contents are neither read
/// nor needed): the first K block starts from amx.tile_zero, which saves the
/// zero fill before the call and one read of C.
/// Contiguous tiles avoid the cache-set conflicts of loading tiles with a
/// power-of-two row stride, and the small K block keeps the working set of
/// the tile loop (16 KiB of A, 16 KiB of a B panel) in L1.
/// Products of bf16 values are exact in f32; the sums are in f32, in a
/// different order than the scalar loops (pairs of k, then 32-wide steps,
/// C updated once per K block).
inline constexpr llvm::StringLiteral kAMXKernelName = "__mpt_amx_matmul_bf16";
/// The kernel's text. Its work is split into tasks, blocks of C (ranges of
/// row blocks x blocks of columns whose B pack of a K block stays in L2),
/// each packing its own A and B and writing only its block of C; the tasks
/// run one after the other, or in parallel (one scf.parallel over at least
/// 16 tasks where the shape allows, for convert-scf-to-openmp: one fork per
/// call).
std::string amxKernel(bool parallel);
inline constexpr llvm::StringLiteral kAMXKernelTemplate = R"mlir(
@DECLARATIONS@
func.func private @__mpt_amx_matmul_bf16(
    %A: memref<?x?xbf16, strided<[?, 1], offset: ?>>,
    %B: memref<?x?xbf16, strided<[?, 1], offset: ?>>,
    %C: memref<?x?xf32, strided<[?, 1], offset: ?>>,
    %zeroC: i1, %transA: i1, %transB: i1,
    %D: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %toD: i1) {
  %c0 = arith.constant 0 : index
  %true = arith.constant true
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %cKB = arith.constant 256 : index
  %zbf = arith.constant dense<0.0> : vector<32xbf16>
  %zf = arith.constant dense<0.0> : vector<16xf32>
  %zi = arith.constant dense<0> : vector<16xi32>
  %zbf16 = arith.constant dense<0.0> : vector<16xbf16>
  %A0 = memref.dim %A, %c0 : memref<?x?xbf16, strided<[?, 1], offset: ?>>
  %A1 = memref.dim %A, %c1 : memref<?x?xbf16, strided<[?, 1], offset: ?>>
  %B0 = memref.dim %B, %c0 : memref<?x?xbf16, strided<[?, 1], offset: ?>>
  %B1 = memref.dim %B, %c1 : memref<?x?xbf16, strided<[?, 1], offset: ?>>
  %M = arith.select %transA, %A1, %A0 : index
  %K = arith.select %transA, %A0, %A1 : index
  %N = arith.select %transB, %B0, %B1 : index
  %Nt = arith.ceildivui %N, %c16 : index
  %Nb = arith.ceildivui %N, %c32 : index
  %Kb = arith.ceildivui %K, %c32 : index
  %Np = arith.muli %Nb, %c32 : index
  %Kp = arith.muli %Kb, %c32 : index
  // The largest K block.
  %KB = arith.minui %Kp, %cKB : index
  // Tasks (the split shared with the AVX-512 kernels): ranges of row
  // blocks x ranges of 32-column panels, at least one range per 32 panels
  // (1024 columns, whose B pack of a K block, 512 KiB, stays in L2), split
  // further where that gives fewer tasks than threads (%cTasks; one when
  // serial). Each task packs its own B panels and A rows into its own
  // buffers and writes only its block of C.
@TASK_COUNT@
  %rowBlocks = arith.ceildivui %M, %c32 : index
  // At least one block of 32 panels (1024 columns) a column range.
  %colBlocks0 = arith.ceildivui %Nb, %c32 : index
  %colBlocks1 = arith.maxui %colBlocks0, %c1 : index
@TASK_SPLIT@
  @TASK_LOOP@ {
@TASK_RANGES@
  %i0 = arith.muli %ru0, %c32 : index
  %i1 = arith.muli %ru1, %c32 : index
  %j0 = arith.muli %p0, %c32 : index
  %j1 = arith.muli %p1, %c32 : index
  %taskPanels = arith.subi %p1, %p0 : index
  // Bp holds the task's panels of a K block: (panels * 2) * (KB / 32) tiles
  // of 16 rows; Ap 2 * (KB / 32) tiles (at most 256 rows); Cs a 32x32
  // scratch block of C for the edges.
  %bRows = arith.muli %taskPanels, %KB : index
  %Bp = memref.alloc(%bRows) {alignment = 64 : i64} : memref<?x32xbf16>
  %ApBuf = memref.alloc() {alignment = 64 : i64} : memref<256x32xbf16>
  %Ap = memref.cast %ApBuf : memref<256x32xbf16> to memref<256x32xbf16, strided<[32, 1], offset: ?>>
  %CsBuf = memref.alloc() {alignment = 64 : i64} : memref<32x32xf32>
  %Cs = memref.cast %CsBuf : memref<32x32xf32> to memref<32x32xf32, strided<[32, 1], offset: ?>>
  %Csv = memref.cast %CsBuf : memref<32x32xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
  scf.for %kb = %c0 to %Kp step %cKB {
    %kbe = arith.addi %kb, %cKB : index
    %kend = arith.minui %kbe, %Kp : index
    %kbl = arith.subi %kend, %kb : index
    %kTiles = arith.divui %kbl, %c32 : index
    %kPairs = arith.divui %kbl, %c2 : index
    // With %zeroC, the first K block starts from zero tiles, not from C.
    %firstK = arith.cmpi eq, %kb, %c0 : index
    %fromZero = arith.andi %zeroC, %firstK : i1
    %loadC = arith.xori %fromZero, %true : i1
    // With %toD, the last K block writes C rounded to bf16 into D (through
    // the scratch block), not C.
    %lastK = arith.cmpi eq, %kend, %Kp : index
    %epi = arith.andi %toD, %lastK : i1
    %noEpi = arith.xori %epi, %true : i1
    // B[kb:kend, j0:j1] -> Bp (VNNI tiles): pairs of k rows, 32 columns at
    // a time. A transposed B (N x K) is packed by 16x16 dword transposes
    // instead.
    scf.if %transB {
@PACK_B_T@
    } else {
    scf.for %kh = %c0 to %kPairs step %c1 {
      scf.for %nb = %p0 to %p1 step %c1 {
        %k0l = arith.muli %kh, %c2 : index
        %k0 = arith.addi %kb, %k0l : index
        %k1 = arith.addi %k0, %c1 : index
        %in0 = arith.cmpi ult, %k0, %K : index
        %in1 = arith.cmpi ult, %k1, %K : index
        %kt = arith.divui %kh, %c16 : index
        %kr = arith.remui %kh, %c16 : index
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
        %lo = vector.extract_strided_slice %v {offsets = [0], sizes = [32], strides = [1]} : vector<64xbf16> to vector<32xbf16>
        %hi = vector.extract_strided_slice %v {offsets = [32], sizes = [32], strides = [1]} : vector<64xbf16> to vector<32xbf16>
        %nbl = arith.subi %nb, %p0 : index
        %nt0 = arith.muli %nbl, %c2 : index
        %nt1 = arith.addi %nt0, %c1 : index
        %q0 = arith.muli %nt0, %kTiles : index
        %q1 = arith.muli %nt1, %kTiles : index
        %s0 = arith.addi %q0, %kt : index
        %s1 = arith.addi %q1, %kt : index
        %t0 = arith.muli %s0, %c16 : index
        %t1 = arith.muli %s1, %c16 : index
        %row0 = arith.addi %t0, %kr : index
        %row1 = arith.addi %t1, %kr : index
        vector.store %lo, %Bp[%row0, %c0] : memref<?x32xbf16>, vector<32xbf16>
        vector.store %hi, %Bp[%row1, %c0] : memref<?x32xbf16>, vector<32xbf16>
      }
    }
    }
    // The task's row blocks: each packs its A (16 KiB, stays in L1) while
    // the task's 32-column panels of B stream past it.
      scf.for %i = %i0 to %i1 step %c32 {
      // A[i:i+32, kb:kend] -> Ap (tiles; rows past M are zeros). A
      // transposed A (K x M) is packed by 16x16 dword transposes instead.
      scf.if %transA {
@PACK_A_T@
      } else {
      scf.for %r = %c0 to %c32 step %c1 {
        %row = arith.addi %i, %r : index
        %mt = arith.divui %r, %c16 : index
        %mr = arith.remui %r, %c16 : index
        %mq = arith.muli %mt, %kTiles : index
        %inrow = arith.cmpi ult, %row, %M : index
        scf.for %kt = %c0 to %kTiles step %c1 {
          %kl = arith.muli %kt, %c32 : index
          %k = arith.addi %kb, %kl : index
          %v = scf.if %inrow -> (vector<32xbf16>) {
            %rem = arith.subi %K, %k : index
            %m = vector.create_mask %rem : vector<32xi1>
            %x = vector.maskedload %A[%row, %k], %m, %zbf : memref<?x?xbf16, strided<[?, 1], offset: ?>>, vector<32xi1>, vector<32xbf16> into vector<32xbf16>
            scf.yield %x : vector<32xbf16>
          } else {
            scf.yield %zbf : vector<32xbf16>
          }
          %s = arith.addi %mq, %kt : index
          %t = arith.muli %s, %c16 : index
          %at = arith.addi %t, %mr : index
          vector.store %v, %Ap[%at, %c0] : memref<256x32xbf16, strided<[32, 1], offset: ?>>, vector<32xbf16>
        }
      }
      }
      %ie = arith.addi %i, %c32 : index
      %fullRows = arith.cmpi ule, %ie, %M : index
      %rowsLeft = arith.subi %M, %i : index
      %rows = arith.minui %rowsLeft, %c32 : index
      %x1Row = arith.muli %kTiles, %c16 : index
      scf.for %j = %j0 to %j1 step %c32 {
        %j16 = arith.addi %j, %c16 : index
        %je = arith.addi %j, %c32 : index
        %fullCols = arith.cmpi ule, %je, %N : index
        %full = arith.andi %fullRows, %fullCols : i1
        %colsLeft = arith.subi %N, %j : index
        %colsLeft16 = arith.subi %colsLeft, %c16 : index
        %m0 = vector.create_mask %colsLeft : vector<16xi1>
        %m1 = vector.create_mask %colsLeft16 : vector<16xi1>
        // An edge block goes through the zero-padded scratch copy.
        scf.if %full {
        } else {
          scf.for %r = %c0 to %c32 step %c1 {
            %inrow = arith.cmpi ult, %r, %rows : index
            %inr = arith.andi %inrow, %loadC : i1
            %v:2 = scf.if %inr -> (vector<16xf32>, vector<16xf32>) {
              %row = arith.addi %i, %r : index
              %u = vector.maskedload %C[%row, %j], %m0, %zf : memref<?x?xf32, strided<[?, 1], offset: ?>>, vector<16xi1>, vector<16xf32> into vector<16xf32>
              %w = vector.maskedload %C[%row, %j16], %m1, %zf : memref<?x?xf32, strided<[?, 1], offset: ?>>, vector<16xi1>, vector<16xf32> into vector<16xf32>
              scf.yield %u, %w : vector<16xf32>, vector<16xf32>
            } else {
              scf.yield %zf, %zf : vector<16xf32>, vector<16xf32>
            }
            vector.store %v#0, %Cs[%r, %c0] : memref<32x32xf32, strided<[32, 1], offset: ?>>, vector<16xf32>
            vector.store %v#1, %Cs[%r, %c16] : memref<32x32xf32, strided<[32, 1], offset: ?>>, vector<16xf32>
          }
        }
        %dst = arith.select %full, %C, %Csv : memref<?x?xf32, strided<[?, 1], offset: ?>>
        %di = arith.select %full, %i, %c0 : index
        %dj = arith.select %full, %j, %c0 : index
        %toC = arith.andi %full, %noEpi : i1
        %sdst = arith.select %toC, %C, %Csv : memref<?x?xf32, strided<[?, 1], offset: ?>>
        %si = arith.select %toC, %i, %c0 : index
        %sj = arith.select %toC, %j, %c0 : index
        %si16 = arith.addi %si, %c16 : index
        %sj16 = arith.addi %sj, %c16 : index
        %di16 = arith.addi %di, %c16 : index
        %dj16 = arith.addi %dj, %c16 : index
        %zeroTiles = arith.andi %fromZero, %full : i1
        %t00, %t01, %t10, %t11 = scf.if %zeroTiles -> (!amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>) {
          %z00 = amx.tile_zero : !amx.tile<16x16xf32>
          %z01 = amx.tile_zero : !amx.tile<16x16xf32>
          %z10 = amx.tile_zero : !amx.tile<16x16xf32>
          %z11 = amx.tile_zero : !amx.tile<16x16xf32>
          scf.yield %z00, %z01, %z10, %z11 : !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>
        } else {
          %l00 = amx.tile_load %dst[%di, %dj] : memref<?x?xf32, strided<[?, 1], offset: ?>> into !amx.tile<16x16xf32>
          %l01 = amx.tile_load %dst[%di, %dj16] : memref<?x?xf32, strided<[?, 1], offset: ?>> into !amx.tile<16x16xf32>
          %l10 = amx.tile_load %dst[%di16, %dj] : memref<?x?xf32, strided<[?, 1], offset: ?>> into !amx.tile<16x16xf32>
          %l11 = amx.tile_load %dst[%di16, %dj16] : memref<?x?xf32, strided<[?, 1], offset: ?>> into !amx.tile<16x16xf32>
          scf.yield %l00, %l01, %l10, %l11 : !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>
        }
        %jl = arith.subi %j, %j0 : index
        %nt0 = arith.divui %jl, %c16 : index
        %y0Tile = arith.muli %nt0, %kTiles : index
        %y0Row = arith.muli %y0Tile, %c16 : index
        %y1Row = arith.addi %y0Row, %x1Row : index
        %acc:4 = scf.for %kt = %c0 to %kTiles step %c1
            iter_args(%a00 = %t00, %a01 = %t01, %a10 = %t10, %a11 = %t11)
            -> (!amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>) {
          %o = arith.muli %kt, %c16 : index
          %xr1 = arith.addi %x1Row, %o : index
          %yr0 = arith.addi %y0Row, %o : index
          %yr1 = arith.addi %y1Row, %o : index
          %x0 = amx.tile_load %Ap[%o, %c0] : memref<256x32xbf16, strided<[32, 1], offset: ?>> into !amx.tile<16x32xbf16>
          %x1 = amx.tile_load %Ap[%xr1, %c0] : memref<256x32xbf16, strided<[32, 1], offset: ?>> into !amx.tile<16x32xbf16>
          %y0 = amx.tile_load %Bp[%yr0, %c0] : memref<?x32xbf16> into !amx.tile<16x32xbf16>
          %y1 = amx.tile_load %Bp[%yr1, %c0] : memref<?x32xbf16> into !amx.tile<16x32xbf16>
          %n00 = amx.tile_mulf %x0, %y0, %a00 : !amx.tile<16x32xbf16>, !amx.tile<16x32xbf16>, !amx.tile<16x16xf32>
          %n01 = amx.tile_mulf %x0, %y1, %a01 : !amx.tile<16x32xbf16>, !amx.tile<16x32xbf16>, !amx.tile<16x16xf32>
          %n10 = amx.tile_mulf %x1, %y0, %a10 : !amx.tile<16x32xbf16>, !amx.tile<16x32xbf16>, !amx.tile<16x16xf32>
          %n11 = amx.tile_mulf %x1, %y1, %a11 : !amx.tile<16x32xbf16>, !amx.tile<16x32xbf16>, !amx.tile<16x16xf32>
          scf.yield %n00, %n01, %n10, %n11 : !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>
        }
        amx.tile_store %sdst[%si, %sj], %acc#0 : memref<?x?xf32, strided<[?, 1], offset: ?>>, !amx.tile<16x16xf32>
        amx.tile_store %sdst[%si, %sj16], %acc#1 : memref<?x?xf32, strided<[?, 1], offset: ?>>, !amx.tile<16x16xf32>
        amx.tile_store %sdst[%si16, %sj], %acc#2 : memref<?x?xf32, strided<[?, 1], offset: ?>>, !amx.tile<16x16xf32>
        amx.tile_store %sdst[%si16, %sj16], %acc#3 : memref<?x?xf32, strided<[?, 1], offset: ?>>, !amx.tile<16x16xf32>
        scf.if %epi {
          scf.for %r = %c0 to %rows step %c1 {
            %row = arith.addi %i, %r : index
            %u = vector.load %Cs[%r, %c0] : memref<32x32xf32, strided<[32, 1], offset: ?>>, vector<16xf32>
            %w = vector.load %Cs[%r, %c16] : memref<32x32xf32, strided<[32, 1], offset: ?>>, vector<16xf32>
            %ub = arith.truncf %u : vector<16xf32> to vector<16xbf16>
            %wb = arith.truncf %w : vector<16xf32> to vector<16xbf16>
            vector.maskedstore %D[%row, %j], %m0, %ub : memref<?x?xbf16, strided<[?, 1], offset: ?>>, vector<16xi1>, vector<16xbf16>
            vector.maskedstore %D[%row, %j16], %m1, %wb : memref<?x?xbf16, strided<[?, 1], offset: ?>>, vector<16xi1>, vector<16xbf16>
          }
        } else {
        scf.if %full {
        } else {
          scf.for %r = %c0 to %rows step %c1 {
            %row = arith.addi %i, %r : index
            %u = vector.load %Cs[%r, %c0] : memref<32x32xf32, strided<[32, 1], offset: ?>>, vector<16xf32>
            %w = vector.load %Cs[%r, %c16] : memref<32x32xf32, strided<[32, 1], offset: ?>>, vector<16xf32>
            vector.maskedstore %C[%row, %j], %m0, %u : memref<?x?xf32, strided<[?, 1], offset: ?>>, vector<16xi1>, vector<16xf32>
            vector.maskedstore %C[%row, %j16], %m1, %w : memref<?x?xf32, strided<[?, 1], offset: ?>>, vector<16xi1>, vector<16xf32>
          }
        }
        }
      }
      }
  }
  memref.dealloc %ApBuf : memref<256x32xbf16>
  memref.dealloc %CsBuf : memref<32x32xf32>
  memref.dealloc %Bp : memref<?x32xbf16>
  }
  return
}
)mlir";

/// `elementType` (f32, f16 or bf16) x same -> f32 with AVX-512 vectors, in
/// the GotoBLAS order: per K block of 256, B is packed into panels of 32
/// columns (k-major, widened to f32: exact for f16 and bf16); per block of
/// 112 rows, A into panels of 14 rows (each row's 256 k contiguous, so the
/// broadcasts address A at constant offsets, and the pack is a vectorized
/// row copy; widened too); each 14x32 block
/// of C is held in 28 vector<16xf32> accumulators across the K block, with
/// one vector.fma (vfmadd231ps) per row and 16 columns per k: a broadcast
/// of A times a row of the B panel. Edges: the packs are zero padded
/// (masked loads), C is loaded and stored with masks, rows past M not at
/// all. Numerics: k runs in order from C's old value, as in the scalar
/// loops, but each multiply-add is rounded once (FMA) instead of twice, so
/// f32 results differ from the generic path by rounding (bounded by the
/// usual K * u * sum |a b|); with exact products and sums they are equal.
/// The work is split into tasks, blocks of C (ranges of 14-row panels x
/// ranges of 32-column panels), each packing its own A and B and writing
/// only its block: at least one task per 512 KiB of B's pack of a K block
/// (it stays in L2); with `parallel`, at least one per OpenMP thread
/// (columns split first when M < N), run by an scf.parallel, so a call
/// forks once. Every element's sum is the same either way.
std::string avx512KernelName(llvm::StringRef elementType);
std::string avx512Kernel(llvm::StringRef elementType, bool parallel);

/// bf16 x bf16 -> f32 with AVX512-BF16 (a CPU without AMX): the AVX-512
/// kernel's blocking and register block, but the packs keep bf16 in k pairs
/// (B: per k pair, rows k and k + 1 interleaved; A: each pair one dword)
/// and each step is one `x86vector.avx512.dot` (vdpbf16ps) per accumulator,
/// two k at once: twice the f32 kernel's multiply-adds per instruction.
/// Numerics: products of bf16 are exact in f32; vdpbf16ps adds a pair's
/// two products to the accumulator one after the other, each rounded to
/// nearest even, and flushes f32 denormals (inputs and results) to zero:
/// the AMX kernel's order within a pair, not the scalar loops'.
/// A task of at most two column panels with K even reads A's k pairs in
/// place instead of packing A (each element of A serves only two panels);
/// the products and their order are the packed path's.
inline constexpr llvm::StringLiteral kAVX512BF16KernelName =
    "__mpt_avx512bf16_matmul_bf16";
std::string avx512BF16Kernel(bool parallel);
/// Both of the above: `dot` selects the AVX512-BF16 form (bf16 only).
std::string avx512Kernel(llvm::StringRef elementType, bool parallel, bool dot);

/// `elementType` (f32, f16 or bf16) x same -> f32 with AVX2 and FMA (a CPU
/// without AVX-512): the AVX-512 kernel's algorithm and numerics (k in
/// order, one FMA per multiply-add, f16 and bf16 widened to f32 exactly in
/// the packs) with AVX2's blocking: a 6x16 register block (12 ymm
/// accumulators, LLVM splitting each vector<16xf32> in two), 4- and 2-row
/// blocks for short panels, K blocks of 256, row blocks of 48, 1 MiB of
/// B's pack per task. The packs read full vectors with plain loads and mask
/// only the edges (AVX2 has no masked load of 16-bit elements).
std::string avx2KernelName(llvm::StringRef elementType);
std::string avx2Kernel(llvm::StringRef elementType, bool parallel);

/// The name of the vector kernels' register-block function of `rows` rows
/// (14, 8 or 4; AVX2: 6, 4 or 2): `<kernel>_block` (14 rows),
/// `<kernel>_block<rows>` otherwise.
std::string registerBlockName(llvm::StringRef kernel, int rows);
/// Whether `symbol` names a register-block function (shared by the serial
/// and the parallel kernel, added once a module).
bool isRegisterBlock(llvm::StringRef symbol);

} // namespace mpt::cpu

#endif // MPT_LIB_CONVERSION_CPUMATMULKERNELS_H
