//===- MatmulToTensorCore.cpp - matmuls to Tensor Core kernels ------------===//
//
// Each eligible matmul is outlined into its own function and turned into a
// gpu.launch there (docs/TensorCore.md):
//  * sm_80: an embedded transform script tiles it to blocks (batch_matmul:
//    the batch to blockIdx.z, then rank-reduced to a matmul), K stages and
//    warps, promotes the A/B tiles to shared memory, maps the copies to
//    threads, vectorizes, unrolls the warp tile to m16n8k16 pieces and hoists
//    the accumulators out of the K loop; then C++ steps make the shared
//    buffers typed and loop-invariant, convert the vector ops to
//    nvgpu.ldmatrix / nvgpu.mma.sync (bf16: nvvm.mma.sync), swizzle the
//    shared tiles, multi-buffer them and software-pipeline the cp.async
//    copies (a second script), and make them aligned shared globals.
//  * sm_90a: see MatmulToWgmma.cpp.
//
//===----------------------------------------------------------------------===//
#include "TensorCoreCommon.h"
#include "TensorCoreConfig.h"
#include "mpt/Analysis/ReportUtils.h"
#include "mpt/Conversion/Passes.h"

#include "mlir/Conversion/VectorToGPU/VectorToGPU.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/NVGPU/Transforms/Transforms.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/FormatVariadic.h"

namespace mpt {
#define GEN_PASS_DEF_MATMULTOTENSORCORE
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt::tensorcore;

static constexpr StringLiteral kEntryAttr = "mpt.tensorcore_entry";

static constexpr StringLiteral kKLoopAttr = "mpt.k_loop";

//===----------------------------------------------------------------------===//
// Classification
//===----------------------------------------------------------------------===//

std::optional<MatmulShape>
mpt::tensorcore::analyzeMatmul(linalg::LinalgOp op, std::string &whyNot) {
  auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation());
  auto batchMatmul = dyn_cast<linalg::BatchMatmulOp>(op.getOperation());
  if (!matmul && !batchMatmul) {
    whyNot = llvm::formatv("'{0}' is not lowered to Tensor Cores yet (only "
                           "linalg.matmul, its transposed forms and "
                           "linalg.batch_matmul are)",
                           op->getName().getStringRef());
    return std::nullopt;
  }
  if (!op.hasPureBufferSemantics()) {
    whyNot = "operates on tensors; bufferize first (mpt-gpu-codegen does)";
    return std::nullopt;
  }
  MatmulShape shape;
  if (batchMatmul) {
    if (!linalg::BatchMatmulOp::isDefaultIndexingMaps(
            batchMatmul.getIndexingMaps())) {
      whyNot = "batch_matmul with transposed operands is not lowered to "
               "Tensor Cores yet";
      return std::nullopt;
    }
    shape.layout = Layout::NN;
  } else if (linalg::MatmulOp::isDefaultIndexingMaps(matmul.getIndexingMaps()))
    shape.layout = Layout::NN;
  else if (linalg::MatmulTransposeAOp::classof(op))
    shape.layout = Layout::TN;
  else if (linalg::MatmulTransposeBOp::classof(op))
    shape.layout = Layout::NT;
  else {
    whyNot = "its indexing maps are not a (transposed) matmul";
    return std::nullopt;
  }
  auto aType = cast<MemRefType>(op.getDpsInputOperand(0)->get().getType());
  auto bType = cast<MemRefType>(op.getDpsInputOperand(1)->get().getType());
  auto cType = cast<MemRefType>(op.getDpsInitOperand(0)->get().getType());
  Type aElt = aType.getElementType(), bElt = bType.getElementType();
  bool sixteenBit = aElt == bElt && (aElt.isF16() || aElt.isBF16());
  bool fp8 = isWgmmaFp8(aElt) && isWgmmaFp8(bElt);
  if (!(sixteenBit || fp8) || !cType.getElementType().isF32()) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "element types " << aElt << " x " << bElt << " -> "
       << cType.getElementType()
       << " (Tensor Cores need f16 x f16 or bf16 x bf16 -> f32, or FP8 "
          "f8E4M3FN/f8E5M2 in any pairing -> f32 on sm_90a)";
    whyNot = s;
    return std::nullopt;
  }
  if (!aType.hasStaticShape() || !bType.hasStaticShape() ||
      !cType.hasStaticShape()) {
    whyNot = "dynamic shapes are not lowered to Tensor Cores";
    return std::nullopt;
  }
  for (MemRefType t : {aType, bType, cType}) {
    if (!t.getLayout().isIdentity() || t.getMemorySpace()) {
      whyNot = "operands must be contiguous row-major memrefs in the default "
               "memory space";
      return std::nullopt;
    }
  }
  int64_t lead = batchMatmul ? 1 : 0;
  if (batchMatmul)
    shape.batch = cType.getDimSize(0);
  shape.m = cType.getDimSize(lead);
  shape.n = cType.getDimSize(lead + 1);
  shape.k = shape.layout == Layout::TN ? aType.getDimSize(lead)
                                       : aType.getDimSize(lead + 1);
  shape.elementType = aElt;
  shape.elementTypeB = bElt;
  return shape;
}

bool mpt::tensorcore::isWgmmaFp8(Type t) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(t);
}

bool mpt::tensorcore::MatmulShape::isFp8() const { return isWgmmaFp8(elementType); }

std::string mpt::tensorcore::describe(const MatmulShape &s) {
  std::string str;
  llvm::raw_string_ostream os(str);
  if (s.batch)
    os << s.batch << " x ";
  os << s.m << "x" << s.n << "x" << s.k << " " << s.elementType;
  if (s.elementTypeB && s.elementTypeB != s.elementType)
    os << " x " << s.elementTypeB;
  if (s.layout == Layout::TN)
    os << " (A transposed)";
  if (s.layout == Layout::NT)
    os << " (B transposed)";
  return str;
}

//===----------------------------------------------------------------------===//
// Outlining
//===----------------------------------------------------------------------===//

func::FuncOp mpt::tensorcore::outlineMatmul(linalg::LinalgOp op,
                                            SymbolTable &symbols,
                                            StringRef baseName,
                                            bool retypeBF16AsF16) {
  Location loc = op.getLoc();
  // At the end of the module: outlined functions appear in program order.
  auto module = op->getParentOfType<ModuleOp>();
  auto b = OpBuilder::atBlockEnd(module.getBody());
  SmallVector<Value> operands(op->getOperands());
  auto fnType = b.getFunctionType(TypeRange(ValueRange(operands)), {});
  auto fn = func::FuncOp::create(b, loc, baseName, fnType);
  fn.setPrivate();
  symbols.insert(fn); // renames on clash
  Block *entry = fn.addEntryBlock();
  OpBuilder fb = OpBuilder::atBlockBegin(entry);
  SmallVector<Value> args(entry->getArguments());
  if (retypeBF16AsF16) {
    // The kernel moves bf16 data as opaque 16-bit payloads (cp.async,
    // ldmatrix) and only the mma reads their values; typing them f16 lets
    // the upstream vector-to-nvgpu conversion (f16-only) build the data
    // movement, and the mma is emitted as bf16 afterwards. The casts vanish
    // in the LLVM lowering (both memrefs have the same descriptor).
    for (int i = 0; i < 2; ++i) {
      auto t = cast<MemRefType>(args[i].getType());
      auto f16 = MemRefType::get(t.getShape(), fb.getF16Type());
      args[i] = UnrealizedConversionCastOp::create(fb, loc, f16, args[i])
                    .getResult(0);
    }
  }
  // A fresh op (not a clone) when retyping: its body is built for the
  // retyped inputs.
  SmallVector<Value> ins = {args[0], args[1]}, outs = {args[2]};
  if (!retypeBF16AsF16) {
    IRMapping mapping;
    mapping.map(ValueRange(operands), ValueRange(args));
    fb.clone(*op, mapping);
  } else if (isa<linalg::BatchMatmulOp>(op.getOperation()))
    linalg::BatchMatmulOp::create(fb, loc, ins, outs);
  else if (linalg::MatmulTransposeAOp::classof(op))
    linalg::MatmulTransposeAOp::create(fb, loc, ins, outs);
  else if (linalg::MatmulTransposeBOp::classof(op))
    linalg::MatmulTransposeBOp::create(fb, loc, ins, outs);
  else
    linalg::MatmulOp::create(fb, loc, ins, outs);
  func::ReturnOp::create(fb, loc);

  OpBuilder cb(op);
  func::CallOp::create(cb, loc, fn, operands);
  op->erase();
  return fn;
}

//===----------------------------------------------------------------------===//
// Transform scripts
//===----------------------------------------------------------------------===//

LogicalResult mpt::tensorcore::applyNamedSequence(ModuleOp payload,
                                                  ModuleOp schedule,
                                                  StringRef name,
                                                  Location loc) {
  auto sequence = dyn_cast_or_null<transform::TransformOpInterface>(
      SymbolTable::lookupSymbolIn(schedule, name));
  if (!sequence)
    return emitError(loc) << "internal error: no transform sequence @" << name;
  transform::TransformOptions options;
  return transform::applyTransformNamedSequence(payload, sequence, schedule,
                                                options);
}

namespace {

//===----------------------------------------------------------------------===//
// C++ steps between the schedule's sequences
//===----------------------------------------------------------------------===//

static void canonicalizeAndCSE(Operation *root) {
  MLIRContext *ctx = root->getContext();
  RewritePatternSet patterns(ctx);
  for (Dialect *dialect : ctx->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : ctx->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, ctx);
  (void)applyPatternsGreedily(root, std::move(patterns));
  IRRewriter rewriter(ctx);
  DominanceInfo dominance;
  eliminateCommonSubExpressions(rewriter, dominance, root);
}

static bool isWorkgroup(MemRefType t) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(t.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// Promotion allocates i8 buffers viewed as typed tiles inside the K loop;
/// multi-buffering needs typed allocations before the loop. Without a K
/// loop (K is one k-tile) the typed tiles replace the views in place.
static LogicalResult hoistSharedTiles(gpu::LaunchOp launch, scf::ForOp kLoop) {
  SmallVector<memref::ViewOp> views;
  launch.walk([&](memref::ViewOp view) {
    auto alloc = view.getSource().getDefiningOp<memref::AllocOp>();
    if (alloc && isWorkgroup(alloc.getType()))
      views.push_back(view);
  });
  if (views.size() != 2)
    return launch.emitError("internal error: expected 2 shared tiles, found ")
           << views.size();
  for (memref::ViewOp view : views) {
    OpBuilder b(kLoop ? kLoop.getOperation() : view.getOperation());
    auto tileType = cast<MemRefType>(view.getType());
    if (!tileType.getLayout().isIdentity() || !view.getSizes().empty() ||
        !matchPattern(view.getByteShift(), m_Zero()))
      return view.emitError("internal error: unexpected shared tile view");
    auto source = view.getSource().getDefiningOp<memref::AllocOp>();
    auto tile = memref::AllocOp::create(b, view.getLoc(), tileType);
    view.replaceAllUsesWith(tile.getResult());
    view.erase();
    for (Operation *user : llvm::make_early_inc_range(source->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    if (!source->use_empty())
      return source.emitError("internal error: shared tile still used");
    source.erase();
  }
  return success();
}

/// The A and B copies of a k-tile come out as two cp.async groups, each
/// waited for and followed by a block barrier. One group per k-tile is what
/// the pipeliner counts with (its waits allow `stages - 1` groups in
/// flight): merge them, dropping the wait and barrier between (the two
/// copies write different tiles and only read global memory).
static void mergeCopyGroups(Block &body) {
  SmallVector<nvgpu::DeviceAsyncCreateGroupOp> groups(
      body.getOps<nvgpu::DeviceAsyncCreateGroupOp>());
  if (groups.size() != 2)
    return;
  nvgpu::DeviceAsyncCreateGroupOp first = groups[0], second = groups[1];
  auto firstWait =
      dyn_cast_or_null<nvgpu::DeviceAsyncWaitOp>(first->getNextNode());
  Operation *barrier = firstWait ? firstWait->getNextNode() : nullptr;
  if (!firstWait || firstWait.getAsyncDependencies() != first.getResult() ||
      !first->hasOneUse() || !isa_and_nonnull<gpu::BarrierOp>(barrier))
    return;
  SmallVector<Value> tokens(first.getInputTokens());
  llvm::append_range(tokens, second.getInputTokens());
  OpBuilder b(second);
  auto merged = nvgpu::DeviceAsyncCreateGroupOp::create(
      b, second.getLoc(), second.getType(), tokens);
  second.replaceAllUsesWith(merged.getResult());
  second.erase();
  barrier->erase();
  firstWait.erase();
  first.erase();
}

/// The pipeliner reads memory spaces as integers: spell workgroup as 3.
static void useNumericWorkgroupSpace(Operation *root) {
  MLIRContext *ctx = root->getContext();
  AttrTypeReplacer replacer;
  replacer.addReplacement(
      [ctx](gpu::AddressSpaceAttr attr) -> std::optional<Attribute> {
        if (attr.getValue() != gpu::AddressSpace::Workgroup)
          return std::nullopt;
        return IntegerAttr::get(IntegerType::get(ctx, 64),
                                nvgpu::NVGPUDialect::kSharedMemoryAddressSpace);
      });
  replacer.recursivelyReplaceElementsIn(root, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
}

static bool isSharedSpace(MemRefType t) {
  return nvgpu::NVGPUDialect::hasSharedMemoryAddressSpace(t);
}

/// Shared tiles become 128-byte aligned shared-memory globals (static shared
/// memory of the outlined kernel, which takes the globals it uses along).
/// Not workgroup attributions: those lower with the element type's
/// alignment, and cp.async / ldmatrix need 16-byte aligned rows.
static void sharedAllocsToGlobals(ModuleOp module, SymbolTable &symbols,
                                  func::FuncOp entry) {
  SmallVector<memref::AllocOp> allocs;
  entry.walk([&](memref::AllocOp alloc) {
    if (isSharedSpace(alloc.getType()))
      allocs.push_back(alloc);
  });
  for (auto [index, alloc] : llvm::enumerate(allocs)) {
    OpBuilder b(entry);
    auto global = memref::GlobalOp::create(
        b, alloc.getLoc(),
        (entry.getSymName() + "_smem_" + Twine(index)).str(),
        b.getStringAttr("private"), alloc.getType(), Attribute(),
        /*constant=*/false, b.getI64IntegerAttr(128));
    symbols.insert(global); // renames on clash
    OpBuilder ab(alloc);
    auto get = memref::GetGlobalOp::create(ab, alloc.getLoc(), alloc.getType(),
                                           global.getSymName());
    alloc.replaceAllUsesWith(get.getResult());
    alloc.erase();
  }
}

} // namespace

/// bf16 operands: every nvgpu.mma.sync of the (f16-typed) kernel becomes an
/// nvvm.mma.sync m16n8k16 bf16 x bf16 -> f32 with i32-packed operands. Only
/// data movement may touch the retyped values: anything else is an error.
LogicalResult mpt::tensorcore::lowerMmaSyncAsBF16(Operation *kernelRoot) {
  auto isF16ish = [](Type t) {
    return getElementTypeOrSelf(t).isF16();
  };
  WalkResult check = kernelRoot->walk([&](Operation *op) {
    if (isa<nvgpu::DeviceAsyncCopyOp, nvgpu::LdMatrixOp, nvgpu::MmaSyncOp,
            memref::SubViewOp, memref::AllocOp, vector::ExtractOp,
            vector::InsertOp, vector::ToElementsOp, vector::FromElementsOp,
            vector::ExtractStridedSliceOp, UnrealizedConversionCastOp,
            ub::PoisonOp>(op))
      return WalkResult::advance();
    for (Type t : llvm::concat<const Type>(
             llvm::to_vector(op->getOperandTypes()),
             llvm::to_vector(op->getResultTypes())))
      if (isF16ish(t)) {
        op->emitError("internal error: bf16 kernel computes on its operands "
                      "outside mma.sync: ")
            << op->getName();
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (check.wasInterrupted())
    return failure();

  SmallVector<nvgpu::MmaSyncOp> mmas;
  kernelRoot->walk([&](nvgpu::MmaSyncOp op) { mmas.push_back(op); });
  for (nvgpu::MmaSyncOp mma : mmas) {
    OpBuilder b(mma);
    Location loc = mma.getLoc();
    auto aType = cast<VectorType>(mma.getMatrixA().getType());
    auto bType = cast<VectorType>(mma.getMatrixB().getType());
    auto cType = cast<VectorType>(mma.getMatrixC().getType());
    SmallVector<int64_t> shape = llvm::to_vector(llvm::map_range(
        mma.getMmaShape().getAsRange<IntegerAttr>(),
        [](IntegerAttr a) { return a.getInt(); }));
    if (shape != SmallVector<int64_t>{16, 8, 16} || aType.getRank() != 2 ||
        aType.getDimSize(1) != 2 || bType.getDimSize(1) != 2 ||
        !cType.getElementType().isF32())
      return mma.emitError("internal error: unexpected mma.sync for bf16");
    auto packRows = [&](Value v, int64_t rows) {
      SmallVector<Value> words;
      for (int64_t i = 0; i < rows; ++i) {
        Value pair = vector::ExtractOp::create(b, loc, v, i);
        Value word = vector::BitCastOp::create(
            b, loc, VectorType::get({1}, b.getI32Type()), pair);
        words.push_back(vector::ExtractOp::create(b, loc, word, 0));
      }
      return words;
    };
    SmallVector<Value> a = packRows(mma.getMatrixA(), aType.getDimSize(0));
    SmallVector<Value> bw = packRows(mma.getMatrixB(), bType.getDimSize(0));
    SmallVector<Value> c;
    for (int64_t i = 0; i < cType.getDimSize(0); ++i)
      for (int64_t j = 0; j < cType.getDimSize(1); ++j)
        c.push_back(vector::ExtractOp::create(
            b, loc, mma.getMatrixC(), ArrayRef<int64_t>{i, j}));
    Type f32 = b.getF32Type();
    auto resultType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(c.size(), f32));
    auto nvvmMma = NVVM::MmaOp::create(
        b, loc, resultType, a, bw, c, shape, std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                      NVVM::MMATypes::bf16},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> d;
    for (int64_t i = 0; i < static_cast<int64_t>(c.size()); ++i)
      d.push_back(LLVM::ExtractValueOp::create(b, loc, nvvmMma.getResult(),
                                               ArrayRef<int64_t>{i}));
    Value result = vector::FromElementsOp::create(b, loc, cType, d);
    mma.replaceAllUsesWith(result);
    mma.erase();
  }
  return success();
}

namespace {

static LogicalResult lowerWithMmaSync(ModuleOp module, SymbolTable &symbols,
                                      func::FuncOp entry,
                                      const MatmulShape &shape,
                                      const KernelConfig &cfg, bool bf16) {
  Location loc = entry.getLoc();
  bool batched = shape.batch > 0;
  // More stages than k-tiles would only prefetch tiles that do not exist.
  int64_t stages = std::min(cfg.stages, shape.k / cfg.tileK);
  // The transform sequences of TensorCore/sm80-mma-sync.mlir, applied in
  // turn with the C++ steps between them.
  OwningOpRef<ModuleOp> schedule =
      parseSchedule(ScheduleFile::Sm80MmaSync,
                    getMmaSyncParams(cfg, shape.layout, stages),
                    module.getContext(), loc);
  if (!schedule)
    return failure();
  if (!batched &&
      failed(applyNamedSequence(module, *schedule, "sm80_tile_blocks", loc)))
    return failure();
  if (batched) {
    if (failed(applyNamedSequence(module, *schedule, "sm80_tile_batch_blocks",
                                  loc)))
      return failure();
    // The 1 x BM x BN block tile becomes a linalg.matmul on rank-reduced
    // views (upstream's populateContractionOpRankReducingPatterns crashed
    // on these memref ops with MLIR 22.1.8).
    SmallVector<linalg::BatchMatmulOp> tiles;
    entry.walk([&](linalg::BatchMatmulOp op) { tiles.push_back(op); });
    for (linalg::BatchMatmulOp tile : tiles) {
      OpBuilder b(tile);
      SmallVector<Value> views;
      for (Value operand : tile->getOperands()) {
        auto type = cast<MemRefType>(operand.getType());
        if (type.getDimSize(0) != 1)
          return tile.emitError("internal error: batch tile is not 1");
        views.push_back(memref::createCanonicalRankReducingSubViewOp(
            b, tile.getLoc(), operand, type.getShape().drop_front()));
      }
      SmallVector<Value> ins = {views[0], views[1]}, outs = {views[2]};
      linalg::MatmulOp::create(b, tile.getLoc(), ins, outs);
      tile.erase();
    }
    bool reduced = false;
    entry.walk([&](linalg::MatmulOp) { reduced = true; });
    if (!reduced)
      return emitError(loc, "internal error: the batch tile did not become a "
                            "linalg.matmul");
  }
  if (failed(applyNamedSequence(module, *schedule, "sm80_matmul", loc)))
    return failure();

  gpu::LaunchOp launch;
  entry.walk([&](gpu::LaunchOp op) { launch = op; });
  scf::ForOp kLoop;
  entry.walk([&](scf::ForOp op) {
    if (op->hasAttr(kKLoopAttr))
      kLoop = op;
  });
  if (!launch)
    return emitError(loc, "internal error: no gpu.launch after tiling");
  // No K loop when K is a single k-tile.
  if (failed(hoistSharedTiles(launch, kLoop)))
    return failure();
  if (kLoop)
    mergeCopyGroups(*kLoop.getBody());

  // vector.contract / transfer_read -> nvgpu.mma.sync / nvgpu.ldmatrix.
  {
    RewritePatternSet patterns(module.getContext());
    populatePrepareVectorToMMAPatterns(patterns, /*useNvGpu=*/true);
    if (failed(applyPatternsGreedily(entry, std::move(patterns))))
      return emitError(loc, "internal error: mma preparation failed");
    IRRewriter rewriter(module.getContext());
    if (failed(convertVectorToNVVMCompatibleMMASync(rewriter, entry)))
      return emitError(loc, "internal error: vector to mma.sync failed");
    // Canonicalize and CSE: erases what the conversion left dead and merges
    // the ldmatrix loads of fragments shared by several mma.sync.
    canonicalizeAndCSE(entry);
  }
  if (bf16 && failed(lowerMmaSyncAsBF16(launch)))
    return failure();
  useNumericWorkgroupSpace(launch);

  // The conversion rebuilt the K loop: find it again (the one whose body
  // issues the cp.async copies).
  bool hadKLoop = static_cast<bool>(kLoop);
  kLoop = {};
  launch.walk([&](scf::ForOp op) {
    if (!op->getParentOfType<scf::ForOp>() &&
        !op.getOps<nvgpu::DeviceAsyncCopyOp>().empty())
      kLoop = op;
  });
  if (hadKLoop && !kLoop)
    return emitError(loc, "internal error: K loop lost");
  if (kLoop)
    kLoop->setAttr(kKLoopAttr, UnitAttr::get(module.getContext()));
  // XOR-swizzle the shared tiles' columns so that the cp.async writes and
  // the ldmatrix reads of a warp hit distinct banks.
  {
    SmallVector<memref::AllocOp> tiles;
    entry.walk([&](memref::AllocOp alloc) { tiles.push_back(alloc); });
    for (memref::AllocOp tile : tiles)
      if (failed(nvgpu::optimizeSharedMemoryReadsAndWrites(launch,
                                                           tile.getResult())))
        emitRemark(loc) << "shared tile " << tile.getType()
                        << " not swizzled: its accesses keep bank conflicts";
  }
  if (kLoop && stages > 1 &&
      failed(applyNamedSequence(module, *schedule, "sm80_pipeline", loc)))
    return failure();
  sharedAllocsToGlobals(module, symbols, entry);
  entry.walk([](Operation *op) { op->removeAttr(kKLoopAttr); });
  return success();
}

struct MatmulToTensorCorePass
    : mpt::impl::MatmulToTensorCoreBase<MatmulToTensorCorePass> {
  using Base::Base;

  LogicalResult validateOptions(ModuleOp module) {
    Location loc = module.getLoc();
    if (chip != "sm_80" && chip != "sm_90a")
      return emitError(loc) << "mpt-matmul-to-tensorcore: chip must be sm_80 "
                               "or sm_90a, got '"
                            << chip << "'";
    if (general != "gpu" && general != "host")
      return emitError(loc) << "mpt-matmul-to-tensorcore: general must be gpu "
                               "or host, got '"
                            << general << "'";
    if (chip == "sm_90a")
      return success();
    auto bad = [&](const Twine &msg) {
      return emitError(loc) << "mpt-matmul-to-tensorcore: " << msg;
    };
    if (warpM <= 0 || warpN <= 0 || warpM % 16 || warpN % 8)
      return bad("warp-m must be a positive multiple of 16 and warp-n of 8");
    if (tileM <= 0 || tileN <= 0 || tileM % warpM || tileN % warpN)
      return bad("tile-m/tile-n must be positive multiples of warp-m/warp-n");
    if (tileK <= 0 || tileK % 16)
      return bad("tile-k must be a positive multiple of 16");
    if (stages < 1 || stages > 8)
      return bad("stages must be between 1 and 8");
    KernelConfig cfg{tileM, tileN, tileK, warpM, warpN, stages};
    if (cfg.threads() > 1024)
      return bad("tile-m/warp-m x tile-n/warp-n warps exceed 1024 threads");
    int64_t smem = stages * (tileM * tileK + tileK * tileN) * 2;
    if (smem > 48 * 1024)
      return bad(llvm::formatv("{0} stages of {1}x{2} and {2}x{3} tiles need "
                               "{4} bytes of shared memory (> 48 KiB)",
                               stages, tileM, tileK, tileN, smem));
    for (Layout layout : {Layout::NN, Layout::TN, Layout::NT}) {
      auto [a, b] = sharedTileShapes(cfg, layout);
      if (!copyDistribution(a, cfg.threads()) ||
          !copyDistribution(b, cfg.threads()))
        return bad("the shared tiles cannot be split into 16-byte copies "
                   "over the block's threads; use larger tiles");
    }
    return success();
  }

  /// Whether the general path can run `op` as a SIMT GPU kernel: a matmul
  /// or batch_matmul on statically shaped memrefs.
  static bool canRunSimt(linalg::LinalgOp op) {
    if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()) ||
        !op.hasPureBufferSemantics())
      return false;
    return llvm::all_of(op->getOperandTypes(), [](Type t) {
      auto memref = dyn_cast<MemRefType>(t);
      return memref && memref.hasStaticShape();
    });
  }

  /// One line of the report.
  struct Entry {
    std::string location, op, description, function, detail;
    bool lowered = false;
  };

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(validateOptions(module)))
      return signalPassFailure();
    FailureOr<mpt::PassReport> passReport = mpt::openPassReport(
        module.getLoc(), "mpt-matmul-to-tensorcore", report, reportFormat);
    if (failed(passReport))
      return signalPassFailure();

    SmallVector<linalg::LinalgOp> matmuls;
    module.walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp,
              linalg::BatchReduceMatmulOp>(op.getOperation()))
        matmuls.push_back(op);
    });

    SymbolTable symbols(module);
    // sm_80's configuration comes from the options; chooseKernelConfig
    // (TensorCoreConfig.h) gives each matmul its own.
    const KernelConfig sm80{tileM, tileN, tileK, warpM, warpN, stages};
    std::vector<Entry> entries;
    for (linalg::LinalgOp op : matmuls) {
      Entry entry{mpt::formatLocation(op.getLoc()),
                  op->getName().getStringRef().str()};
      if (chip == "sm_80" && op.getNumDpsInputs() == 2 &&
          llvm::all_of(op.getDpsInputs(), [](Value v) {
            return isWgmmaFp8(getElementTypeOrSelf(v.getType()));
          })) {
        // Neither path can run it usefully: sm_80's mma.sync has no FP8
        // operands (m16n8k32 e4m3/e5m2 needs sm_89), and a SIMT kernel
        // would be slower than the bf16 Tensor Core step FP8 is meant to
        // beat (docs/TensorCore.md).
        std::string types;
        llvm::raw_string_ostream os(types);
        os << getElementTypeOrSelf(op.getDpsInputs()[0].getType()) << " x "
           << getElementTypeOrSelf(op.getDpsInputs()[1].getType());
        op->emitError("FP8 matmul (")
            << types
            << ") cannot use sm_80 Tensor Cores: mma.sync takes e4m3/e5m2 "
               "operands from sm_89 on; use chip=sm_90a (wgmma) or "
               "autocast with dtype=bf16";
        return signalPassFailure();
      }
      std::string whyNot;
      std::optional<MatmulShape> shape = analyzeMatmul(op, whyNot);
      KernelConfig cfg = sm80;
      if (shape) {
        entry.description = describe(*shape);
        cfg = chooseKernelConfig(chip, *shape, sm80);
        if (chip == "sm_80") {
          if (shape->m % cfg.tileM || shape->n % cfg.tileN ||
              shape->k % cfg.tileK)
            whyNot = llvm::formatv(
                "{0}x{1}x{2} is not a multiple of the {3}x{4}x{5} tile",
                shape->m, shape->n, shape->k, cfg.tileM, cfg.tileN,
                cfg.tileK);
        } else {
          whyNot = wgmmaUnsupportedReason(*shape);
        }
      }
      auto caller = op->getParentOfType<func::FuncOp>();
      if (whyNot.empty() && !caller)
        whyNot = "not inside a func.func";
      if (!whyNot.empty()) {
        entry.detail = whyNot;
        if (general == "gpu" && canRunSimt(op) && caller) {
          // outlineMatmul erases `op`: ask what it is first.
          bool batched = isa<linalg::BatchMatmulOp>(op.getOperation());
          func::FuncOp simt =
              outlineMatmul(op, symbols, (caller.getSymName() + "_simt").str(),
                            /*retypeBF16AsF16=*/false);
          simt->setAttr(kEntryAttr, UnitAttr::get(&getContext()));
          OwningOpRef<ModuleOp> schedule = parseSchedule(
              ScheduleFile::Simt, {}, &getContext(), simt.getLoc());
          if (!schedule ||
              failed(applyNamedSequence(
                  module, *schedule,
                  batched ? "simt_batch_matmul" : "simt_matmul",
                  simt.getLoc())))
            return signalPassFailure();
          simt->removeAttr(kEntryAttr);
          emitRemark(simt.getLoc())
              << "matmul not lowered to Tensor Cores (general path: SIMT GPU "
                 "kernel in @"
              << simt.getSymName() << "): " << whyNot;
          entry.function = simt.getSymName().str();
        } else {
          op->emitRemark("matmul not lowered to Tensor Cores (general path: "
                         "left as is): ")
              << whyNot;
        }
        entries.push_back(std::move(entry));
        continue;
      }
      Location loc = op.getLoc();
      bool bf16 = shape->elementType.isBF16();
      std::string base = (caller.getSymName() + "_tensorcore").str();
      func::FuncOp kernelEntry =
          outlineMatmul(op, symbols, base,
                        /*retypeBF16AsF16=*/bf16 && chip == "sm_80");
      kernelEntry->setAttr(kEntryAttr, UnitAttr::get(&getContext()));
      LogicalResult lowered =
          chip == "sm_80" ? lowerWithMmaSync(module, symbols, kernelEntry,
                                             *shape, cfg, bf16)
                          : lowerWithWgmma(module, kernelEntry, *shape, cfg);
      if (failed(lowered))
        return signalPassFailure();
      kernelEntry->removeAttr(kEntryAttr);
      std::string config =
          chip == "sm_80"
              ? std::string(llvm::formatv(
                    "mma.sync m16n8k16, block tile {0}x{1}x{2}, warp tile "
                    "{3}x{4}, {5} cp.async stages, {6} threads",
                    cfg.tileM, cfg.tileN, cfg.tileK, cfg.warpM, cfg.warpN,
                    cfg.stages,
                    cfg.threads()))
              : wgmmaConfigDescription(*shape);
      emitRemark(loc) << "matmul " << describe(*shape)
                      << " lowered to Tensor Cores (" << chip << ": "
                      << config << ") in @" << kernelEntry.getSymName();
      entry.lowered = true;
      entry.function = kernelEntry.getSymName().str();
      entry.detail = config;
      entries.push_back(std::move(entry));
    }
    if (passReport->stream)
      writeReport(passReport->stream->os(), passReport->format, entries);
  }

  void writeReport(llvm::raw_ostream &os, mpt::ReportFormat format,
                   const std::vector<Entry> &entries) {
    int64_t lowered = llvm::count_if(entries, [](const Entry &e) {
      return e.lowered;
    });
    if (format == mpt::ReportFormat::Json) {
      llvm::json::Array list;
      for (const Entry &e : entries) {
        llvm::json::Object o{{"location", e.location},
                             {"op", e.op},
                             {"tensor_cores", e.lowered}};
        if (!e.description.empty())
          o["matmul"] = e.description;
        if (e.lowered) {
          o["function"] = e.function;
          o["kernel"] = e.detail;
        } else {
          o["reason"] = e.detail;
          o["general_path"] = e.function.empty() ? "left as is" : "SIMT GPU kernel";
          if (!e.function.empty())
            o["function"] = e.function;
        }
        list.push_back(std::move(o));
      }
      llvm::json::Object root{{"chip", chip.getValue()},
                              {"lowered", lowered},
                              {"not_lowered",
                               static_cast<int64_t>(entries.size()) - lowered},
                              {"matmuls", std::move(list)}};
      os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root)))
         << "\n";
      return;
    }
    os << "Tensor Cores (" << chip << "): " << lowered << " of "
       << entries.size() << " matmuls lowered\n";
    for (const Entry &e : entries) {
      os << "  " << e.location << ": " << e.op;
      if (!e.description.empty())
        os << " " << e.description;
      if (e.lowered)
        os << ": Tensor Cores in @" << e.function << " (" << e.detail
           << ")\n";
      else if (!e.function.empty())
        os << ": general path (SIMT GPU kernel in @" << e.function
           << "): " << e.detail << "\n";
      else
        os << ": general path (left as is): " << e.detail << "\n";
    }
  }
};

} // namespace
