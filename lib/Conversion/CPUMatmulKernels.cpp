//===- CPUMatmulKernels.cpp - the AVX-512 matmul kernel, as MLIR ----------===//
//
// The AVX-512 kernel is generated as text: its register block is one
// accumulator per (row, 16 columns), each carried through the K loop by
// name.
//
//===----------------------------------------------------------------------===//
#include "CPUMatmulKernels.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;

std::string mpt::cpu::avx512KernelName(StringRef elementType) {
  return ("__mpt_avx512_matmul_" + elementType).str();
}

std::string mpt::cpu::avx2KernelName(StringRef elementType) {
  return ("__mpt_avx2_matmul_" + elementType).str();
}

/// The suffix that names a kernel's register-block functions.
static constexpr StringLiteral kRegisterBlockSuffix = "_block";
/// The rows of the AVX-512 kernels' full register block (see avx512Kernel).
static constexpr int kRegisterBlockRows = 14;

std::string mpt::cpu::registerBlockName(StringRef kernel, int rows) {
  std::string name = (kernel + kRegisterBlockSuffix).str();
  // The full block keeps the name it always had.
  if (rows != kRegisterBlockRows)
    name += std::to_string(rows);
  return name;
}

bool mpt::cpu::isRegisterBlock(StringRef symbol) {
  return symbol.contains(kRegisterBlockSuffix);
}

/// Transposes the 16 x 16 dword matrix whose rows are the vector<16xi32>
/// values `rows` with a shuffle network (at distance d = 8, 4, 2, 1, rows i
/// and i + d swap the off-diagonal d x d blocks of each 2d x 2d block);
/// returns the names of the columns. A pair of bf16 values is one dword, so
/// this turns 16 rows of 32 bf16 (16 k pairs each) into the 16 VNNI rows of
/// a tile.
static SmallVector<std::string> emitDwordTranspose(raw_ostream &os,
                                                   StringRef prefix,
                                                   StringRef indent,
                                                   SmallVector<std::string> rows) {
  const int n = 16;
  for (int d = n / 2, stage = 0; d >= 1; d /= 2, ++stage) {
    std::string low, high;
    for (int c = 0; c < n; ++c) {
      bool right = c & d;
      low += formatv("{0}{1}", c ? ", " : "", right ? n + c - d : c).str();
      high += formatv("{0}{1}", c ? ", " : "", right ? n + c : c + d).str();
    }
    SmallVector<std::string> next(rows);
    for (int i = 0; i < n; ++i) {
      if (i & d)
        continue;
      for (auto [row, mask] : {std::pair(i, &low), std::pair(i + d, &high)}) {
        next[row] = formatv("{0}s{1}r{2}", prefix, stage, row).str();
        os << formatv("{0}%{1} = vector.shuffle %{2}, %{3} [{4}] : "
                      "vector<16xi32>, vector<16xi32>\n",
                      indent, next[row], rows[i], rows[i + d], *mask);
      }
    }
    rows = std::move(next);
  }
  return rows;
}

/// Stores the 16 dword rows `rows` as the bf16 rows of tile (`tileRow` +
/// `kTile`) of `buffer` (16 rows a tile); `prefix` names the values, whose
/// index constants are `%<prefix>c0`...`%<prefix>c15`.
static void emitTileStores(raw_ostream &os, StringRef prefix, StringRef indent,
                           ArrayRef<std::string> rows, StringRef tileRow,
                           StringRef kTile, StringRef buffer,
                           StringRef bufferType) {
  os << formatv("{0}%{1}s = arith.addi {2}, {3} : index\n"
                "{0}%{1}t = arith.muli %{1}s, %c16 : index\n",
                indent, prefix, tileRow, kTile);
  for (auto [r, row] : llvm::enumerate(rows))
    os << formatv(R"({0}%{1}row{2} = arith.addi %{1}t, %{1}c{2} : index
{0}%{1}rv{2} = vector.bitcast %{3} : vector<16xi32> to vector<32xbf16>
{0}vector.store %{1}rv{2}, {4}[%{1}row{2}, %c0] : {5}, vector<32xbf16>
)",
                  indent, prefix, r, row, buffer, bufferType);
}

/// The B pack of the AMX kernel for a transposed B (N x K, row-major): per
/// 16 columns of C and 32 k of the K block, 16 rows of B^T (32 bf16 each,
/// masked at K, zero past N) are one 16x16 dword matrix whose transpose is
/// the VNNI tile. Only the task's tiles (its panels p0..p1) are packed, at
/// their place in the task's Bp.
static std::string packTransposedB() {
  std::string text;
  raw_string_ostream os(text);
  StringRef ind = "          ";
  os << "      %tbLo = arith.muli %p0, %c2 : index\n"
        "      %tbHi = arith.muli %p1, %c2 : index\n";
  for (int i = 0; i < 16; ++i)
    os << formatv("      %tbc{0} = arith.constant {0} : index\n", i);
  os << "      scf.for %tbn = %tbLo to %tbHi step %c1 {\n";
  os << R"(        %tbn0 = arith.muli %tbn, %c16 : index
        %tbl = arith.subi %tbn, %tbLo : index
        %tbq = arith.muli %tbl, %kTiles : index
        scf.for %tbkt = %c0 to %kTiles step %c1 {
          %tbkl = arith.muli %tbkt, %c32 : index
          %tbk = arith.addi %kb, %tbkl : index
          %tbrem = arith.subi %K, %tbk : index
          %tbm = vector.create_mask %tbrem : vector<32xi1>
)";
  SmallVector<std::string> rows;
  for (int i = 0; i < 16; ++i) {
    os << formatv(R"({0}%tbrn{1} = arith.addi %tbn0, %tbc{1} : index
{0}%tbin{1} = arith.cmpi ult, %tbrn{1}, %N : index
{0}%tbr{1} = scf.if %tbin{1} -> (vector<16xi32>) {{
{0}  %x = vector.maskedload %B[%tbrn{1}, %tbk], %tbm, %zbf : memref<?x?xbf16, strided<[?, 1], offset: ?>>, vector<32xi1>, vector<32xbf16> into vector<32xbf16>
{0}  %d = vector.bitcast %x : vector<32xbf16> to vector<16xi32>
{0}  scf.yield %d : vector<16xi32>
{0}} else {{
{0}  scf.yield %zi : vector<16xi32>
{0}}
)",
                  ind, i);
    rows.push_back(formatv("tbr{0}", i).str());
  }
  emitTileStores(os, "tb", ind, emitDwordTranspose(os, "tb", ind, rows),
                 "%tbq", "%tbkt", "%Bp", "memref<?x32xbf16>");
  os << "        }\n      }\n";
  return text;
}

/// The A pack of the AMX kernel for a transposed A (K x M, row-major): per
/// 16 rows of C and 32 k, the 16 pairs of rows of A^T (16 bf16 each, masked
/// at M, zero past K) are interleaved into 16 dword rows (a k pair per
/// dword, one per row of C) and transposed into the tile's rows.
static std::string packTransposedA() {
  std::string text;
  raw_string_ostream os(text);
  StringRef ind = "            ";
  for (int i = 0; i < 32; ++i)
    os << formatv("        %tac{0} = arith.constant {0} : index\n", i);
  os << R"(        scf.for %tam = %c0 to %c2 step %c1 {
          %tam16 = arith.muli %tam, %c16 : index
          %tam0 = arith.addi %i, %tam16 : index
          %tamrem = arith.subi %M, %tam0 : index
          %tamm = vector.create_mask %tamrem : vector<16xi1>
          %tamq = arith.muli %tam, %kTiles : index
          scf.for %takt = %c0 to %kTiles step %c1 {
            %takl = arith.muli %takt, %c32 : index
            %tak = arith.addi %kb, %takl : index
)";
  SmallVector<std::string> rows;
  for (int p = 0; p < 16; ++p) {
    for (auto [half, offset] : {std::pair("e", 2 * p), std::pair("o", 2 * p + 1)})
      os << formatv(R"({0}%ta{1}{2}k = arith.addi %tak, %tac{3} : index
{0}%ta{1}{2}in = arith.cmpi ult, %ta{1}{2}k, %K : index
{0}%ta{1}{2} = scf.if %ta{1}{2}in -> (vector<16xbf16>) {{
{0}  %x = vector.maskedload %A[%ta{1}{2}k, %tam0], %tamm, %zbf16 : memref<?x?xbf16, strided<[?, 1], offset: ?>>, vector<16xi1>, vector<16xbf16> into vector<16xbf16>
{0}  scf.yield %x : vector<16xbf16>
{0}} else {{
{0}  scf.yield %zbf16 : vector<16xbf16>
{0}}
)",
                    ind, half, p, offset);
    os << formatv(R"({0}%tav{1} = vector.interleave %tae{1}, %tao{1} : vector<16xbf16> -> vector<32xbf16>
{0}%tad{1} = vector.bitcast %tav{1} : vector<32xbf16> to vector<16xi32>
)",
                  ind, p);
    rows.push_back(formatv("tad{0}", p).str());
  }
  emitTileStores(os, "ta", ind, emitDwordTranspose(os, "ta", ind, rows),
                 "%tamq", "%takt", "%Ap",
                 "memref<256x32xbf16, strided<[32, 1], offset: ?>>");
  os << "          }\n        }\n";
  return text;
}

/// The kernels' task count: the OpenMP threads when parallel (read at
/// each call), else 1 (`%cTasks`).
static StringRef taskCount(bool parallel) {
  return parallel ? "  %threads = func.call @omp_get_max_threads() : () -> i32\n"
                    "  %cTasks = arith.index_cast %threads : i32 to index\n"
                  : "  %cTasks = arith.constant 1 : index\n";
}

/// The loop over the kernels' tasks (`%task` in [0, `%tasks`)).
static StringRef taskLoop(bool parallel) {
  return parallel ? "scf.parallel (%task) = (%c0) to (%tasks) step (%c1)"
                  : "scf.for %task = %c0 to %tasks step %c1";
}

/// The kernels' split of C into `%tasks` = `%rowRanges` x `%colRanges`
/// blocks: ranges of `rowUnits` row units (blocks or panels of rows) x
/// ranges of the `%Nb` 32-column panels, at least `minColRanges` of those.
/// A split repeats the other operand's pack in every task: columns are
/// split first when A (M x K) is the smaller one to repeat (M < N), rows
/// first otherwise, until there are `%cTasks`. At least one range of each,
/// so that an empty C (N or M 0) divides by nothing: its task has no rows
/// or no columns.
static std::string taskSplit(StringRef rowUnits, StringRef minColRanges) {
  return formatv(R"(  %cfMoreCols = arith.minui %Nb, %cTasks : index
  %cfCols = arith.maxui {1}, %cfMoreCols : index
  %cfWantRows = arith.ceildivui %cTasks, %cfCols : index
  %cfMoreRows = arith.minui {0}, %cfWantRows : index
  %cfRows = arith.maxui %cfMoreRows, %c1 : index
  %rfWantRows = arith.ceildivui %cTasks, {1} : index
  %rfMoreRows = arith.minui {0}, %rfWantRows : index
  %rfRows = arith.maxui %rfMoreRows, %c1 : index
  %rfWantCols = arith.ceildivui %cTasks, %rfRows : index
  %rfMoreCols = arith.minui %Nb, %rfWantCols : index
  %rfCols = arith.maxui {1}, %rfMoreCols : index
  %colsFirst = arith.cmpi ult, %M, %N : index
  %rowRanges = arith.select %colsFirst, %cfRows, %rfRows : index
  %colRanges = arith.select %colsFirst, %cfCols, %rfCols : index
  %tasks = arith.muli %rowRanges, %colRanges : index
)",
                 rowUnits, minColRanges)
      .str();
}

/// In the task loop: task `%task`'s row units [`%ru0`, `%ru1`) and column
/// panels [`%p0`, `%p1`) (contiguous, as equal as they divide).
static std::string taskRanges(StringRef rowUnits) {
  return formatv(R"(  %rr = arith.divui %task, %colRanges : index
  %cr = arith.remui %task, %colRanges : index
  %rr1 = arith.addi %rr, %c1 : index
  %cr1 = arith.addi %cr, %c1 : index
  %ru0n = arith.muli %rr, {0} : index
  %ru0 = arith.divui %ru0n, %rowRanges : index
  %ru1n = arith.muli %rr1, {0} : index
  %ru1 = arith.divui %ru1n, %rowRanges : index
  %p0n = arith.muli %cr, %Nb : index
  %p0 = arith.divui %p0n, %colRanges : index
  %p1n = arith.muli %cr1, %Nb : index
  %p1 = arith.divui %p1n, %colRanges : index
)",
                 rowUnits)
      .str();
}

std::string mpt::cpu::amxKernel(bool parallel) {
  std::string text = kAMXKernelTemplate.str();
  std::string packBT = packTransposedB(), packAT = packTransposedA();
  std::string split = taskSplit("%rowBlocks", "%colBlocks1");
  std::string ranges = taskRanges("%rowBlocks");
  for (auto [marker, value] :
       {std::pair<StringRef, StringRef>("@PACK_B_T@", packBT),
        std::pair<StringRef, StringRef>("@PACK_A_T@", packAT),
        std::pair<StringRef, StringRef>("@TASK_LOOP@", taskLoop(parallel)),
        std::pair<StringRef, StringRef>("@TASK_COUNT@", taskCount(parallel)),
        std::pair<StringRef, StringRef>("@TASK_SPLIT@", split),
        std::pair<StringRef, StringRef>("@TASK_RANGES@", ranges),
        std::pair<StringRef, StringRef>(
            "@DECLARATIONS@",
            parallel ? "func.func private @omp_get_max_threads() -> i32" : "")})
    for (size_t at; (at = text.find(marker.str())) != std::string::npos;)
      text.replace(at, marker.size(), value.str());
  return text;
}

namespace {
/// The blocking of a vector kernel (vectorKernel): its register block and
/// cache blocks, per instruction set.
struct KernelGeometry {
  /// The kernel's function name.
  std::string name;
  /// The full register block: `rows` x `vectors` vector<16xf32>
  /// accumulators.
  int rows;
  int vectors;
  /// Register blocks of fewer rows (ascending), for panels of at most that
  /// many rows.
  SmallVector<int, 2> smallBlocks;
  /// K block, and row block in panels of `rows`.
  int kBlock;
  int rowBlockPanels;
  /// The bytes of B's pack of a K block that a task's column range keeps
  /// in L2.
  int bPackBytes;
  /// Masked loads of 16-bit elements are native (AVX-512BW); without, the
  /// packs read full vectors with plain loads and only the edges masked.
  bool nativeMaskedLoads;
};
} // namespace

static std::string vectorKernel(StringRef elt, bool parallel, bool dot,
                                const KernelGeometry &geometry);

std::string mpt::cpu::avx512Kernel(StringRef elt, bool parallel) {
  return avx512Kernel(elt, parallel, /*dot=*/false);
}

std::string mpt::cpu::avx512BF16Kernel(bool parallel) {
  return avx512Kernel("bf16", parallel, /*dot=*/true);
}

std::string mpt::cpu::avx512Kernel(StringRef elt, bool parallel, bool dot) {
  // The register block: 14 x 32 f32, 28 of the 32 zmm registers as
  // accumulators, 2 for B, 1 for the broadcast of A. Sizes measured with
  // bench/cpu/bench.py (12x32, 8x32, 6x64 and K blocks 128-384 were within
  // the noise of this one).
  // K block: a B panel (256 x 32 f32, 32 KiB) stays in L1 while the row
  // panels of A pass; row block: the packed A block (112 x 256 f32,
  // 112 KiB) stays in L2 while the B panels pass. With `dot` (bf16, half
  // the bytes) 512 k make the same 32 KiB panel, and C's loads and stores
  // and the block's call come half as often: 3-13% more GFLOP/s on the
  // bench's shapes (AMD EPYC, 1 and 2 threads).
  KernelGeometry geometry{dot ? kAVX512BF16KernelName.str()
                              : avx512KernelName(elt),
                          kRegisterBlockRows,
                          /*vectors=*/2,
                          /*smallBlocks=*/{4, 8},
                          /*kBlock=*/dot ? 512 : 256,
                          /*rowBlockPanels=*/8,
                          /*bPackBytes=*/512 << 10,
                          /*nativeMaskedLoads=*/true};
  return vectorKernel(elt, parallel, dot, geometry);
}

std::string mpt::cpu::avx2Kernel(StringRef elt, bool parallel) {
  // AVX2 has 16 ymm registers: a 6 x 16 block is 12 accumulators (a
  // vector<16xf32> is two ymm), 2 for the B row, 1 for the broadcast.
  // A B panel of the K block (256 x 16 f32, 16 KiB) stays in L1d (32 KiB on
  // the AVX2 CPU this was measured on, AMD Zen 3, L2 512 KiB) while A's row
  // block (48 x 256 f32, 48 KiB) passes. A task packs up to 1 MiB of B a K
  // block: each panel is read back once per row block, and fewer column
  // ranges pack A fewer times. Measured with bench/cpu/bench.py's kernel
  // shapes, one thread, against row blocks of 24-192, K blocks of 128-384
  // and B packs of 256 KiB-2 MiB: 0.72-0.86x PyTorch's f32 GFLOP/s at
  // 1024^3 with 96-row blocks and 256 KiB packs, 0.89-0.93x with these.
  KernelGeometry geometry{avx2KernelName(elt),
                          /*rows=*/6,
                          /*vectors=*/1,
                          /*smallBlocks=*/{2, 4},
                          /*kBlock=*/256,
                          /*rowBlockPanels=*/8,
                          /*bPackBytes=*/1024 << 10,
                          /*nativeMaskedLoads=*/false};
  return vectorKernel(elt, parallel, /*dot=*/false, geometry);
}

static std::string vectorKernel(StringRef elt, bool parallel, bool dot,
                                const KernelGeometry &geometry) {
  const int rows = geometry.rows;
  const int vectors = geometry.vectors;
  const int kBlock = geometry.kBlock;
  const int rowBlock = rows * geometry.rowBlockPanels;
  const int cols = 16 * vectors;
  // With `dot`, the packs keep bf16 in k pairs: a row of a B panel is a k
  // pair of its 32 columns interleaved (64 bf16, two dot operands), a row
  // of an A panel is the K block's pairs as dwords (one broadcast each).
  const int panels = rowBlock / rows;
  const int kSteps = dot ? kBlock / 2 : kBlock;
  StringRef apElt = dot ? "i32" : "f32";
  StringRef bpElt = dot ? "bf16" : "f32";
  const int bpRow = dot ? 2 * cols : cols;
  std::string in = formatv("memref<?x?x{0}, strided<[?, 1], offset: ?>>", elt);
  std::string out = "memref<?x?xf32, strided<[?, 1], offset: ?>>";
  std::string apType =
      formatv("memref<{0}x{1}x{2}x{3}>", panels, rows, kSteps, apElt);
  std::string bpType =
      formatv("memref<?x{0}x{1}x{2}>", kSteps, bpRow, bpElt);
  bool widen = elt != "f32" && !dot;
  // With `dot`, a task of at most two column panels (C's N <= 64: the
  // weight gradients' and a narrow layer's products) broadcasts A's k pairs
  // from A itself instead of packing it: each of A's elements is used by
  // only two panels, so the pack (a third of the pass over A) does not pay
  // for itself. Even K only, so that a pair never reads past A's row; rows
  // past M read row M - 1 and are not stored.
  const char *inPlaceADecision = R"(  %fewPanels = arith.cmpi ule, %taskPanels, %c2 : index
  %kOdd = arith.remui %K, %c2 : index
  %kEven = arith.cmpi eq, %kOdd, %c0 : index
  %inPlaceA = arith.andi %fewPanels, %kEven : i1
  %packA = arith.xori %inPlaceA, %true : i1
  %lastRow = arith.subi %M, %c1 : index)";
  // `result` = the `lanes` elements of `elt` at `at` (a memref of type
  // `memref`), those at `remaining` or more past the first zero (`mask`
  // masks them, `zero` is the padding; `lanesConstant` names the index
  // constant `lanes`). Without native masked loads of
  // 16-bit elements LLVM scalarizes them: a full vector is a plain load.
  auto maskedLoad = [&](StringRef indent, StringRef result, StringRef at,
                        StringRef remaining, StringRef mask, StringRef zero,
                        StringRef memref, int lanes, StringRef elt,
                        StringRef lanesConstant) {
    std::string masked =
        formatv("vector.maskedload {0}, {1}, {2} : {3}, vector<{4}xi1>, "
                "vector<{4}x{5}> into vector<{4}x{5}>",
                at, mask, zero, memref, lanes, elt);
    if (geometry.nativeMaskedLoads)
      return formatv("{0}{1} = {2}", indent, result, masked).str();
    // bf16 vectors cross the branches as i16: LLVM legalizes a phi of
    // <16 x bfloat> without AVX512-BF16 by converting every element to
    // float and back (a __truncsfbf2 call each). The casts' expansion
    // (--mpt-expand-bf16-casts) folds the bitcasts away.
    StringRef carried = elt == "bf16" ? "i16" : elt;
    auto yield = [&](StringRef value) {
      if (carried == elt)
        return formatv("scf.yield {0} : vector<{1}x{2}>", value, lanes, elt)
            .str();
      return formatv("%li = arith.bitcast {0} : vector<{1}x{2}> to "
                     "vector<{1}x{3}>\n{4}  scf.yield %li : vector<{1}x{3}>",
                     value, lanes, elt, carried, indent)
          .str();
    };
    std::string text =
        formatv(R"({0}{1}full = arith.cmpi uge, {2}, {8} : index
{0}{1}{9} = scf.if {1}full -> (vector<{3}x{10}>) {{
{0}  %l = vector.load {5} : {6}, vector<{3}x{4}>
{0}  {11}
{0}} else {{
{0}  %l = {7}
{0}  {11}
{0}})",
                indent, result, remaining, lanes, elt, at, memref, masked,
                lanesConstant, carried == elt ? "" : "i", carried, yield("%l"))
            .str();
    if (carried != elt)
      text += formatv("\n{0}{1} = arith.bitcast {1}i : vector<{2}x{3}> to "
                      "vector<{2}x{4}>",
                      indent, result, lanes, carried, elt)
                  .str();
    return text;
  };
  std::string text;
  raw_string_ostream os(text);
  if (parallel)
    os << "func.func private @omp_get_max_threads() -> i32\n";
  // With `dot`, as the AMX kernel: with %toD, the last K block writes the
  // sums rounded to bf16 into D instead of C (C's rounded reader,
  // --mpt-matmul-to-cpu-kernels); earlier K blocks still go through C.
  std::string dType = "memref<?x?xbf16, strided<[?, 1], offset: ?>>";
  const std::string &name = geometry.name;
  os << formatv("func.func private @{0}(%A: {1}, %B: {1}, %C: {2}, "
                "%zeroC: i1{3}) {{\n",
                name, in, out, dot ? ", %D: " + dType + ", %toD: i1" : "");
  for (int r = 0; r <= rows; ++r)
    os << formatv("  %c{0} = arith.constant {0} : index\n", r);
  for (int v = 0; v < vectors; ++v)
    os << formatv("  %c{0}x16 = arith.constant {1} : index\n"
                  "  %c{0}x32 = arith.constant {2} : index\n",
                  v, v * 16, v * 32);
  os << formatv(R"(  %c16 = arith.constant 16 : index
  %cNR = arith.constant {2} : index
  %cMR = arith.constant {3} : index
  %cKB = arith.constant {4} : index
  %cMB = arith.constant {5} : index
  %true = arith.constant true
  %zin = arith.constant dense<0.0> : vector<{2}x{0}>
  %zin16 = arith.constant dense<0.0> : vector<16x{0}>
  %z16 = arith.constant dense<0.0> : vector<16xf32>
  %zi8 = arith.constant dense<0> : vector<8xi32>
  %M = memref.dim %A, %c0 : {1}
  %K = memref.dim %A, %c1 : {1}
  %N = memref.dim %B, %c1 : {1}
  %Nb = arith.ceildivui %N, %cNR : index
  %Mp = arith.ceildivui %M, %cMR : index
)",
                elt, in, cols, rows, kBlock, rowBlock);
  // Tasks: blocks of C, ranges of 14-row panels x ranges of 32-column
  // panels (taskSplit), each packing its own A and B and writing only its
  // block, so a call forks once and every thread has work whatever the
  // shape (a weight gradient has 64 rows and thousands of columns).
  // At least one column range per `panelsPerRange` panels, so that a task's
  // B pack of a K block (512 KiB) stays in L2 while its row blocks pass:
  // one pack of all of a wide B (a convolution's thousands of positions)
  // would be read back from L3 for every panel.
  const int bpPanelBytes = kSteps * bpRow * (dot ? 2 : 4);
  const int panelsPerRange = std::max(1, geometry.bPackBytes / bpPanelBytes);
  os << formatv("  %cPR = arith.constant {0} : index\n"
                "  %colBlocks0 = arith.ceildivui %Nb, %cPR : index\n"
                "  %colBlocks = arith.maxui %colBlocks0, %c1 : index\n",
                panelsPerRange);
  os << taskCount(parallel) << taskSplit("%Mp", "%colBlocks");
  os << formatv(R"(  {0} {{
{4}  %i0 = arith.muli %ru0, %cMR : index
  %i1p = arith.muli %ru1, %cMR : index
  %i1 = arith.minui %i1p, %M : index
  %taskPanels = arith.subi %p1, %p0 : index
{5}
  %Bp = memref.alloc(%taskPanels) {{alignment = 64 : i64} : {1}
  %Ap = memref.alloc() {{alignment = 64 : i64} : {2}
  scf.for %kb = %c0 to %K step %cKB {{
    %kbe = arith.addi %kb, %cKB : index
    %kend = arith.minui %kbe, %K : index
    %kbl = arith.subi %kend, %kb : index
    // The inner loop's steps: k, or (dot) k pairs, the last one padded.
    %ksteps = {3} : index
    // With %zeroC, the first K block starts from zeros, not from C.
    %firstK = arith.cmpi eq, %kb, %c0 : index
    %fromZero = arith.andi %zeroC, %firstK : i1
    %loadC = arith.xori %fromZero, %true : i1
{6}
)",
                taskLoop(parallel), bpType, apType,
                dot ? "arith.ceildivui %kbl, %c2" : "arith.addi %kbl, %c0",
                taskRanges("%Mp"),
                dot ? inPlaceADecision : "  %packA = arith.constant true",
                dot ? "    %lastK = arith.cmpi eq, %kend, %K : index\n"
                      "    %epi = arith.andi %toD, %lastK : i1"
                    : "");
  // B[kb:kend, the task's panels] -> Bp.
  if (dot)
    os << formatv(R"(    // Panels of {2} columns, zero padded; per k pair, rows k and k + 1
    // interleaved (a zero row past K).
    scf.for %k = %c0 to %ksteps step %c1 {{
      %kl = arith.muli %k, %c2 : index
      %kg = arith.addi %kb, %kl : index
      %kg1 = arith.addi %kg, %c1 : index
      %in1 = arith.cmpi ult, %kg1, %K : index
      scf.for %nb = %p0 to %p1 step %c1 {{
        %n = arith.muli %nb, %cNR : index
        %rem = arith.subi %N, %n : index
        %m = vector.create_mask %rem : vector<{2}xi1>
        %v0 = vector.maskedload %B[%kg, %n], %m, %zin : {1}, vector<{2}xi1>, vector<{2}xbf16> into vector<{2}xbf16>
        %v1 = scf.if %in1 -> (vector<{2}xbf16>) {{
          %r = vector.maskedload %B[%kg1, %n], %m, %zin : {1}, vector<{2}xi1>, vector<{2}xbf16> into vector<{2}xbf16>
          scf.yield %r : vector<{2}xbf16>
        } else {{
          scf.yield %zin : vector<{2}xbf16>
        }
        %v = vector.interleave %v0, %v1 : vector<{2}xbf16> -> vector<{3}xbf16>
)",
                  elt, in, cols, 2 * cols);
  else
    os << formatv(R"(    // Panels of {2} columns, zero padded, in f32.
    scf.for %k = %c0 to %kbl step %c1 {{
      %kg = arith.addi %kb, %k : index
      scf.for %nb = %p0 to %p1 step %c1 {{
        %n = arith.muli %nb, %cNR : index
        %rem = arith.subi %N, %n : index
        %m = vector.create_mask %rem : vector<{2}xi1>
{3}
)",
                  elt, in, cols,
                  maskedLoad("        ", "%v", "%B[%kg, %n]", "%rem", "%m",
                             "%zin", in, cols, elt, "%cNR"));
  if (widen)
    os << formatv("        %vf = arith.extf %v : vector<{0}x{1}> to "
                  "vector<{0}xf32>\n",
                  cols, elt);
  os << formatv(R"(        %nl = arith.subi %nb, %p0 : index
        vector.store {0}, %Bp[%nl, %k, %c0] : {1}, vector<{2}x{3}>
      }
    }
    scf.for %ib = %i0 to %i1 step %cMB {{
      %ibe = arith.addi %ib, %cMB : index
      %iend = arith.minui %ibe, %i1 : index
      %ibl = arith.subi %iend, %ib : index
      %panels = arith.ceildivui %ibl, %cMR : index
      // A[ib:iend, kb:kend] -> Ap: panels of {4} rows, each row's part of
      // the K block contiguous (rows past the block are zeros).
      scf.if %packA {{
      scf.for %p = %c0 to %panels step %c1 {{
        %pr0 = arith.muli %p, %cMR : index
        %pi0 = arith.addi %ib, %pr0 : index
        scf.for %r = %c0 to %cMR step %c1 {{
          %i = arith.addi %pi0, %r : index
          %inrow = arith.cmpi ult, %i, %iend : index
          scf.if %inrow {{
            scf.for %k = %c0 to %kbl step %c16 {{
              %kg = arith.addi %kb, %k : index
              %krem = arith.subi %kbl, %k : index
              %km = vector.create_mask %krem : vector<16xi1>
{7}
)",
                widen ? "%vf" : "%v", bpType, bpRow, bpElt, rows, in, elt,
                maskedLoad("              ", "%x", "%A[%i, %kg]", "%krem",
                           "%km", "%zin16", in, 16, elt, "%c16"));
  if (dot)
    os << formatv(R"(              %xd = vector.bitcast %x : vector<16xbf16> to vector<8xi32>
              %kh = arith.divui %k, %c2 : index
              vector.store %xd, %Ap[%p, %r, %kh] : {0}, vector<8xi32>
            }
          } else {{
            scf.for %k = %c0 to %kbl step %c16 {{
              %kh = arith.divui %k, %c2 : index
              vector.store %zi8, %Ap[%p, %r, %kh] : {0}, vector<8xi32>
            }
          }
)",
                  apType);
  else {
    if (widen)
      os << formatv("              %xf = arith.extf %x : vector<16x{0}> to "
                    "vector<16xf32>\n",
                    elt);
    os << formatv(R"(              vector.store {0}, %Ap[%p, %r, %k] : {1}, vector<16xf32>
            }
          } else {{
            scf.for %k = %c0 to %kbl step %c16 {{
              vector.store %z16, %Ap[%p, %r, %k] : {1}, vector<16xf32>
            }
          }
)",
                  widen ? "%xf" : "%x", apType);
  }
  os << R"(        }
      }
      }
      scf.for %jb = %p0 to %p1 step %c1 {
        %jl = arith.subi %jb, %p0 : index
        %j0 = arith.muli %jb, %cNR : index
)";
  for (int v = 0; v < vectors; ++v)
    os << formatv(R"(        %jo{0} = arith.addi %j0, %c{0}x16 : index
        %rem{0} = arith.subi %N, %jo{0} : index
        %m{0} = vector.create_mask %rem{0} : vector<16xi1>
)",
                  v);
  os << R"(        scf.for %p = %c0 to %panels step %c1 {
          %pr0 = arith.muli %p, %cMR : index
          %pi0 = arith.addi %ib, %pr0 : index
)";
  // The register block (C's rows pi0.. x columns j0..: load, K loop,
  // store) is a function of its own, never inlined: its accumulators take
  // 28 of the 32 vector registers, and in the whole kernel LLVM's register
  // allocator spilled some of them in the K loop when the kernel is the
  // body of an OpenMP region (25-40% slower a thread than the serial
  // kernel, whose same loop it allocated without spills).
  // Its parameters, in order, as (name, type): the kernel's values it reads.
  SmallVector<std::pair<StringRef, std::string>> blockParams = {
      {"%A", in}, {"%Ap", apType}, {"%Bp", bpType}, {"%C", out}};
  if (dot)
    blockParams.push_back({"%D", dType});
  for (StringRef index : {"%p", "%jl", "%pi0", "%iend", "%j0", "%N", "%ksteps"})
    blockParams.push_back({index, "index"});
  blockParams.push_back({"%loadC", "i1"});
  if (dot)
    blockParams.append({{"%epi", "i1"},
                        {"%inPlaceA", "i1"},
                        {"%kb", "index"},
                        {"%lastRow", "index"}});
  // The parameters' parts (`part(name, type)`), comma separated.
  auto joinParams = [&](auto part) {
    std::string joined;
    for (const auto &[param, type] : blockParams)
      joined += (joined.empty() ? "" : ", ") + part(param, type);
    return joined;
  };
  // A panel of at most 4 or 8 rows (AVX2: 2 or 4; a batch of 4 or 8 as M,
  // the last panel of a ragged M) calls a register block of that many rows:
  // the full block would spend its FMAs on padding (M = 8: 6 of 14 rows).
  std::string args = joinParams([](StringRef n, StringRef) { return n.str(); });
  std::string argTypes =
      joinParams([](StringRef, StringRef t) { return t.str(); });
  os << R"(          %panelEnd = arith.addi %pi0, %cMR : index
          %panelRows0 = arith.minui %panelEnd, %iend : index
          %panelRows = arith.subi %panelRows0, %pi0 : index
)";
  for (int small : geometry.smallBlocks)
    os << formatv(
        "          %upTo{0} = arith.cmpi ule, %panelRows, %c{0} : index\n",
        small);
  std::string indent = "          ";
  auto emitCall = [&](int blockRows) {
    os << formatv("{0}  func.call @{1}({2}) : ({3}) -> ()\n", indent,
                  mpt::cpu::registerBlockName(name, blockRows), args, argTypes);
  };
  for (int small : geometry.smallBlocks) {
    os << formatv("{0}scf.if %upTo{1} {{\n", indent, small);
    emitCall(small);
    os << indent << "} else {\n";
    indent += "  ";
  }
  indent.resize(indent.size() - 2);
  emitCall(rows);
  for (size_t i = 0; i < geometry.smallBlocks.size(); ++i) {
    indent.resize(indent.size() - 2);
    os << indent << "  }\n";
  }
  // The register block of `blockRows` rows of the panel (its first rows),
  // as the body of a function.
  auto emitBlock = [&](const int blockRows) {
    const int rows = blockRows;
    std::string block;
    raw_string_ostream bs(block);
    // Load the C block (rows past the task's block read as zeros and are not
    // stored).
    std::string vecTypes;
    for (int v = 0; v < vectors; ++v)
      vecTypes += (v ? ", " : "") + std::string("vector<16xf32>");
    for (int r = 0; r < rows; ++r) {
      bs << formatv(R"(          %r{0} = arith.addi %pi0, %c{0} : index
          %in{0} = arith.cmpi ult, %r{0}, %iend : index
          %ld{0} = arith.andi %in{0}, %loadC : i1
          %l{0}:{1} = scf.if %ld{0} -> ({2}) {{
)",
                    r, vectors, vecTypes);
      std::string loaded, zeros;
      for (int v = 0; v < vectors; ++v) {
        bs << formatv(
            "            %u{0} = vector.maskedload %C[%r{1}, %jo{0}], "
            "%m{0}, %z16 : {2}, vector<16xi1>, vector<16xf32> into "
            "vector<16xf32>\n",
            v, r, out);
        loaded += formatv("{0}%u{1}", v ? ", " : "", v);
        zeros += formatv("{0}%z16", v ? ", " : "");
      }
      bs << formatv(R"(            scf.yield {0} : {2}
          } else {{
            scf.yield {1} : {2}
          }
)",
                    loaded, zeros, vecTypes);
    }
    std::string types, iterArgs, yields;
    for (int q = 0; q < rows * vectors; ++q) {
      types += (q ? ", " : "") + std::string("vector<16xf32>");
      iterArgs += formatv("{0}%a{1} = %l{2}#{3}", q ? ", " : "", q, q / vectors,
                          q % vectors);
      yields += formatv("{0}%n{1}", q ? ", " : "", q);
    }
    // The K loop. Per step: the B row (16 columns per vector; with `dot`, 16
    // column pairs), a broadcast of A per row (from the pack, or with
    // `inPlace` from A's row), one FMA or vdpbf16ps per accumulator.
    auto emitKLoop = [&](StringRef result, bool inPlace) {
      bs << formatv("          {3}:{0} = scf.for %k = %c0 to %ksteps step %c1 "
                    "iter_args({1}) -> ({2}) {{\n",
                    rows * vectors, iterArgs, types, result);
      for (int v = 0; v < vectors; ++v)
        bs << formatv(
            "            %b{0} = vector.load %Bp[%jl, %k, %c{0}x{2}] : "
            "{1}, vector<{2}x{3}>\n",
            v, bpType, dot ? 32 : 16, bpElt);
      if (inPlace)
        bs << "            %k2 = arith.muli %k, %c2 : index\n"
              "            %ka = arith.addi %kb, %k2 : index\n";
      for (int r = 0; r < rows; ++r) {
        // %e: row r's element at step k (with `dot`, its k pair as an i32).
        if (inPlace)
          bs << formatv(
              R"(            %x{0} = vector.load %A[%ar{0}, %ka] : {1}, vector<2xbf16>
            %xd{0} = vector.bitcast %x{0} : vector<2xbf16> to vector<1xi32>
            %e{0} = vector.extract %xd{0}[0] : i32 from vector<1xi32>
)",
              r, in);
        else
          bs << formatv(
              "            %e{0} = memref.load %Ap[%p, %c{0}, %k] : {1}\n", r,
              apType);
        if (dot)
          bs << formatv(
              R"(            %d{0} = vector.broadcast %e{0} : i32 to vector<16xi32>
            %s{0} = vector.bitcast %d{0} : vector<16xi32> to vector<32xbf16>
)",
              r);
        else
          bs << formatv("            %s{0} = vector.broadcast %e{0} : f32 to "
                        "vector<16xf32>\n",
                        r);
        for (int v = 0; v < vectors; ++v)
          bs << formatv(
              dot ? "            %n{0} = x86vector.avx512.dot %a{0}, "
                    "%s{1}, %b{2} : vector<32xbf16> -> vector<16xf32>\n"
                  : "            %n{0} = vector.fma %s{1}, %b{2}, %a{0} "
                    ": vector<16xf32>\n",
              r * vectors + v, r, v);
      }
      bs << formatv("            scf.yield {0} : {1}\n          }\n", yields,
                    types);
    };
    if (dot) {
      // A's rows for the in-place loop: past the task's block, the last row
      // of A (read, never stored).
      for (int r = 0; r < rows; ++r)
        bs << formatv(
            "          %ar{0} = arith.minui %r{0}, %lastRow : index\n", r);
      std::string accs;
      for (int q = 0; q < rows * vectors; ++q)
        accs += formatv("{0}%accI#{1}", q ? ", " : "", q).str();
      bs << formatv("          %acc:{0} = scf.if %inPlaceA -> ({1}) {{\n",
                    rows * vectors, types);
      emitKLoop("%accI", /*inPlace=*/true);
      bs << formatv("          scf.yield {0} : {1}\n          } else {{\n",
                    accs, types);
      emitKLoop("%accI", /*inPlace=*/false);
      bs << formatv("          scf.yield {0} : {1}\n          }\n", accs,
                    types);
    } else {
      emitKLoop("%acc", /*inPlace=*/false);
    }
    auto emitStores = [&](bool rounded) {
      for (int r = 0; r < rows; ++r) {
        bs << formatv("          scf.if %in{0} {{\n", r);
        for (int v = 0; v < vectors; ++v) {
          int q = r * vectors + v;
          if (rounded)
            bs << formatv("            %rb{0} = arith.truncf %acc#{0} : "
                          "vector<16xf32> to vector<16xbf16>\n"
                          "            vector.maskedstore %D[%r{1}, %jo{2}], "
                          "%m{2}, %rb{0} : {3}, vector<16xi1>, "
                          "vector<16xbf16>\n",
                          q, r, v, dType);
          else
            bs << formatv("            vector.maskedstore %C[%r{0}, %jo{1}], "
                          "%m{1}, %acc#{2} : {3}, vector<16xi1>, "
                          "vector<16xf32>\n",
                          r, v, q, out);
        }
        bs << "          }\n";
      }
    };
    if (dot) {
      bs << "          scf.if %epi {\n";
      emitStores(/*rounded=*/true);
      bs << "          } else {\n";
      emitStores(/*rounded=*/false);
      bs << "          }\n";
    } else {
      emitStores(/*rounded=*/false);
    }
    return block;
  };
  os << formatv(R"(        }
      }
    }
  }
  memref.dealloc %Ap : {1}
  memref.dealloc %Bp : {0}
  {2}
  }
  return
}
)",
                bpType, apType, parallel ? "scf.reduce" : "");
  // The register blocks' functions (the same in the serial and the
  // parallel kernel).
  SmallVector<int> blockSizes = {rows};
  blockSizes.append(geometry.smallBlocks.rbegin(), geometry.smallBlocks.rend());
  for (int blockRows : blockSizes) {
    os << formatv("func.func private @{0}({1}) attributes "
                  "{{passthrough = [\"noinline\"]} {{\n",
                  mpt::cpu::registerBlockName(name, blockRows),
                  joinParams([](StringRef n, StringRef t) {
                    return (n + ": " + t).str();
                  }));
    for (int r = 0; r <= rows; ++r)
      os << formatv("  %c{0} = arith.constant {0} : index\n", r);
    for (int v = 0; v < vectors; ++v)
      os << formatv("  %c{0}x16 = arith.constant {1} : index\n"
                    "  %c{0}x32 = arith.constant {2} : index\n"
                    "  %jo{0} = arith.addi %j0, %c{0}x16 : index\n"
                    "  %rem{0} = arith.subi %N, %jo{0} : index\n"
                    "  %m{0} = vector.create_mask %rem{0} : vector<16xi1>\n",
                    v, v * 16, v * 32);
    os << "  %z16 = arith.constant dense<0.0> : vector<16xf32>\n"
       << emitBlock(blockRows) << "  return\n}\n";
  }
  return text;
}
