//===- CPUMatmulKernels.cpp - the AVX-512 matmul kernel, as MLIR ----------===//
//
// The AVX-512 kernel is generated as text: its 8x32 register block is 16
// accumulators, each carried through the K loop by name.
//
//===----------------------------------------------------------------------===//
#include "CPUMatmulKernels.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

std::string mpt::cpu::avx512KernelName(StringRef elementType) {
  return ("__mpt_avx512_matmul_" + elementType).str();
}

std::string mpt::cpu::avx512Kernel(StringRef elt) {
  constexpr int rows = 8; // rows of the register block; 2 x 16 lanes a row
  std::string text;
  raw_string_ostream os(text);
  std::string in = formatv("memref<?x?x{0}, strided<[?, 1], offset: ?>>", elt);
  std::string out = "memref<?x?xf32, strided<[?, 1], offset: ?>>";
  bool widen = elt != "f32";
  os << formatv("func.func private @{0}(%A: {1}, %B: {1}, %C: {2}) {{\n",
                avx512KernelName(elt), in, out);
  for (int r = 0; r <= rows; ++r)
    os << formatv("  %c{0} = arith.constant {0} : index\n", r);
  os << formatv(R"(  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zf = arith.constant 0.0 : f32
  %zin32 = arith.constant dense<0.0> : vector<32x{0}>
  %z16 = arith.constant dense<0.0> : vector<16xf32>
  %M = memref.dim %A, %c0 : {1}
  %K = memref.dim %A, %c1 : {1}
  %N = memref.dim %B, %c1 : {1}
  %Mb = arith.ceildivui %M, %c8 : index
  %Nb = arith.ceildivui %N, %c32 : index
  %Mp = arith.muli %Mb, %c8 : index
  %Ap = memref.alloc(%Mb, %K) {{alignment = 64 : i64} : memref<?x?x8xf32>
  %Bp = memref.alloc(%Nb, %K) {{alignment = 64 : i64} : memref<?x?x32xf32>
  scf.for %i = %c0 to %Mp step %c1 {{
    %ib = arith.divui %i, %c8 : index
    %ir = arith.remui %i, %c8 : index
    %inrow = arith.cmpi ult, %i, %M : index
    scf.if %inrow {{
      scf.for %k = %c0 to %K step %c1 {{
        %x = memref.load %A[%i, %k] : {1}
{2}        memref.store {4}, %Ap[%ib, %k, %ir] : memref<?x?x8xf32>
      }
    } else {{
      scf.for %k = %c0 to %K step %c1 {{
        memref.store %zf, %Ap[%ib, %k, %ir] : memref<?x?x8xf32>
      }
    }
  }
  scf.for %k = %c0 to %K step %c1 {{
    scf.for %nb = %c0 to %Nb step %c1 {{
      %n = arith.muli %nb, %c32 : index
      %rem = arith.subi %N, %n : index
      %m = vector.create_mask %rem : vector<32xi1>
      %v = vector.maskedload %B[%k, %n], %m, %zin32 : {1}, vector<32xi1>, vector<32x{0}> into vector<32x{0}>
{3}      vector.store {5}, %Bp[%nb, %k, %c0] : memref<?x?x32xf32>, vector<32xf32>
    }
  }
  scf.for %ib = %c0 to %Mb step %c1 {{
    %i0 = arith.muli %ib, %c8 : index
    scf.for %jb = %c0 to %Nb step %c1 {{
      %j0 = arith.muli %jb, %c32 : index
      %j1 = arith.addi %j0, %c16 : index
      %rem0 = arith.subi %N, %j0 : index
      %rem1 = arith.subi %N, %j1 : index
      %m0 = vector.create_mask %rem0 : vector<16xi1>
      %m1 = vector.create_mask %rem1 : vector<16xi1>
)",
                elt, in,
                widen ? formatv("        %xf = arith.extf %x : {0} to f32\n",
                                elt)
                            .str()
                      : "",
                widen ? formatv("      %vf = arith.extf %v : vector<32x{0}> "
                                "to vector<32xf32>\n",
                                elt)
                            .str()
                      : "",
                widen ? "%xf" : "%x", widen ? "%vf" : "%v");
  // Load the C block (rows past M read as zeros and are not stored).
  for (int r = 0; r < rows; ++r)
    os << formatv(R"(      %r{0} = arith.addi %i0, %c{0} : index
      %in{0} = arith.cmpi ult, %r{0}, %M : index
      %l{0}:2 = scf.if %in{0} -> (vector<16xf32>, vector<16xf32>) {{
        %u = vector.maskedload %C[%r{0}, %j0], %m0, %z16 : {1}, vector<16xi1>, vector<16xf32> into vector<16xf32>
        %w = vector.maskedload %C[%r{0}, %j1], %m1, %z16 : {1}, vector<16xi1>, vector<16xf32> into vector<16xf32>
        scf.yield %u, %w : vector<16xf32>, vector<16xf32>
      } else {{
        scf.yield %z16, %z16 : vector<16xf32>, vector<16xf32>
      }
)",
                  r, out);
  std::string types, iterArgs, yields;
  for (int q = 0; q < 2 * rows; ++q) {
    types += (q ? ", " : "") + std::string("vector<16xf32>");
    iterArgs += formatv("{0}%a{1} = %l{2}#{3}", q ? ", " : "", q, q / 2, q % 2);
    yields += formatv("{0}%n{1}", q ? ", " : "", q);
  }
  os << formatv(R"(      %acc:{0} = scf.for %k = %c0 to %K step %c1 iter_args({1}) -> ({2}) {{
        %av = vector.load %Ap[%ib, %k, %c0] : memref<?x?x8xf32>, vector<8xf32>
        %b0 = vector.load %Bp[%jb, %k, %c0] : memref<?x?x32xf32>, vector<16xf32>
        %b1 = vector.load %Bp[%jb, %k, %c16] : memref<?x?x32xf32>, vector<16xf32>
)",
                2 * rows, iterArgs, types);
  for (int r = 0; r < rows; ++r)
    os << formatv(R"(        %e{0} = vector.extract %av[{0}] : f32 from vector<8xf32>
        %s{0} = vector.broadcast %e{0} : f32 to vector<16xf32>
        %p{1} = arith.mulf %s{0}, %b0 : vector<16xf32>
        %p{2} = arith.mulf %s{0}, %b1 : vector<16xf32>
        %n{1} = arith.addf %a{1}, %p{1} : vector<16xf32>
        %n{2} = arith.addf %a{2}, %p{2} : vector<16xf32>
)",
                  r, 2 * r, 2 * r + 1);
  os << formatv("        scf.yield {0} : {1}\n      }\n", yields, types);
  for (int r = 0; r < rows; ++r)
    os << formatv(R"(      scf.if %in{0} {{
        vector.maskedstore %C[%r{0}, %j0], %m0, %acc#{1} : {3}, vector<16xi1>, vector<16xf32>
        vector.maskedstore %C[%r{0}, %j1], %m1, %acc#{2} : {3}, vector<16xi1>, vector<16xf32>
      }
)",
                  r, 2 * r, 2 * r + 1, out);
  os << R"(    }
  }
  memref.dealloc %Ap : memref<?x?x8xf32>
  memref.dealloc %Bp : memref<?x?x32xf32>
  return
}
)";
  return text;
}
