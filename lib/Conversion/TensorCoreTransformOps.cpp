//===- TensorCoreTransformOps.cpp - mpt's transform ops -------------------===//
//
// transform.mpt.* (include/mpt/Conversion/TensorCoreTransformOps.td): the
// steps of the sm_80 schedule (TensorCore/sm80-mma-sync.mlir) that upstream
// has no transform op for. Registered as a transform dialect extension by
// mpt::registerAllDialects and by mpt-matmul-to-tensorcore.
//
//===----------------------------------------------------------------------===//
#include "mpt/Conversion/TensorCoreTransformOps.h"
#include "TensorCoreCommon.h"

#include "mlir/Conversion/VectorToGPU/VectorToGPU.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/NVGPU/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mpt::tensorcore;

//===----------------------------------------------------------------------===//
// The steps
//===----------------------------------------------------------------------===//

/// `rewriter`: the transform op's, whose listener keeps the transform
/// state's handles in step with the ops these rewrites replace and erase.
static void canonicalizeAndCSE(Operation *root, RewriterBase &rewriter) {
  MLIRContext *ctx = root->getContext();
  RewritePatternSet patterns(ctx);
  for (Dialect *dialect : ctx->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : ctx->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, ctx);
  GreedyRewriteConfig config;
  config.setListener(
      dyn_cast_if_present<RewriterBase::Listener>(rewriter.getListener()));
  (void)applyPatternsGreedily(root, std::move(patterns), config);
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

//===----------------------------------------------------------------------===//
// The ops
//===----------------------------------------------------------------------===//

namespace mpt::transform {
using ::mlir::transform::ApplyToEachResultList;
using ::mlir::transform::TransformResults;
using ::mlir::transform::TransformRewriter;
using ::mlir::transform::TransformState;
} // namespace mpt::transform

DiagnosedSilenceableFailure mpt::transform::RankReduceBatchTileOp::applyToOne(
    TransformRewriter &rewriter, Operation *target,
    ApplyToEachResultList &results, TransformState &state) {
  auto tile = dyn_cast<linalg::BatchMatmulOp>(target);
  if (!tile)
    return emitDefiniteFailure() << "expects linalg.batch_matmul";
  rewriter.setInsertionPoint(tile);
  SmallVector<Value> views;
  for (Value operand : tile->getOperands()) {
    auto type = cast<MemRefType>(operand.getType());
    if (type.getDimSize(0) != 1) {
      tile.emitError("internal error: batch tile is not 1");
      return DiagnosedSilenceableFailure::definiteFailure();
    }
    views.push_back(memref::createCanonicalRankReducingSubViewOp(
        rewriter, tile.getLoc(), operand, type.getShape().drop_front()));
  }
  SmallVector<Value> ins = {views[0], views[1]}, outs = {views[2]};
  auto matmul = linalg::MatmulOp::create(rewriter, tile.getLoc(), ins, outs);
  rewriter.eraseOp(tile);
  results.push_back(matmul);
  return DiagnosedSilenceableFailure::success();
}

DiagnosedSilenceableFailure
mpt::transform::HoistSharedTilesOp::apply(TransformRewriter &rewriter,
                                          TransformResults &results,
                                          TransformState &state) {
  auto launches = llvm::to_vector(state.getPayloadOps(getLaunch()));
  auto loops = llvm::to_vector(state.getPayloadOps(getKLoop()));
  if (launches.size() != 1 || !isa<gpu::LaunchOp>(launches[0]))
    return emitDefiniteFailure()
           << "internal error: expected one gpu.launch, got "
           << launches.size() << " ops";
  if (loops.size() > 1 || (loops.size() == 1 && !isa<scf::ForOp>(loops[0])))
    return emitDefiniteFailure()
           << "internal error: expected at most one K loop";
  scf::ForOp kLoop = loops.empty() ? scf::ForOp() : cast<scf::ForOp>(loops[0]);
  if (failed(hoistSharedTiles(cast<gpu::LaunchOp>(launches[0]), kLoop)))
    return DiagnosedSilenceableFailure::definiteFailure();
  return DiagnosedSilenceableFailure::success();
}

void mpt::transform::HoistSharedTilesOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  ::mlir::transform::onlyReadsHandle(getLaunchMutable(), effects);
  ::mlir::transform::onlyReadsHandle(getKLoopMutable(), effects);
  ::mlir::transform::modifiesPayload(effects);
}

DiagnosedSilenceableFailure mpt::transform::MergeCopyGroupsOp::applyToOne(
    TransformRewriter &rewriter, Operation *target,
    ApplyToEachResultList &results, TransformState &state) {
  auto loop = dyn_cast<scf::ForOp>(target);
  if (!loop)
    return emitDefiniteFailure() << "expects scf.for";
  mergeCopyGroups(*loop.getBody());
  return DiagnosedSilenceableFailure::success();
}

void mpt::transform::MergeCopyGroupsOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  ::mlir::transform::onlyReadsHandle(getTargetMutable(), effects);
  ::mlir::transform::modifiesPayload(effects);
}

DiagnosedSilenceableFailure
mpt::transform::ConvertToMmaSyncOp::apply(TransformRewriter &rewriter,
                                          TransformResults &results,
                                          TransformState &state) {
  auto targets = llvm::to_vector(state.getPayloadOps(getTarget()));
  if (targets.size() != 1)
    return emitDefiniteFailure() << "expects one function";
  Operation *root = targets[0];
  Location loc = root->getLoc();
  MLIRContext *ctx = getContext();
  {
    RewritePatternSet patterns(ctx);
    populatePrepareVectorToMMAPatterns(patterns, /*useNvGpu=*/true);
    // Through the transform rewriter's listener, so that the handles to
    // replaced ops (the K loop) follow or drop them.
    GreedyRewriteConfig config;
    config.setListener(
      dyn_cast_if_present<RewriterBase::Listener>(rewriter.getListener()));
    if (failed(applyPatternsGreedily(root, std::move(patterns), config))) {
      mlir::emitError(loc, "internal error: mma preparation failed");
      return DiagnosedSilenceableFailure::definiteFailure();
    }
    if (failed(convertVectorToNVVMCompatibleMMASync(rewriter, root))) {
      mlir::emitError(loc, "internal error: vector to mma.sync failed");
      return DiagnosedSilenceableFailure::definiteFailure();
    }
    // Canonicalize and CSE: erases what the conversion left dead and merges
    // the ldmatrix loads of fragments shared by several mma.sync.
    canonicalizeAndCSE(root, rewriter);
  }
  gpu::LaunchOp launch;
  root->walk([&](gpu::LaunchOp op) { launch = op; });
  if (!launch)
    return emitDefiniteFailure() << "internal error: no gpu.launch";
  if (getBf16() && failed(lowerMmaSyncAsBF16(launch)))
    return DiagnosedSilenceableFailure::definiteFailure();
  useNumericWorkgroupSpace(launch);
  // The conversion rebuilt the K loop: the one whose body issues the
  // cp.async copies.
  SmallVector<Operation *> kLoops;
  launch.walk([&](scf::ForOp op) {
    if (!op->getParentOfType<scf::ForOp>() &&
        !op.getOps<nvgpu::DeviceAsyncCopyOp>().empty())
      kLoops.push_back(op);
  });
  results.set(cast<OpResult>(getKLoop()), kLoops);
  return DiagnosedSilenceableFailure::success();
}

void mpt::transform::ConvertToMmaSyncOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  ::mlir::transform::onlyReadsHandle(getTargetMutable(), effects);
  ::mlir::transform::producesHandle(getOperation()->getOpResults(), effects);
  ::mlir::transform::modifiesPayload(effects);
}

DiagnosedSilenceableFailure
mpt::transform::SwizzleSharedTilesOp::apply(TransformRewriter &rewriter,
                                            TransformResults &results,
                                            TransformState &state) {
  for (Operation *root : state.getPayloadOps(getTarget())) {
    gpu::LaunchOp launch;
    root->walk([&](gpu::LaunchOp op) { launch = op; });
    if (!launch)
      return emitDefiniteFailure() << "internal error: no gpu.launch";
    SmallVector<memref::AllocOp> tiles;
    root->walk([&](memref::AllocOp alloc) { tiles.push_back(alloc); });
    for (memref::AllocOp tile : tiles)
      if (failed(nvgpu::optimizeSharedMemoryReadsAndWrites(launch,
                                                           tile.getResult())))
        mlir::emitRemark(root->getLoc())
            << "shared tile " << tile.getType()
            << " not swizzled: its accesses keep bank conflicts";
  }
  return DiagnosedSilenceableFailure::success();
}

void mpt::transform::SwizzleSharedTilesOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  ::mlir::transform::onlyReadsHandle(getTargetMutable(), effects);
  ::mlir::transform::modifiesPayload(effects);
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "mpt/Conversion/TensorCoreTransformOps.cpp.inc"

namespace {
class TensorCoreTransformExtension
    : public mlir::transform::TransformDialectExtension<
          TensorCoreTransformExtension> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TensorCoreTransformExtension)
  using Base::Base;

  void init() {
    declareGeneratedDialect<gpu::GPUDialect>();
    declareGeneratedDialect<linalg::LinalgDialect>();
    declareGeneratedDialect<LLVM::LLVMDialect>();
    declareGeneratedDialect<memref::MemRefDialect>();
    declareGeneratedDialect<NVVM::NVVMDialect>();
    declareGeneratedDialect<nvgpu::NVGPUDialect>();
    declareGeneratedDialect<vector::VectorDialect>();
    registerTransformOps<
#define GET_OP_LIST
#include "mpt/Conversion/TensorCoreTransformOps.cpp.inc"
        >();
  }
};
} // namespace

void mpt::registerTensorCoreTransformExtension(DialectRegistry &registry) {
  registry.addExtensions<TensorCoreTransformExtension>();
}
