//===- MatmulToTensorCore.cpp - matmuls to Tensor Core kernels ------------===//
//
// Each eligible matmul is outlined into its own function and turned into a
// gpu.launch there (docs/TensorCore.md):
//  * sm_80: the schedule TensorCore/sm80-mma-sync.mlir, parameterized by
//    the kernel configuration (TensorCoreConfig.h), runs end to end: it
//    tiles the matmul to blocks (batch_matmul: the batch to blockIdx.z,
//    then rank-reduced to a matmul), K stages and warps, promotes the A/B
//    tiles to shared memory, maps the copies to threads, vectorizes,
//    unrolls the warp tile to m16n8k16 pieces and hoists the accumulators
//    out of the K loop; then mpt's transform ops (TensorCoreTransformOps.td)
//    make the shared buffers typed and loop-invariant, convert the vector
//    ops to nvgpu.ldmatrix / nvgpu.mma.sync (bf16: nvvm.mma.sync) and
//    swizzle the shared tiles, and upstream's multi-buffer and pipeline ops
//    software-pipeline the cp.async copies. The tiles then become aligned
//    shared globals (C++, sharedAllocsToGlobals).
//  * the general path: TensorCore/simt.mlir.
//  * sm_90a: see MatmulToWgmma.cpp.
//
//===----------------------------------------------------------------------===//
#include "TensorCoreCommon.h"
#include "TensorCoreConfig.h"
#include "mpt/Support/Report.h"
#include "mpt/Conversion/Passes.h"
#include "mpt/Conversion/TensorCoreTransformOps.h"

#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/NVGPU/Transforms/Transforms.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"

namespace mpt {
#define GEN_PASS_DEF_MATMULTOTENSORCORE
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt::tensorcore;
using mpt::TensorCoreChip;

StringRef mpt::stringifyTensorCoreChip(TensorCoreChip chip) {
  return chip == TensorCoreChip::SM80 ? "sm_80" : "sm_90a";
}

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
// Transform schedules
//===----------------------------------------------------------------------===//

LogicalResult mpt::tensorcore::applyNamedSequence(ModuleOp payload,
                                                  ModuleOp schedule,
                                                  StringRef name,
                                                  Location loc) {
  auto sequence = dyn_cast_or_null<mlir::transform::TransformOpInterface>(
      SymbolTable::lookupSymbolIn(schedule, name));
  if (!sequence)
    return emitError(loc) << "internal error: no transform sequence @" << name;
  mlir::transform::TransformOptions options;
  return mlir::transform::applyTransformNamedSequence(payload, sequence,
                                                      schedule, options);
}

namespace {

//===----------------------------------------------------------------------===//
// C++ steps after the schedule
//===----------------------------------------------------------------------===//

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
  // More stages than k-tiles would only prefetch tiles that do not exist.
  int64_t stages = std::min(cfg.stages, shape.k / cfg.tileK);
  // TensorCore/sm80-mma-sync.mlir, end to end: blocks, K stages, shared
  // tiles, warps, vectors, ldmatrix / mma.sync, swizzle, pipeline.
  OwningOpRef<ModuleOp> schedule =
      parseSchedule(ScheduleFile::Sm80MmaSync,
                    getMmaSyncParams(cfg, shape.layout, stages, bf16),
                    module.getContext(), loc);
  if (!schedule ||
      failed(applyNamedSequence(module, *schedule,
                                shape.batch ? "sm80_batch_matmul"
                                            : "sm80_matmul",
                                loc)))
    return failure();
  sharedAllocsToGlobals(module, symbols, entry);
  entry.walk([](Operation *op) { op->removeAttr(kKLoopAttr); });
  return success();
}

struct MatmulToTensorCorePass
    : mpt::impl::MatmulToTensorCoreBase<MatmulToTensorCorePass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    // transform.mpt.*, used by the sm_80 schedule.
    mpt::registerTensorCoreTransformExtension(registry);
  }

  LogicalResult validateOptions(ModuleOp module) {
    Location loc = module.getLoc();
    if (chip == TensorCoreChip::SM90a)
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
    // sm_80's configuration comes from the options; chooseKernelConfig
    // (TensorCoreConfig.h) gives each matmul its own.
    const KernelConfig sm80{tileM, tileN, tileK, warpM, warpN, stages};
    std::vector<Entry> entries;
    for (linalg::LinalgOp op : matmuls) {
      Entry entry{mpt::formatLocation(op.getLoc()),
                  op->getName().getStringRef().str()};
      if (chip == TensorCoreChip::SM80 && op.getNumDpsInputs() == 2 &&
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
        if (chip == TensorCoreChip::SM80) {
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
        if (general == mpt::GeneralMatmulPath::Gpu && canRunSimt(op) &&
            caller) {
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
                        /*retypeBF16AsF16=*/bf16 &&
                            chip == TensorCoreChip::SM80);
      kernelEntry->setAttr(kEntryAttr, UnitAttr::get(&getContext()));
      LogicalResult lowered =
          chip == TensorCoreChip::SM80
              ? lowerWithMmaSync(module, symbols, kernelEntry, *shape, cfg,
                                 bf16)
              : lowerWithWgmma(module, kernelEntry, *shape, cfg);
      if (failed(lowered))
        return signalPassFailure();
      kernelEntry->removeAttr(kEntryAttr);
      std::string config =
          chip == TensorCoreChip::SM80
              ? std::string(llvm::formatv(
                    "mma.sync m16n8k16, block tile {0}x{1}x{2}, warp tile "
                    "{3}x{4}, {5} cp.async stages, {6} threads",
                    cfg.tileM, cfg.tileN, cfg.tileK, cfg.warpM, cfg.warpN,
                    cfg.stages,
                    cfg.threads()))
              : wgmmaConfigDescription(*shape);
      emitRemark(loc) << "matmul " << describe(*shape)
                      << " lowered to Tensor Cores ("
                      << stringifyTensorCoreChip(chip) << ": "
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
      llvm::json::Object root{{"chip", stringifyTensorCoreChip(chip)},
                              {"lowered", lowered},
                              {"not_lowered",
                               static_cast<int64_t>(entries.size()) - lowered},
                              {"matmuls", std::move(list)}};
      mpt::writeJson(os, std::move(root));
      return;
    }
    os << "Tensor Cores (" << stringifyTensorCoreChip(chip) << "): " << lowered
       << " of " << entries.size() << " matmuls lowered\n";
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
