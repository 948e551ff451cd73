//===- MatmulToCPUKernels.cpp - contractions to CPU kernel calls ----------===//
//
// Each contraction the kernels cover becomes a call of one kernel function
// per module and element type (CPUMatmulKernels.h): operands are viewed as
// row-major (batch,) M x K, K x N and M x N matrices, copied when a view's
// innermost dimension is not contiguous, and a batch is a loop of calls.
//
//===----------------------------------------------------------------------===//
#include "CPUMatmulKernels.h"
#include "mpt/Support/Report.h"
#include "mpt/Conversion/CPUPasses.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"

namespace mpt {
#define GEN_PASS_DEF_MATMULTOCPUKERNELS
#include "mpt/Conversion/CPUPasses.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

enum class Kernel { AMX, AVX512, AVX512BF16, AVX2 };
/// What the target has (the pass options).
struct Targets {
  bool amx, avx512, avx512bf16, avx2;
};
/// A contraction a kernel covers: the kernel, the input element type and
/// the loop dimension of each role.
struct ContractionPlan {
  Kernel kernel;
  Type elementType;
  std::optional<unsigned> batch;
  unsigned m, n, k;
};

/// What `kernel` is, for the report.
StringRef describeKernel(Kernel kernel) {
  switch (kernel) {
  case Kernel::AMX:
    return "AMX: 2x2 16x16 f32 tiles, K block 256, A and B packed into tiles";
  case Kernel::AVX512BF16:
    return "AVX512-BF16: 14x32 f32 register block, vdpbf16ps on k pairs, K "
           "block 512";
  case Kernel::AVX512:
    return "AVX-512: 14x32 f32 register block, FMA, K block 256";
  case Kernel::AVX2:
    return "AVX2: 6x16 f32 register block, FMA, K block 256";
  }
  llvm_unreachable("unknown kernel");
}

/// "<loop ranges> <A> x <B> -> <C>", e.g. "64x128x32 bf16 x bf16 -> f32"
/// ('?' for a dynamic size), for the report.
std::string describe(linalg::LinalgOp op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(
      op.getStaticLoopRanges(), os,
      [&](int64_t size) {
        if (ShapedType::isDynamic(size))
          os << "?";
        else
          os << size;
      },
      "x");
  os << " ";
  llvm::interleave(
      op.getDpsInputs(), os,
      [&](Value v) { os << getElementTypeOrSelf(v.getType()); }, " x ");
  for (OpOperand &init : op.getDpsInitsMutable())
    os << " -> " << getElementTypeOrSelf(init.get().getType());
  return text;
}

/// Why `op` cannot take the kernel (empty: it can), and its plan.
std::optional<ContractionPlan> classify(linalg::LinalgOp op,
                                        const Targets &targets,
                                        std::string &whyNot) {
  if (!op.hasPureBufferSemantics()) {
    whyNot = "operates on tensors; bufferize first";
    return std::nullopt;
  }
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1) {
    whyNot = "not a two-input contraction";
    return std::nullopt;
  }
  Type a = getElementTypeOrSelf(op.getDpsInputOperand(0)->get().getType());
  Type b = getElementTypeOrSelf(op.getDpsInputOperand(1)->get().getType());
  Type c = getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType());
  ContractionPlan plan;
  if (a != b || !c.isF32() || !(a.isF32() || a.isF16() || a.isBF16())) {
    whyNot = "element types: the kernels take f32, f16 or bf16 inputs (both "
             "the same) and an f32 accumulator";
    return std::nullopt;
  }
  if (a.isBF16() && targets.amx) {
    plan.kernel = Kernel::AMX;
  } else if (a.isBF16() && targets.avx512 && targets.avx512bf16) {
    plan.kernel = Kernel::AVX512BF16;
  } else if (targets.avx512) {
    plan.kernel = Kernel::AVX512;
  } else if (targets.avx2) {
    plan.kernel = Kernel::AVX2;
  } else {
    whyNot = a.isBF16() ? "no AMX, AVX-512 or AVX2 on the target"
                        : "no AVX-512 or AVX2 on the target";
    return std::nullopt;
  }
  plan.elementType = a;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  bool permutations = llvm::all_of(maps, [](AffineMap map) {
    return map.isProjectedPermutation() && map.getNumResults() >= 2;
  });
  // Upstream counts a dimension of B and C only (the batch of an im2col
  // convolution, whose filter A serves every image) as a second N dimension
  // (likewise A and C: a second M). When it is the outermost dimension of
  // both, it is a batch that one input lacks.
  if (succeeded(dims) && permutations && dims->batch.empty()) {
    unsigned outer = maps[2].getDimPosition(0);
    for (auto [extra, input] :
         {std::pair(&dims->n, maps[1]), std::pair(&dims->m, maps[0])})
      if (extra->size() == 2 && input.getDimPosition(0) == outer &&
          llvm::is_contained(*extra, outer)) {
        llvm::erase(*extra, outer);
        dims->batch.push_back(outer);
        break;
      }
  }
  if (failed(dims) || !permutations || dims->m.size() != 1 ||
      dims->n.size() != 1 ||
      dims->k.size() != 1 || dims->batch.size() > 1 ||
      op.getNumLoops() != 3 + dims->batch.size()) {
    whyNot = "not a contraction with one M, N and K dimension and at most "
             "one batch dimension";
    return std::nullopt;
  }
  // Each operand must be indexed by exactly its own dimensions; an input
  // may lack the batch one (shared by the whole batch, as the filter of an
  // im2col convolution is), the output may not.
  unsigned b0 = dims->batch.empty() ? ~0u : dims->batch.front();
  unsigned m = dims->m.front(), n = dims->n.front(), k = dims->k.front();
  SmallVector<SmallVector<unsigned>> expected = {{m, k}, {k, n}, {m, n}};
  for (auto [i, map, want] :
       llvm::enumerate(op.getIndexingMapsArray(), expected)) {
    SmallVector<unsigned> have;
    if (map.isProjectedPermutation())
      for (unsigned j = 0; j < map.getNumResults(); ++j)
        have.push_back(map.getDimPosition(j));
    llvm::sort(have);
    llvm::sort(want);
    bool matches = have == want;
    if (b0 != ~0u) {
      want.push_back(b0);
      llvm::sort(want);
      matches = (matches && i != 2) || have == want;
    }
    if (!matches) {
      whyNot = "an operand is not indexed by exactly its (batch,) row and "
               "column dimensions";
      return std::nullopt;
    }
  }
  // The kernel stores rows of C with vector stores: C's N dimension must be
  // its contiguous one (inputs are copied when they are not).
  AffineMap cMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  SmallVector<int64_t> strides;
  int64_t offset;
  auto cType = cast<MemRefType>(op.getDpsInitOperand(0)->get().getType());
  std::optional<unsigned> nPos =
      cMap.getResultPosition(getAffineDimExpr(dims->n.front(), op.getContext()));
  if (!nPos || failed(cType.getStridesAndOffset(strides, offset)) ||
      strides[*nPos] != 1) {
    whyNot = "the output's N dimension is not its contiguous one";
    return std::nullopt;
  }
  // One output element per batch element (a depthwise convolution's
  // filter gradient: per channel and tap, the sum of dy * x over the batch
  // and the image) is a dot product: the kernel would pad each to a full
  // register block, one call per element.
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges[dims->m.front()] == 1 && ranges[dims->n.front()] == 1) {
    whyNot = "a dot product per output element (M = N = 1): left to "
             "--mpt-vectorize-cpu-loops (a reduction)";
    return std::nullopt;
  }
  if (!dims->batch.empty())
    plan.batch = dims->batch.front();
  plan.m = dims->m.front();
  plan.n = dims->n.front();
  plan.k = dims->k.front();
  return plan;
}

/// `operand` (indexed by `map`) viewed with its dimensions in the order of
/// the loop dimensions `order`.
Value permutedView(OpBuilder &b, Location loc, Value operand, AffineMap map,
                   ArrayRef<unsigned> order) {
  SmallVector<unsigned> perm;
  for (unsigned loopDim : order)
    for (unsigned j = 0; j < map.getNumResults(); ++j)
      if (map.getDimPosition(j) == loopDim)
        perm.push_back(j);
  AffineMap permutation = AffineMap::getPermutationMap(perm, b.getContext());
  if (permutation.isIdentity())
    return operand;
  return memref::TransposeOp::create(b, loc, operand,
                                     AffineMapAttr::get(permutation));
}

/// The kernel's argument type for an element type: a dynamic matrix with
/// unit inner stride.
MemRefType kernelArgType(Type elementType) {
  MLIRContext *ctx = elementType.getContext();
  return MemRefType::get(
      {ShapedType::kDynamic, ShapedType::kDynamic}, elementType,
      StridedLayoutAttr::get(ctx, ShapedType::kDynamic,
                             {ShapedType::kDynamic, 1}));
}

/// The 2-d matrix of a (batch,) rows x cols view at batch index `index`
/// (a view without batch dimension is the same for every index), cast to
/// the kernel's argument type.
Value matrixAt(OpBuilder &b, Location loc, Value view, Value index) {
  auto type = cast<MemRefType>(view.getType());
  if (index && type.getRank() == 3) {
    SmallVector<OpFoldResult> offsets = {index, b.getIndexAttr(0),
                                         b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = memref::getMixedSizes(b, loc, view);
    sizes[0] = b.getIndexAttr(1);
    SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
    auto reduced = memref::SubViewOp::inferRankReducedResultType(
        {type.getDimSize(1), type.getDimSize(2)}, type, offsets, sizes,
        strides);
    view = memref::SubViewOp::create(b, loc, cast<MemRefType>(reduced), view,
                                     offsets, sizes, strides);
  }
  return memref::CastOp::create(b, loc, kernelArgType(type.getElementType()),
                                view);
}

/// `v` without the memref.transpose views permutedView adds.
Value stripViews(Value v) {
  while (auto transpose = v.getDefiningOp<memref::TransposeOp>())
    v = transpose.getIn();
  return v;
}

Value stripCasts(Value v) {
  while (auto cast = v.getDefiningOp<memref::CastOp>())
    v = cast.getSource();
  return v;
}

/// The fill of +0.0 into the whole of `op`'s output, when it is the last op
/// before `op` that may write memory (only pure ops and allocations in
/// between) and `op`'s K loop runs at least once: the kernel can start from
/// zeros itself (its `zeroC` argument) and write every element of C, so the
/// fill is not needed.
linalg::FillOp getZeroFillOfOutput(linalg::LinalgOp op, unsigned kLoop) {
  int64_t k = op.getStaticLoopRanges()[kLoop];
  if (ShapedType::isDynamic(k) || k == 0)
    return {};
  Value output = stripCasts(op.getDpsInitOperand(0)->get());
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(prev)) {
      if (fill.hasPureBufferSemantics() &&
          stripCasts(fill.getDpsInitOperand(0)->get()) == output &&
          matchPattern(fill.getInputs()[0], m_PosZeroFloat()))
        return fill;
      return {};
    }
    if (!isPure(prev) && !isa<memref::AllocOp, memref::AllocaOp>(prev))
      return {};
  }
  return {};
}

/// Whether `op` rounds its one input, read whole, to bf16 into its one
/// output, and does nothing else (autocast's cast of a contraction's f32
/// result).
static bool isBF16Rounding(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      !op.hasPureBufferSemantics() ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }) ||
      !getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType())
           .isBF16())
    return false;
  Block *body = op.getBlock();
  if (body->getOperations().size() != 2)
    return false;
  auto truncf = dyn_cast<arith::TruncFOp>(body->front());
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  return truncf && truncf.getIn() == body->getArgument(0) &&
         truncf.getIn().getType().isF32() &&
         yield.getOperand(0) == truncf.getResult();
}

/// The one reader of a contraction's output C after the contraction, when it
/// reads C only rounded to bf16: the bf16 kernels (AMX, AVX512-BF16) can then
/// write the rounded values themselves (their `toD` epilogue) and C's f32
/// values are never read.
struct RoundedReader {
  linalg::GenericOp op;
  /// The operand of `op` that reads C.
  OpOperand *operand;
  /// `op` only rounds all of C into its output, which the kernel then
  /// writes directly; otherwise the kernel writes a bf16 copy of C that
  /// `op` reads instead of C (the autocast `addmm` case: x W^T rounded,
  /// then a bf16 bias added).
  bool roundsOnly;
  /// The reshapes (memref.expand_shape, collapse_shape) between C's buffer
  /// and `operand`, in order: a convolution's weight gradient is computed
  /// as a matrix and rounded as [F, C, KH, KW].
  SmallVector<Operation *> reshapes = {};
};

/// Whether `op` is a memref.expand_shape or collapse_shape of static shapes.
static bool isStaticReshape(Operation *op) {
  if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(op))
    return false;
  return cast<MemRefType>(op->getOperand(0).getType()).hasStaticShape() &&
         cast<MemRefType>(op->getResult(0).getType()).hasStaticShape();
}

/// `reshape` (isStaticReshape) done to `buffer`, a buffer of identity layout
/// shaped as its source; with `inverse`, undone to `buffer` shaped as its
/// result. The same elements in the same row-major order.
static Value reshapeLike(OpBuilder &b, Location loc, Operation *reshape,
                         Value buffer, bool inverse) {
  auto expand = dyn_cast<memref::ExpandShapeOp>(reshape);
  SmallVector<ReassociationIndices> groups =
      expand ? expand.getReassociationIndices()
             : cast<memref::CollapseShapeOp>(reshape).getReassociationIndices();
  // Collapsing: expand's inverse, or a collapse done again.
  if (static_cast<bool>(expand) == inverse)
    return memref::CollapseShapeOp::create(b, loc, buffer, groups);
  auto type = cast<MemRefType>(buffer.getType());
  ArrayRef<int64_t> shape =
      cast<MemRefType>(inverse ? reshape->getOperand(0).getType()
                               : reshape->getResult(0).getType())
          .getShape();
  MemRefType expanded =
      *memref::ExpandShapeOp::computeExpandedType(type, shape, groups);
  return memref::ExpandShapeOp::create(b, loc, expanded, buffer, groups);
}

/// Whether `arg` is used only by arith.truncf to bf16.
static bool isReadOnlyRoundedToBF16(BlockArgument arg) {
  return arg.getType().isF32() &&
         llvm::all_of(arg.getUsers(), [](Operation *user) {
           auto truncf = dyn_cast<arith::TruncFOp>(user);
           return truncf && truncf.getType().isBF16();
         });
}

/// `op`'s rounded reader: C is a buffer allocated in the function, and
/// after `op` it is only read by one op of the same block, through one
/// input whose values that op only rounds to bf16 (apart from casts of C,
/// its dealloc and reads of its address; before `op`, C's init, anything).
static std::optional<RoundedReader> getRoundedReader(linalg::LinalgOp op) {
  Value output = stripCasts(op.getDpsInitOperand(0)->get());
  if (!output.getDefiningOp<memref::AllocOp>())
    return std::nullopt;
  std::optional<RoundedReader> reader;
  SmallVector<Value> views = {output};
  while (!views.empty()) {
    Value view = views.pop_back_val();
    for (OpOperand &use : view.getUses()) {
      Operation *user = use.getOwner();
      // The deallocation's ownership checks read the buffer's address only.
      if (user == op.getOperation() ||
          isa<memref::DeallocOp, memref::ExtractAlignedPointerAsIndexOp>(user))
        continue;
      if (isa<memref::CastOp>(user) || isStaticReshape(user)) {
        views.push_back(user->getResult(0));
        continue;
      }
      if (user->getBlock() != op->getBlock())
        return std::nullopt;
      if (user->isBeforeInBlock(op))
        continue;
      auto generic = dyn_cast<linalg::GenericOp>(user);
      if (reader || !generic || !generic.hasPureBufferSemantics() ||
          !generic.isDpsInput(&use) ||
          !isReadOnlyRoundedToBF16(generic.getMatchingBlockArgument(&use)))
        return std::nullopt;
      reader = RoundedReader{generic, &use, /*roundsOnly=*/false};
    }
  }
  if (!reader)
    return reader;
  for (Value v = reader->operand->get(); v != output;) {
    Operation *def = v.getDefiningOp();
    if (!isa<memref::CastOp>(def))
      reader->reshapes.push_back(def);
    v = def->getOperand(0);
  }
  std::reverse(reader->reshapes.begin(), reader->reshapes.end());
  if (!isBF16Rounding(reader->op))
    return reader;
  // The rounding's output must be available at `op`: defined before it, or
  // an allocation that can move there; seen as C's matrix through the
  // reshapes undone, it must have the identity layout.
  Value rounded = stripCasts(reader->op.getDpsInitOperand(0)->get());
  if (!reader->reshapes.empty() &&
      !cast<MemRefType>(rounded.getType()).getLayout().isIdentity())
    return reader;
  Operation *def = rounded.getDefiningOp();
  if (!def || def->getBlock() != op->getBlock() || def->isBeforeInBlock(op)) {
    reader->roundsOnly = true;
    return reader;
  }
  if (!isa<memref::AllocOp>(def) ||
      !llvm::all_of(def->getOperands(), [&](Value size) {
        Operation *sizeDef = size.getDefiningOp();
        return !sizeDef || sizeDef->getBlock() != op->getBlock() ||
               sizeDef->isBeforeInBlock(op);
      }))
    return reader;
  def->moveBefore(op);
  reader->roundsOnly = true;
  return reader;
}

struct MatmulToCPUKernelsPass : mpt::impl::MatmulToCPUKernelsBase<MatmulToCPUKernelsPass> {
  using MatmulToCPUKernelsBase::MatmulToCPUKernelsBase;

  struct Entry {
    std::string location, op, shape, detail;
    bool lowered = false;
  };

  /// The kernel function of `plan`, parsed into the module on first use:
  /// the serial or the parallel variant (in a parallel module, the serial
  /// one is named with a "_serial" suffix).
  FailureOr<func::FuncOp> getOrInsertKernel(ModuleOp module,
                                            SymbolTable &symbols,
                                            const ContractionPlan &plan,
                                            bool parallelKernel) {
    std::string elt;
    llvm::raw_string_ostream(elt) << plan.elementType;
    std::string name;
    switch (plan.kernel) {
    case Kernel::AMX:
      name = mpt::cpu::kAMXKernelName.str();
      break;
    case Kernel::AVX512BF16:
      name = mpt::cpu::kAVX512BF16KernelName.str();
      break;
    case Kernel::AVX512:
      name = mpt::cpu::avx512KernelName(elt);
      break;
    case Kernel::AVX2:
      name = mpt::cpu::avx2KernelName(elt);
      break;
    }
    if (parallel && !parallelKernel)
      name += "_serial";
    if (auto fn = symbols.lookup<func::FuncOp>(name))
      return fn;
    std::string text;
    switch (plan.kernel) {
    case Kernel::AMX:
      text = mpt::cpu::amxKernel(parallelKernel);
      break;
    case Kernel::AVX512BF16:
      text = mpt::cpu::avx512BF16Kernel(parallelKernel);
      break;
    case Kernel::AVX512:
      text = mpt::cpu::avx512Kernel(elt, parallelKernel);
      break;
    case Kernel::AVX2:
      text = mpt::cpu::avx2Kernel(elt, parallelKernel);
      break;
    }
    OwningOpRef<ModuleOp> parsed =
        parseSourceString<ModuleOp>(text, &getContext());
    if (!parsed) {
      emitError(module.getLoc(), "mpt-matmul-to-cpu-kernels: the embedded "
                                 "kernel @")
          << name << " does not parse";
      return failure();
    }
    // The kernel, and the functions it calls (the runtime's declarations,
    // the register blocks' functions that both variants share) once a
    // module.
    func::FuncOp fn;
    for (func::FuncOp f :
         llvm::make_early_inc_range(parsed->getOps<func::FuncOp>())) {
      if (!f.isDeclaration() && !mpt::cpu::isRegisterBlock(f.getSymName())) {
        fn = f;
        continue;
      }
      if (!symbols.lookup(f.getSymName())) {
        f->remove();
        symbols.insert(f, module.getBody()->begin());
      }
    }
    fn->remove();
    fn.setSymName(name);
    symbols.insert(fn, module.getBody()->begin());
    return fn;
  }

  /// Multiply-adds of one kernel call of `op` (static shapes), or nullopt.
  static std::optional<int64_t> workPerCall(linalg::LinalgOp op,
                                            const ContractionPlan &plan) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t work = 1;
    for (unsigned dim : {plan.m, plan.n, plan.k}) {
      if (ShapedType::isDynamic(ranges[dim]))
        return std::nullopt;
      work *= ranges[dim];
    }
    return work;
  }

  /// Rewrites `op` into kernel calls; returns notes for the report.
  std::string lower(linalg::LinalgOp op, const ContractionPlan &plan,
                    func::FuncOp kernel, bool parallelBatch) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    // The bf16 kernels (AMX, AVX512-BF16) write C rounded to bf16 for C's
    // rounded reader.
    bool roundingKernel =
        plan.kernel == Kernel::AMX || plan.kernel == Kernel::AVX512BF16;
    std::optional<RoundedReader> reader;
    if (roundingKernel)
      reader = getRoundedReader(op);
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    // The dimensions of an operand in the kernel's order: (batch,) rows,
    // columns; an input without the batch dimension serves every batch.
    auto order = [&](AffineMap map, unsigned rows, unsigned cols) {
      SmallVector<unsigned> dims;
      if (plan.batch && map.getNumResults() == 3)
        dims.push_back(*plan.batch);
      dims.append({rows, cols});
      return dims;
    };
    Value a = permutedView(b, loc, op.getDpsInputOperand(0)->get(), maps[0],
                           order(maps[0], plan.m, plan.k));
    Value bv = permutedView(b, loc, op.getDpsInputOperand(1)->get(), maps[1],
                            order(maps[1], plan.k, plan.n));
    SmallVector<std::string> notes;
    // The AMX kernel packs a transposed input from its transpose (K x M for
    // A, N x K for B, row-major) as it is: no copy.
    bool transA = false, transB = false;
    auto rowMajor = [](Value view) {
      return cast<MemRefType>(view.getType()).isLastDimUnitStride();
    };
    // `view` (the operand viewed as rows x cols) or, when that is not
    // row-major but the cols x rows view is, the latter (`transposed` set).
    auto packable = [&](Value view, unsigned operand, unsigned rows,
                        unsigned cols, bool &transposed, StringRef name) {
      AffineMap map = maps[operand];
      Value swapped = permutedView(b, loc, op->getOperand(operand), map,
                                   order(map, cols, rows));
      Value unused = swapped;
      if (!rowMajor(view) && rowMajor(swapped)) {
        unused = view;
        view = swapped;
        transposed = true;
        notes.push_back((name + " is transposed: packed from its transpose")
                            .str());
      }
      if (Operation *def = unused.getDefiningOp(); def && unused.use_empty())
        def->erase();
      return view;
    };
    if (plan.kernel == Kernel::AMX) {
      a = packable(a, 0, plan.m, plan.k, transA, "A");
      bv = packable(bv, 1, plan.k, plan.n, transB, "B");
    }
    Value c = permutedView(b, loc, op.getDpsInitOperand(0)->get(), maps[2],
                           order(maps[2], plan.m, plan.n));
    // The kernel reads rows with vector loads: a transposed input is copied
    // to a row-major buffer first (linalg.copy, later lowered to loops).
    SmallVector<Value> copies;
    auto contiguous = [&](Value view, StringRef name) -> Value {
      if (cast<MemRefType>(view.getType()).isLastDimUnitStride())
        return view;
      auto type = cast<MemRefType>(view.getType());
      SmallVector<Value> dynSizes;
      for (auto [i, size] : llvm::enumerate(type.getShape()))
        if (ShapedType::isDynamic(size))
          dynSizes.push_back(memref::DimOp::create(b, loc, view, i));
      Value buffer = memref::AllocOp::create(
          b, loc, MemRefType::get(type.getShape(), type.getElementType()),
          dynSizes);
      linalg::CopyOp::create(b, loc, view, buffer);
      copies.push_back(buffer);
      notes.push_back((name + " is transposed: copied to a row-major buffer "
                              "(scalar loops)")
                          .str());
      return buffer;
    };
    a = contiguous(a, "A");
    bv = contiguous(bv, "B");

    linalg::FillOp zeroFill = getZeroFillOfOutput(op, plan.k);
    if (zeroFill) {
      zeroFill->erase();
      notes.push_back("C's zero fill left to the kernel");
    }
    Value zeroC = arith::ConstantIntOp::create(b, loc, zeroFill ? 1 : 0, 1);
    SmallVector<Value> flags = {zeroC};
    Value d;
    if (plan.kernel == Kernel::AMX)
      flags.append({arith::ConstantIntOp::create(b, loc, transA, 1),
                    arith::ConstantIntOp::create(b, loc, transB, 1)});
    if (roundingKernel) {
      if (reader && reader->roundsOnly) {
        // D is indexed as C is (the rounding op's maps are identities),
        // once C's reshapes are undone.
        d = stripCasts(reader->op.getDpsInitOperand(0)->get());
        for (Operation *reshape : llvm::reverse(reader->reshapes))
          d = reshapeLike(b, loc, reshape, d, /*inverse=*/true);
        notes.push_back("its rounding to bf16 written by the kernel");
      } else if (reader) {
        // A bf16 buffer shaped as C, which the reader reads instead of C.
        auto cAlloc = stripCasts(op.getDpsInitOperand(0)->get())
                          .getDefiningOp<memref::AllocOp>();
        auto dAlloc = memref::AllocOp::create(
            b, loc,
            cast<MemRefType>(cAlloc.getType().clone(b.getBF16Type())),
            cAlloc.getDynamicSizes(), cAlloc.getAlignmentAttr());
        d = dAlloc.getResult();
        notes.push_back("C written rounded to bf16 for the op that reads it "
                        "rounded");
      }
      if (d)
        d = permutedView(b, loc, d, maps[2], order(maps[2], plan.m, plan.n));
    }
    auto call = [&](OpBuilder &cb, Value index) {
      SmallVector<Value> args = {matrixAt(cb, loc, a, index),
                                 matrixAt(cb, loc, bv, index),
                                 matrixAt(cb, loc, c, index)};
      args.append(flags);
      if (roundingKernel) {
        // Without a rounding, D is never read (toD = false).
        args.push_back(d ? matrixAt(cb, loc, d, index)
                         : ub::PoisonOp::create(
                               cb, loc, kernelArgType(cb.getBF16Type()))
                               .getResult());
        args.push_back(arith::ConstantIntOp::create(cb, loc, d ? 1 : 0, 1));
      }
      func::CallOp::create(cb, loc, kernel, args);
    };
    if (plan.batch) {
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      Value count = memref::DimOp::create(b, loc, c, 0);
      if (parallelBatch) {
        scf::ParallelOp::create(
            b, loc, ValueRange{zero}, ValueRange{count}, ValueRange{one},
            [&](OpBuilder &lb, Location, ValueRange ivs) {
              call(lb, ivs.front());
            });
        notes.push_back("one serial kernel call per batch element, the "
                        "batch in parallel");
      } else {
        scf::ForOp::create(b, loc, zero, count, one, ValueRange{},
                           [&](OpBuilder &lb, Location, Value iv, ValueRange) {
                             call(lb, iv);
                             scf::YieldOp::create(lb, loc);
                           });
        notes.push_back("one kernel call per batch element");
      }
    } else {
      call(b, Value());
    }
    for (Value buffer : copies)
      memref::DeallocOp::create(b, loc, buffer);
    // The kernels round in their last K block: with no K block (K = 0,
    // known only at run time), D is C rounded, which this op writes.
    int64_t staticK = op.getStaticLoopRanges()[plan.k];
    if (d && (ShapedType::isDynamic(staticK) || staticK == 0)) {
      Value k = linalg::createOrFoldDimOp(
          b, loc, op.getDpsInputOperand(0)->get(),
          *maps[0].getResultPosition(b.getAffineDimExpr(plan.k)));
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value empty =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, k, zero);
      scf::IfOp::create(b, loc, empty, [&](OpBuilder &ib, Location) {
        unsigned rank = cast<MemRefType>(c.getType()).getRank();
        AffineMap identity = ib.getMultiDimIdentityMap(rank);
        linalg::GenericOp::create(
            ib, loc, ValueRange{c}, ValueRange{d},
            ArrayRef<AffineMap>{identity, identity},
            SmallVector<utils::IteratorType>(rank,
                                             utils::IteratorType::parallel),
            [](OpBuilder &gb, Location gl, ValueRange args) {
              Value rounded = arith::TruncFOp::create(gb, gl, gb.getBF16Type(),
                                                      args[0]);
              linalg::YieldOp::create(gb, gl, rounded);
            });
        scf::YieldOp::create(ib, loc);
      });
    }
    if (reader && reader->roundsOnly) {
      reader->op->erase();
    } else if (reader) {
      // The reader reads the bf16 copy: its truncations become the copy's
      // elements, which are the same values.
      Value copy = stripViews(d);
      BlockArgument arg = reader->op.getMatchingBlockArgument(reader->operand);
      OpBuilder before(reader->op);
      Value copyView = copy;
      for (Operation *reshape : reader->reshapes)
        copyView = reshapeLike(before, loc, reshape, copyView,
                               /*inverse=*/false);
      reader->operand->set(copyView);
      arg.setType(b.getBF16Type());
      for (Operation *truncf : llvm::make_early_inc_range(arg.getUsers())) {
        truncf->getResult(0).replaceAllUsesWith(arg);
        truncf->erase();
      }
      OpBuilder after(reader->op->getContext());
      after.setInsertionPointAfter(reader->op);
      memref::DeallocOp::create(after, loc, copy);
    }
    op->erase();
    return llvm::join(notes, "; ");
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    mpt::ReportFormat reportAs = format;
    FailureOr<std::shared_ptr<mpt::ReportOutput>> reportOutput =
        mpt::openReportWithAliases(module.getLoc(), getArgument(), output,
                                   reportAs, report, reportFormat);
    if (failed(reportOutput))
      return signalPassFailure();

    // Contractions, and convolutions so that the report says where they go.
    SmallVector<linalg::LinalgOp> candidates;
    module.walk([&](linalg::LinalgOp op) {
      if (linalg::isaContractionOpInterface(op) ||
          isa<linalg::ConvolutionOpInterface>(op.getOperation()))
        candidates.push_back(op);
    });

    SymbolTable symbols(module);
    std::vector<Entry> entries;
    for (linalg::LinalgOp op : candidates) {
      Entry entry{mpt::formatLocation(op.getLoc()),
                  op->getName().getStringRef().str(), describe(op)};
      std::string whyNot;
      std::optional<ContractionPlan> plan;
      if (isa<linalg::ConvolutionOpInterface>(op.getOperation()))
        whyNot =
            isa<linalg::DepthwiseConv2DNchwChwOp, linalg::Conv2DNgchwGfchwOp>(
                op.getOperation())
                ? "convolution: no kernel; --mpt-vectorize-cpu-loops "
                  "runs it along its output rows"
                : "convolution: no kernel yet (scalar loops)";
      else
        plan = classify(op, Targets{amx, avx512, avx512bf16, avx2}, whyNot);
      if (!plan) {
        ++numWithoutKernel;
        entry.detail = whyNot;
        entries.push_back(std::move(entry));
        continue;
      }
      // In parallel: a batch is spread over the threads, one serial kernel
      // call per element; a single call forks inside the kernel, unless it
      // is too small to pay for a fork and join.
      std::optional<int64_t> work = workPerCall(op, *plan);
      int64_t batch =
          plan->batch ? op.getStaticLoopRanges()[*plan->batch] : 1;
      // parallel-min-work counts AMX multiply-adds; the AVX512-BF16,
      // AVX-512 and AVX2 kernels do a quarter, an eighth and a sixteenth as
      // many in the same time (bench/cpu/bench.py, 1024^3), and a call of
      // theirs pays for a fork at as many fewer.
      int64_t minWork =
          parallelMinWork / (plan->kernel == Kernel::AMX          ? 1
                             : plan->kernel == Kernel::AVX512BF16 ? 4
                             : plan->kernel == Kernel::AVX512     ? 8
                                                                  : 16);
      bool small =
          work && !ShapedType::isDynamic(batch) && *work * batch < minWork;
      bool parallelBatch = parallel && plan->batch && !small;
      bool parallelKernel = parallel && !plan->batch && !small;
      FailureOr<func::FuncOp> kernel =
          getOrInsertKernel(module, symbols, *plan, parallelKernel);
      if (failed(kernel))
        return signalPassFailure();
      std::string notes = lower(op, *plan, *kernel, parallelBatch);
      if (parallel && small)
        notes += std::string(notes.empty() ? "" : "; ") +
                 "serial: fewer than parallel-min-work multiply-adds";
      ++(plan->kernel == Kernel::AMX          ? numAmx
         : plan->kernel == Kernel::AVX512BF16 ? numAvx512Bf16
         : plan->kernel == Kernel::AVX512     ? numAvx512
                                              : numAvx2);
      entry.lowered = true;
      entry.detail = "@" + kernel->getSymName().str() + " (" +
                     describeKernel(plan->kernel).str() +
                     (notes.empty() ? "" : "; " + notes) + ")";
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
    int64_t lowered =
        llvm::count_if(entries, [](const Entry &e) { return e.lowered; });
    if (format == mpt::ReportFormat::Json) {
      llvm::json::Array list;
      for (const Entry &e : entries) {
        llvm::json::Object o{
            {"location", e.location}, {"op", e.op}, {"lowered", e.lowered}};
        if (!e.shape.empty())
          o["shape"] = e.shape;
        o[e.lowered ? "kernel" : "reason"] = e.detail;
        list.push_back(std::move(o));
      }
      llvm::json::Object root{
          {"amx", amx.getValue()},
          {"avx512", avx512.getValue()},
          {"avx512bf16", avx512bf16.getValue()},
          {"avx2", avx2.getValue()},
          {"lowered", lowered},
          {"not_lowered", static_cast<int64_t>(entries.size()) - lowered},
          {"contractions", std::move(list)}};
      mpt::writeJson(os, std::move(root));
      return;
    }
    os << "CPU kernels (" << (amx ? "amx" : "no amx") << ", "
       << (avx512 ? "avx512" : "no avx512")
       << (avx512bf16 ? ", avx512bf16" : "")
       << (avx2 && !avx512 ? ", avx2" : "") << "): " << lowered << " of "
       << entries.size() << " contractions lowered\n";
    for (const Entry &e : entries) {
      os << "  " << e.location << ": " << e.op;
      if (!e.shape.empty())
        os << " " << e.shape;
      os << (e.lowered ? ": " : ": left as is: ") << e.detail
         << "\n";
    }
  }
};

} // namespace
