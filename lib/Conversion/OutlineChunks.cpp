//===- OutlineChunks.cpp - a long function body as calls of bounded ones --===//
//
// A single-block function of more than max-ops ops becomes a list of calls
// of private noinline functions ("chunks") of at most max-ops ops each. The
// chunks are formed in one pass over the block and each op is moved, and
// each use visited, a bounded number of times: linear in the function.
//
//===----------------------------------------------------------------------===//
#include "mpt/Conversion/CPUPasses.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mpt {
#define GEN_PASS_DEF_OUTLINECHUNKS
#include "mpt/Conversion/CPUPasses.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// A constant a chunk clones rather than takes as an argument.
bool isClonableConstant(Operation *op) {
  return op->hasTrait<OpTrait::ConstantLike>() && op->getNumOperands() == 0 &&
         op->getNumRegions() == 0 && op->getNumResults() == 1;
}

/// Whether `op` allocates on the stack of its function (memref.alloca), or
/// holds an op that does outside a nested allocation scope: moved into a
/// chunk, the buffer would be freed when the chunk returns.
bool allocatesOnStack(Operation *op) {
  return op
      ->walk<WalkOrder::PreOrder>([&](Operation *inner) {
        if (inner != op && inner->hasTrait<OpTrait::AutomaticAllocationScope>())
          return WalkResult::skip();
        auto iface = dyn_cast<MemoryEffectOpInterface>(inner);
        if (!iface)
          return WalkResult::advance();
        SmallVector<MemoryEffects::EffectInstance> effects;
        iface.getEffects(effects);
        for (const MemoryEffects::EffectInstance &effect : effects)
          if (isa<MemoryEffects::Allocate>(effect.getEffect()) &&
              effect.getResource() ==
                  SideEffects::AutomaticAllocationScopeResource::get())
            return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

unsigned countOps(Operation *op) {
  unsigned n = 0;
  op->walk([&](Operation *) { ++n; });
  return n;
}

struct OutlineChunksPass : mpt::impl::OutlineChunksBase<OutlineChunksPass> {
  using OutlineChunksBase::OutlineChunksBase;

  void runOnOperation() override {
    if (maxOps == 0) {
      getOperation().emitError("mpt-outline-chunks: max-ops must be positive");
      return signalPassFailure();
    }
    SymbolTable symbols(getOperation());
    SmallVector<func::FuncOp> functions;
    // Public functions only (the steps): the private ones are the pipeline's
    // kernels and outlined ops, whose loops are meant to stay together.
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (!fn.isExternal() && !fn.isPrivate() && fn.getBody().hasOneBlock())
        functions.push_back(fn);
    for (func::FuncOp fn : functions)
      splitFunction(fn, symbols);
  }

  void splitFunction(func::FuncOp fn, SymbolTable &symbols) {
    Block &body = fn.front();
    // Chunks of consecutive ops; constants stay in `fn` (each chunk clones
    // the ones it uses), stack allocations stay and end a chunk.
    SmallVector<SmallVector<Operation *>> chunks(1);
    SmallVector<unsigned> chunkSizes(1, 0);
    unsigned totalOps = 0;
    for (Operation &op : body.without_terminator()) {
      if (isClonableConstant(&op))
        continue;
      unsigned size = countOps(&op);
      totalOps += size;
      bool stays = allocatesOnStack(&op);
      if (stays ||
          (!chunks.back().empty() && chunkSizes.back() + size > maxOps)) {
        chunks.emplace_back();
        chunkSizes.push_back(0);
      }
      if (stays)
        continue;
      chunks.back().push_back(&op);
      chunkSizes.back() += size;
    }
    if (totalOps <= maxOps)
      return;
    unsigned index = 0;
    Operation *after = fn;
    // A chunk of a single op without regions would only add a call.
    for (auto [chunk, size] : llvm::zip_equal(chunks, chunkSizes))
      if (size >= 2)
        after = outlineChunk(fn, chunk, index++, after, symbols);
    for (Operation &op : llvm::make_early_inc_range(body.without_terminator()))
      if (isClonableConstant(&op) && op.use_empty())
        op.erase();
  }

  /// Moves `chunk` into a new function placed after `after`; returns it.
  func::FuncOp outlineChunk(func::FuncOp parent, ArrayRef<Operation *> chunk,
                            unsigned index, Operation *after,
                            SymbolTable &symbols) {
    Block &body = parent.front();
    Location loc = chunk.front()->getLoc();
    OpBuilder b(parent);
    b.setInsertionPointAfter(after);
    auto fn = func::FuncOp::create(
        b, loc, (parent.getSymName() + "_chunk" + Twine(index)).str(),
        b.getFunctionType({}, {}));
    symbols.insert(fn);
    fn.setPrivate();
    // Called once, LLVM would inline it back (see mpt-outline-linalg-ops).
    // "mpt-chunk": mpt-run's quick code passes a chunk's values through
    // memory (tools/mpt-run/ChunkFrames.h).
    fn->setAttr("passthrough", b.getArrayAttr({b.getStringAttr("noinline"),
                                               b.getStringAttr("mpt-chunk")}));
    // Internal to the LLVM module (func-to-llvm keeps private functions
    // external): LLVM then drops the arguments a chunk does not use and the
    // results no one reads, and propagates constant ones (static sizes and
    // strides of the memref descriptors) into it.
    fn->setAttr("llvm.linkage", LLVM::LinkageAttr::get(
                                    b.getContext(), LLVM::Linkage::Internal));
    Block *entry = fn.addEntryBlock();

    // Values from before the chunk become arguments (constants: clones).
    llvm::SmallPtrSet<Operation *, 32> inChunk(chunk.begin(), chunk.end());
    auto definedInChunk = [&](Value v) {
      if (Operation *def = v.getDefiningOp())
        return def->getBlock() != &body || inChunk.contains(def);
      return cast<BlockArgument>(v).getOwner() != &body;
    };
    DenseMap<Value, Value> inside;
    SmallVector<Value> arguments;
    OpBuilder constants = OpBuilder::atBlockEnd(entry);
    for (Operation *op : chunk)
      op->walk([&](Operation *user) {
        for (OpOperand &operand : user->getOpOperands()) {
          Value v = operand.get();
          if (definedInChunk(v))
            continue;
          Value &mapped = inside[v];
          if (!mapped) {
            Operation *def = v.getDefiningOp();
            if (def && isClonableConstant(def)) {
              mapped = constants.clone(*def)->getResult(0);
            } else {
              mapped = entry->addArgument(v.getType(), v.getLoc());
              arguments.push_back(v);
            }
          }
          operand.set(mapped);
        }
      });

    Operation *next = chunk.back()->getNextNode();
    for (Operation *op : chunk)
      op->moveBefore(entry, entry->end());

    // Values used after the chunk become results.
    SmallVector<Value> results;
    for (Operation *op : chunk)
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              return !fn->isProperAncestor(user);
            }))
          results.push_back(result);
    OpBuilder end = OpBuilder::atBlockEnd(entry);
    func::ReturnOp::create(end, loc, results);
    fn.setFunctionType(b.getFunctionType(entry->getArgumentTypes(),
                                         ValueRange(results).getTypes()));

    b.setInsertionPoint(next);
    auto call = func::CallOp::create(b, loc, fn, arguments);
    for (auto [result, replacement] :
         llvm::zip_equal(results, call.getResults()))
      result.replaceUsesWithIf(replacement, [&](OpOperand &use) {
        return !fn->isProperAncestor(use.getOwner());
      });
    return fn;
  }
};

} // namespace
