//===- MatmulToWgmma.cpp - matmuls to TMA + wgmma kernels (sm_90a) --------===//
//
// Upstream MLIR has the Hopper building blocks (nvgpu TMA, mbarrier and
// warpgroup ops) but no linalg -> wgmma lowering, so the kernel is written
// out in MLIR, TensorCore/wgmma-16bit.mlir (and wgmma-fp8.mlir, with
// fp8-transpose.mlir), parameterized by the shape and the configuration
// (TensorCoreConfig.h) and moved into the outlined entry:
//
//   grid (N/128, M/128), one warpgroup (128 threads) per 128x128 C tile
//   host:   one TMA descriptor for A (box 128x64) and one for B (box 64x64,
//           two boxes per 64x128 B tile: swizzle_128b needs 128-byte rows)
//   kernel: `stages` shared-memory stages of A 128x64 + B 64x128 (32 KiB,
//           1024-byte aligned inside the dynamic shared memory)
//           with one mbarrier each; thread 0 issues the TMA loads of the
//           first `stages` K tiles, then every K step waits on its stage's
//           mbarrier, runs wgmma.mma_async m64n128k16 over the stage (two
//           m64 halves x four k16 steps), waits for it, and refills the
//           stage with the K tile `stages` ahead.
//   epilogue: the f32 accumulator fragments are stored straight to C.
//
// FP8 (f8E4M3FN / f8E5M2 in any pairing) takes a kernel of its own: wgmma
// reads 8-bit operands only K-major (it transposes 16-bit ones only), so A
// is read as [m][k] and B as [n][k] (linalg.matmul with B transposed; an
// operand stored the other way is copied K-major by a transpose kernel
// into a device buffer first, copyKMajor); the k-tile is
// 128 deep (128-byte rows for the 128-byte swizzle), TMA moves the tiles as
// ui8 (upstream's descriptor creation has no FP8 data type), and each k-tile
// runs 2 m64 halves x 4 k32 steps of wgmma.mma_async m64n128k32, each step
// one nvgpu.warpgroup.mma on descriptors of shared-memory views at the
// step's byte offset (upstream's descriptor iteration assumes 16-bit
// layouts), with one wait for all eight at the end of the k-tile.
//
//===----------------------------------------------------------------------===//
#include "TensorCoreCommon.h"
#include "TensorCoreConfig.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mpt::tensorcore;

static std::string ptxType(Type t) {
  return isa<Float8E4M3FNType>(t) ? "e4m3" : "e5m2";
}

static const KernelConfig &wgmmaConfig(const MatmulShape &s) {
  return s.isFp8() ? kWgmmaFp8Config : kWgmma16BitConfig;
}

std::string mpt::tensorcore::wgmmaConfigDescription(const MatmulShape &s) {
  const KernelConfig &c = wgmmaConfig(s);
  if (s.isFp8()) {
    // wgmma reads FP8 operands only K-major: the others get a K-major copy.
    StringRef copies = s.layout == Layout::NN   ? ", B copied K-major first"
                       : s.layout == Layout::TN ? ", A and B copied K-major "
                                                  "first"
                                                : "";
    return llvm::formatv("TMA + wgmma.mma_async m64n128k32 {0} x {1}, block "
                         "tile {2}x{3}x{4}, {5} mbarrier stages, {6} "
                         "threads{7}",
                         ptxType(s.elementType), ptxType(s.elementTypeB),
                         c.tileM, c.tileN, c.tileK, c.stages, c.threads(),
                         copies);
  }
  return llvm::formatv("TMA + wgmma.mma_async m64n128k16, block tile "
                       "{0}x{1}x{2}, {3} mbarrier stages, {4} threads",
                       c.tileM, c.tileN, c.tileK, c.stages, c.threads());
}

std::string mpt::tensorcore::wgmmaUnsupportedReason(const MatmulShape &s) {
  const KernelConfig &c = wgmmaConfig(s);
  if (s.batch)
    return "batch_matmul is not lowered to wgmma yet (sm_80 lowers it)";
  if (s.isFp8()) {
    // Any layout: an operand that is not K-major is copied K-major first.
    if (s.m % c.tileM || s.n % c.tileN || s.k % c.tileK)
      return llvm::formatv("{0}x{1}x{2} is not a multiple of the "
                           "{3}x{4}x{5} FP8 wgmma tile",
                           s.m, s.n, s.k, c.tileM, c.tileN, c.tileK);
    return "";
  }
  if (s.layout != Layout::NN)
    return "transposed operands are not lowered to wgmma yet (sm_90a "
           "handles A[m][k] x B[k][n])";
  if (s.m % c.tileM || s.n % c.tileN || s.k % c.tileK)
    return llvm::formatv("{0}x{1}x{2} is not a multiple of the {3}x{4}x{5} "
                         "wgmma tile",
                         s.m, s.n, s.k, c.tileM, c.tileN, c.tileK);
  return "";
}

/// FP8: the kernel reads `operand` (an argument of its body, K-major) from
/// a copy that @`xposeName` makes of the entry's MN-major operand: the
/// argument takes the MN-major type, and the copy is made into a
/// gpu.alloc'd buffer at the start of `body` and freed before its return
/// (gpu-to-llvm lowers gpu.alloc / gpu.dealloc only in their async form:
/// each gets a stream of its own, waited for at once), as Transformer
/// Engine keeps a transposed FP8 copy for the GEMMs that need one.
/// `after`: the call of the previous copy (null for the first), updated.
static void copyKMajor(func::FuncOp body, unsigned operand,
                       StringRef xposeName, Operation *&after) {
  MLIRContext *ctx = body.getContext();
  Location loc = body.getLoc();
  Block &block = body.getBody().front();
  BlockArgument arg = block.getArgument(operand);
  auto kMajor = cast<MemRefType>(arg.getType());
  auto mnMajor =
      MemRefType::get({kMajor.getDimSize(1), kMajor.getDimSize(0)},
                      kMajor.getElementType());
  arg.setType(mnMajor);
  auto token = gpu::AsyncTokenType::get(ctx);
  // After the copies already made (A's before B's).
  OpBuilder b(ctx);
  if (after)
    b.setInsertionPointAfter(after);
  else
    b.setInsertionPointToStart(&block);
  Value s0 = gpu::WaitOp::create(b, loc, token, ValueRange{}).getAsyncToken();
  auto alloc = gpu::AllocOp::create(b, loc, kMajor, token, ValueRange{s0},
                                    ValueRange{}, ValueRange{},
                                    /*hostShared=*/false);
  gpu::WaitOp::create(b, loc, Type(), ValueRange{alloc.getAsyncToken()});
  auto call = func::CallOp::create(b, loc, xposeName, TypeRange{},
                                   ValueRange{arg, alloc.getMemref()});
  arg.replaceAllUsesExcept(alloc.getMemref(), call);
  after = call;
  OpBuilder fb(block.getTerminator());
  Value f0 = gpu::WaitOp::create(fb, loc, token, ValueRange{}).getAsyncToken();
  Value f1 = gpu::DeallocOp::create(fb, loc, token, ValueRange{f0},
                                    alloc.getMemref())
                 .getAsyncToken();
  gpu::WaitOp::create(fb, loc, Type(), ValueRange{f1});
  body.setFunctionType(
      FunctionType::get(ctx, block.getArgumentTypes(), TypeRange{}));
}

LogicalResult mpt::tensorcore::lowerWithWgmma(ModuleOp module,
                                              func::FuncOp entry,
                                              const MatmulShape &shape,
                                              const KernelConfig &config) {
  MLIRContext *ctx = module.getContext();
  Location loc = entry.getLoc();
  OwningOpRef<ModuleOp> parsed = parseSchedule(
      shape.isFp8() ? ScheduleFile::WgmmaFp8 : ScheduleFile::Wgmma16Bit,
      getWgmmaParams(config, shape), ctx, loc);
  if (!parsed)
    return failure();
  auto body = parsed->lookupSymbol<func::FuncOp>("body");
  if (!body)
    return emitError(loc, "internal error: the wgmma kernel has no @body");
  // FP8: an operand stored MN-major (A[k][m], B[k][n]) is copied K-major
  // first by a transpose kernel (fp8-transpose.mlir), a private function
  // named after the entry (`<entry>_transpose_a|b`, made unique).
  bool copyA = shape.isFp8() && shape.layout == Layout::TN;
  bool copyB = shape.isFp8() && shape.layout != Layout::NT;
  Operation *afterCopies = nullptr;
  for (auto [operand, which, copy] :
       {std::tuple{0u, "a", copyA}, std::tuple{1u, "b", copyB}}) {
    if (!copy)
      continue;
    auto kMajor = cast<MemRefType>(body.getArgumentTypes()[operand]);
    Type elementType = kMajor.getElementType();
    OwningOpRef<ModuleOp> xposeModule = parseSchedule(
        ScheduleFile::Fp8Transpose,
        getFp8TransposeParams(kMajor.getDimSize(1), kMajor.getDimSize(0),
                              elementType),
        ctx, loc);
    if (!xposeModule)
      return failure();
    auto xpose = xposeModule->lookupSymbol<func::FuncOp>("xpose");
    if (!xpose)
      return emitError(loc, "internal error: fp8-transpose.mlir has no "
                            "@xpose");
    std::string name = (entry.getSymName() + "_transpose_" + which).str();
    for (int i = 0; module.lookupSymbol(name); ++i)
      name = (entry.getSymName() + "_transpose_" + which + "_" + Twine(i))
                 .str();
    copyKMajor(body, operand, ("xpose_" + Twine(which)).str(), afterCopies);
    xpose.walk([&](Operation *op) { op->setLoc(loc); });
    xpose->remove();
    xpose.setSymName(name);
    OpBuilder(entry).insert(xpose);
    body.walk([&](func::CallOp call) {
      if (call.getCallee() == ("xpose_" + Twine(which)).str())
        call.setCallee(name);
    });
  }
  if (body.getFunctionType() != entry.getFunctionType())
    return emitError(loc, "internal error: wgmma kernel signature mismatch");
  // Give every op the matmul's location so diagnostics and debug info point
  // at the source.
  body.walk([&](Operation *op) { op->setLoc(loc); });
  entry.getBody().getBlocks().clear();
  entry.getBody().takeBody(body.getBody());
  return success();
}
