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
#include "mpt/Support/Report.h"
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
#include "mlir/Parser/Parser.h"
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

/// The start of every embedded transform script: the named sequence and the
/// match of the function it works on (the one marked kEntryAttr).
static std::string scriptPrologue() {
  return ("module attributes {transform.with_named_sequence} {\n"
          "transform.named_sequence @__transform_main(%root: !transform.any_op "
          "{transform.readonly}) {\n"
          "  %func = transform.structured.match ops{[\"func.func\"]} "
          "attributes{" +
          kEntryAttr + "} in %root : (!transform.any_op) -> !transform.any_op\n")
      .str();
}
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

LogicalResult mpt::tensorcore::applyTransformScript(ModuleOp payload,
                                                    StringRef script,
                                                    Location loc) {
  MLIRContext *ctx = payload.getContext();
  ParserConfig config(ctx);
  OwningOpRef<ModuleOp> scriptModule =
      parseSourceString<ModuleOp>(script, config, "mpt-tensorcore-script");
  if (!scriptModule)
    return emitError(loc) << "internal error: the Tensor Core transform "
                             "script does not parse";
  auto entry = dyn_cast_or_null<transform::TransformOpInterface>(
      SymbolTable::lookupSymbolIn(*scriptModule, "__transform_main"));
  if (!entry)
    return emitError(loc) << "internal error: no __transform_main";
  transform::TransformOptions options;
  return transform::applyTransformNamedSequence(payload, entry, *scriptModule,
                                                options);
}

namespace {

struct SM80Config {
  int64_t bm, bn, bk, wm, wn, stages;
  int64_t threads() const { return (bm / wm) * (bn / wn) * 32; }
};

/// Rows x columns (columns contiguous) of the shared tiles of A and B.
static std::pair<std::array<int64_t, 2>, std::array<int64_t, 2>>
sharedTileShapes(const SM80Config &c, Layout layout) {
  std::array<int64_t, 2> a = {c.bm, c.bk}, b = {c.bk, c.bn};
  if (layout == Layout::TN)
    a = {c.bk, c.bm};
  if (layout == Layout::NT)
    b = {c.bn, c.bk};
  return {a, b};
}

/// Threads along rows/columns when each thread copies 16 bytes (8 elements)
/// per row it owns.
static std::optional<std::array<int64_t, 3>>
copyDistribution(std::array<int64_t, 2> tile, int64_t threads) {
  int64_t tx = tile[1] / 8;
  if (tile[1] % 8 || tx == 0 || tx > threads || threads % tx)
    return std::nullopt;
  int64_t ty = threads / tx;
  if (tile[0] % ty)
    return std::nullopt;
  return std::array<int64_t, 3>{ty, tx, tile[0] / ty};
}

/// batch_matmul: tile the batch to blockIdx.z and the rows/columns to
/// blocks; the 1 x BM x BN batch_matmul is then rank-reduced to a matmul and
/// the sm_80 script continues from there.
static std::string buildBatchBlockScript(const SM80Config &c) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << scriptPrologue()
     << "  %mm = transform.structured.match ops{[\"linalg.batch_matmul\"]} in "
        "%func : (!transform.any_op) -> !transform.any_op\n"
     << llvm::formatv(
            "  %blk_mm, %blk = transform.structured.tile_using_forall %mm "
            "tile_sizes [1, {0}, {1}] (mapping = [#gpu.block<z>, "
            "#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> "
            "(!transform.any_op, !transform.any_op)\n",
            c.bm, c.bn)
     << "  transform.yield\n}\n}\n";
  return s;
}

static std::string buildSM80Script(const SM80Config &c, Layout layout,
                                   bool blocksTiled) {
  auto [aTile, bTile] = sharedTileShapes(c, layout);
  auto aDist = *copyDistribution(aTile, c.threads());
  auto bDist = *copyDistribution(bTile, c.threads());
  std::string s;
  llvm::raw_string_ostream os(s);
  os << scriptPrologue()
     << (blocksTiled ? "" : "  %mm = transform.structured.match "
                             "ops{[\"linalg.matmul\"]} in %func : "
                             "(!transform.any_op) -> !transform.any_op\n")
     // Thread blocks.
     << (blocksTiled
             ? std::string("  %blk_mm = transform.structured.match "
                           "ops{[\"linalg.matmul\"]} in %func : "
                           "(!transform.any_op) -> !transform.any_op\n")
             : std::string(llvm::formatv(
                   "  %blk_mm, %blk = transform.structured.tile_using_forall "
                   "%mm tile_sizes [{0}, {1}] (mapping = [#gpu.block<y>, "
                   "#gpu.block<x>]) : (!transform.any_op) -> "
                   "(!transform.any_op, !transform.any_op)\n",
                   c.bm, c.bn)))
     // K stages.
     << llvm::formatv("  %k_mm, %k_loop = transform.structured.tile_using_for "
                      "%blk_mm tile_sizes [0, 0, {0}] : (!transform.any_op) "
                      "-> (!transform.any_op, !transform.any_op)\n",
                      c.bk)
     << "  transform.annotate %k_loop \"" << kKLoopAttr
     << "\" : !transform.any_op\n"
     // Shared memory tiles of A and B.
     << "  %prom = transform.structured.promote %k_mm { operands_to_promote = "
        "[0, 1], memory_space = #gpu.address_space<workgroup> } : "
        "(!transform.any_op) -> !transform.any_op\n"
     << "  %copies = transform.structured.match ops{[\"linalg.copy\"]} in "
        "%func : (!transform.any_op) -> !transform.any_op\n"
     << "  %copy_a, %copy_b = transform.split_handle %copies : "
        "(!transform.any_op) -> (!transform.any_op, !transform.any_op)\n";
  auto copyToThreads = [&](StringRef name, std::array<int64_t, 3> d) {
    os << llvm::formatv(
              "  %{0}_t, %{0}_f = transform.structured.tile_using_forall "
              "%{0} num_threads [{1}, {2}] (mapping = "
              "[#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>]) : "
              "(!transform.any_op) -> (!transform.any_op, "
              "!transform.any_op)\n",
              name, d[0], d[1])
       << llvm::formatv("  %{0}_r, %{0}_l = transform.structured."
                        "tile_using_for %{0}_t tile_sizes [1, 0] : "
                        "(!transform.any_op) -> (!transform.any_op, "
                        "!transform.any_op)\n",
                        name)
       << llvm::formatv("  transform.annotate %{0}_l \"mpt.unroll_{0}\" : "
                        "!transform.any_op\n",
                        name);
  };
  copyToThreads("copy_a", aDist);
  copyToThreads("copy_b", bDist);
  // Warps, then one m16n8k16 mma per innermost tile.
  os << llvm::formatv(
            "  %w_mm, %w_f = transform.structured.tile_using_forall %prom "
            "tile_sizes [{0}, {1}] (mapping = [#gpu.warp<linear_dim_1>, "
            "#gpu.warp<linear_dim_0>]) : (!transform.any_op) -> "
            "(!transform.any_op, !transform.any_op)\n",
            c.wm, c.wn)
     << "  %i_mm, %l_m, %l_n, %l_k = transform.structured.tile_using_for "
        "%w_mm tile_sizes [16, 8, 16] : (!transform.any_op) -> "
        "(!transform.any_op, !transform.any_op, !transform.any_op, "
        "!transform.any_op)\n"
     << "  transform.annotate %l_m \"mpt.unroll_m\" : !transform.any_op\n"
     << "  transform.annotate %l_n \"mpt.unroll_n\" : !transform.any_op\n"
     << "  transform.annotate %l_k \"mpt.unroll_k\" : !transform.any_op\n"
     << "  %launch = transform.gpu.map_forall_to_blocks %func "
        "generate_gpu_launch : (!transform.any_op) -> !transform.any_op\n"
     << llvm::formatv("  %mapped = transform.gpu.map_nested_forall_to_threads "
                      "%launch block_dims = [{0}, 1, 1] : (!transform.any_op) "
                      "-> !transform.any_op\n",
                      c.threads())
     << "  %func1 = transform.structured.match ops{[\"func.func\"]} "
        "attributes{"
     << kEntryAttr
     << "} in %root : (!transform.any_op) -> !transform.any_op\n"
     << "  %vf = transform.structured.vectorize_children_and_apply_patterns "
        "%func1 : (!transform.any_op) -> !transform.any_op\n"
     // fold_arith_extension folds the extf of the inputs into a
     // mixed-precision vector.contract, which is what maps to mma.sync.
     << "  transform.apply_patterns to %vf {\n"
        "    transform.apply_patterns.vector.fold_arith_extension\n"
        "    transform.apply_patterns.memref.fold_memref_alias_ops\n"
        "    transform.apply_patterns.vector.cast_away_vector_leading_one_dim\n"
        "    transform.apply_patterns.canonicalization\n"
        "  } : !transform.any_op\n"
        "  transform.apply_cse to %vf : !transform.any_op\n";
  auto unroll = [&](StringRef attr, int64_t factor) {
    os << llvm::formatv("  %u_{0} = transform.structured.match attributes"
                        "{{\"{0}\"} in %vf : (!transform.any_op) -> "
                        "!transform.op<\"scf.for\">\n",
                        attr)
       << llvm::formatv("  transform.loop.unroll %u_{0} {{factor = {1}} : "
                        "!transform.op<\"scf.for\">\n",
                        attr, factor);
  };
  // loop.unroll needs the exact trip count (a larger factor leaves the loop);
  // innermost first so that the re-matched clones are all unrolled.
  if (aDist[2] > 1)
    unroll("mpt.unroll_copy_a", aDist[2]);
  if (bDist[2] > 1)
    unroll("mpt.unroll_copy_b", bDist[2]);
  unroll("mpt.unroll_k", c.bk / 16);
  unroll("mpt.unroll_n", c.wn / 8);
  unroll("mpt.unroll_m", c.wm / 16);
  os << "  transform.apply_patterns to %vf {\n"
        "    transform.apply_patterns.canonicalization\n"
        "  } : !transform.any_op\n"
        "  transform.apply_cse to %vf : !transform.any_op\n"
        // Forward the accumulator stores to the next k16 step's loads, then
        // hoist the remaining read/write pairs out of the K loop: the
        // accumulators live in registers for the whole K loop.
        "  transform.memref.erase_dead_alloc_and_stores %vf : "
        "(!transform.any_op) -> ()\n"
        "  %vf2 = transform.structured.hoist_redundant_vector_transfers %vf : "
        "(!transform.any_op) -> !transform.any_op\n"
        "  %vf3 = transform.nvgpu.create_async_groups %vf2 {bypass_l1} : "
        "(!transform.any_op) -> !transform.any_op\n"
        "  transform.yield\n}\n}\n";
  return s;
}

static std::string buildPipelineScript(int64_t stages) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << scriptPrologue()
     << "  %allocs = transform.structured.match ops{[\"memref.alloc\"]} in "
        "%func : (!transform.any_op) -> !transform.op<\"memref.alloc\">\n"
     << llvm::formatv("  %mb = transform.memref.multibuffer %allocs {{factor "
                      "= {0} : i64, skip_analysis} : "
                      "(!transform.op<\"memref.alloc\">) -> "
                      "!transform.any_op\n",
                      stages)
     << "  %k = transform.structured.match attributes{" << kKLoopAttr
     << "} in %func : (!transform.any_op) -> !transform.op<\"scf.for\">\n"
     << llvm::formatv("  %p = transform.nvgpu.pipeline_shared_memory_copies "
                      "failures(propagate) %k {{depth = {0} : i64} : "
                      "(!transform.op<\"scf.for\">) -> !transform.any_op\n",
                      stages)
     << "  transform.yield\n}\n}\n";
  return s;
}

/// The general path on the GPU: 32x32 output tiles per block, 32x8 threads,
/// each thread computing its (at most 1x4, possibly empty) part of the tile
/// with scalar loops in the matmul's own arithmetic. Partial tiles at the
/// edges are bounded by affine.min, so any static shape is correct.
static std::string buildSimtScript(bool batched) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << scriptPrologue()
     << "  %mm = transform.structured.match interface{LinalgOp} in %func : "
        "(!transform.any_op) -> !transform.any_op\n"
     << (batched ? "  %t, %f = transform.structured.tile_using_forall %mm "
                   "tile_sizes [1, 32, 32] (mapping = [#gpu.block<z>, "
                   "#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> "
                   "(!transform.any_op, !transform.any_op)\n"
                   "  %t2, %f2 = transform.structured.tile_using_forall %t "
                   "num_threads [0, 32, 8] (mapping = [#gpu.thread<y>, "
                   "#gpu.thread<x>]) : (!transform.any_op) -> "
                   "(!transform.any_op, !transform.any_op)\n"
                 : "  %t, %f = transform.structured.tile_using_forall %mm "
                   "tile_sizes [32, 32] (mapping = [#gpu.block<y>, "
                   "#gpu.block<x>]) : (!transform.any_op) -> "
                   "(!transform.any_op, !transform.any_op)\n"
                   "  %t2, %f2 = transform.structured.tile_using_forall %t "
                   "num_threads [32, 8] (mapping = [#gpu.thread<y>, "
                   "#gpu.thread<x>]) : (!transform.any_op) -> "
                   "(!transform.any_op, !transform.any_op)\n")
     << "  %launch = transform.gpu.map_forall_to_blocks %func "
        "generate_gpu_launch : (!transform.any_op) -> !transform.any_op\n"
     << "  %mapped = transform.gpu.map_nested_forall_to_threads %launch "
        "block_dims = [8, 32, 1] : (!transform.any_op) -> !transform.any_op\n"
     << "  %func1 = transform.structured.match ops{[\"func.func\"]} "
        "attributes{"
     << kEntryAttr
     << "} in %root : (!transform.any_op) -> !transform.any_op\n"
     << "  %mm1 = transform.structured.match interface{LinalgOp} in %func1 : "
        "(!transform.any_op) -> !transform.any_op\n"
     << "  %loops = transform.structured.convert_to_loops %mm1 : "
        "(!transform.any_op) -> !transform.any_op\n"
     << "  transform.yield\n}\n}\n";
  return s;
}

//===----------------------------------------------------------------------===//
// C++ steps between the scripts
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
                                      const SM80Config &cfg, bool bf16) {
  Location loc = entry.getLoc();
  bool batched = shape.batch > 0;
  if (batched) {
    if (failed(applyTransformScript(module, buildBatchBlockScript(cfg), loc)))
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
  if (failed(applyTransformScript(
          module, buildSM80Script(cfg, shape.layout, batched), loc)))
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
  // More stages than k-tiles would only prefetch tiles that do not exist.
  int64_t stages = std::min(cfg.stages, shape.k / cfg.bk);
  if (kLoop && stages > 1 &&
      failed(applyTransformScript(module, buildPipelineScript(stages), loc)))
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
    SM80Config cfg{tileM, tileN, tileK, warpM, warpN, stages};
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
    mpt::ReportFormat reportAs = format;
    FailureOr<std::shared_ptr<mpt::ReportOutput>> reportOutput =
        mpt::openReportWithAliases(module.getLoc(), getArgument(), output,
                                   reportAs, report, reportFormat);
    if (failed(reportOutput))
      return signalPassFailure();

    SmallVector<linalg::LinalgOp> matmuls;
    module.walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp,
              linalg::BatchReduceMatmulOp>(op.getOperation()))
        matmuls.push_back(op);
    });

    SymbolTable symbols(module);
    SM80Config cfg{tileM, tileN, tileK, warpM, warpN, stages};
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
      if (shape) {
        entry.description = describe(*shape);
        if (chip == "sm_80") {
          if (shape->m % cfg.bm || shape->n % cfg.bn || shape->k % cfg.bk)
            whyNot = llvm::formatv(
                "{0}x{1}x{2} is not a multiple of the {3}x{4}x{5} tile",
                shape->m, shape->n, shape->k, cfg.bm, cfg.bn, cfg.bk);
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
          if (failed(applyTransformScript(
                  module,
                  buildSimtScript(batched),
                  simt.getLoc())))
            return signalPassFailure();
          simt->removeAttr(kEntryAttr);
          emitRemark(simt.getLoc())
              << "matmul not lowered to Tensor Cores (general path: SIMT GPU "
                 "kernel in @"
              << simt.getSymName() << "): " << whyNot;
          entry.function = simt.getSymName().str();
          ++numSimt;
        } else {
          ++numLeft;
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
                          : lowerWithWgmma(module, kernelEntry, *shape);
      if (failed(lowered))
        return signalPassFailure();
      kernelEntry->removeAttr(kEntryAttr);
      std::string config =
          chip == "sm_80"
              ? std::string(llvm::formatv(
                    "mma.sync m16n8k16, block tile {0}x{1}x{2}, warp tile "
                    "{3}x{4}, {5} cp.async stages, {6} threads",
                    cfg.bm, cfg.bn, cfg.bk, cfg.wm, cfg.wn, cfg.stages,
                    cfg.threads()))
              : wgmmaConfigDescription(*shape);
      emitRemark(loc) << "matmul " << describe(*shape)
                      << " lowered to Tensor Cores (" << chip << ": "
                      << config << ") in @" << kernelEntry.getSymName();
      ++numTensorCore;
      entry.lowered = true;
      entry.function = kernelEntry.getSymName().str();
      entry.detail = config;
      entries.push_back(std::move(entry));
    }
    if (*reportOutput) {
      writeReport((*reportOutput)->os(), reportAs, entries);
      if (failed(mpt::commitReport(**reportOutput, module.getLoc(),
                                   getArgument())))
        return signalPassFailure();
    }
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
      mpt::writeJson(os, std::move(root));
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
