//===- SplitDeallocs.cpp - one dealloc per independent buffer -------------===//
//
// Upstream's SplitDeallocWhenNotAliasingAnyOther asks isSameAllocation for
// every pair of a dealloc's memrefs (and every memref against every retained
// value); each query recomputes both values' origins. This pass computes each
// operand's origins once and decides for all memrefs together with counts, so
// it is linear in the size of the dealloc. The decision rule is the one of
// BufferOriginAnalysis::isSameAllocation.
//
//===----------------------------------------------------------------------===//
#include "mpt/Conversion/CPUPasses.h"

#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mpt {
#define GEN_PASS_DEF_SPLITDEALLOCS
#include "mpt/Conversion/CPUPasses.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// Where a buffer can come from: the terminal buffers the view flow analysis
/// traces it back to, and what kind they are.
struct Origin {
  SmallVector<Value, 2> terminals;
  /// Every terminal is the result of an allocation.
  bool onlyAllocations = true;
  /// Every terminal is an allocation or an argument of the function.
  bool onlyAllocationsOrArguments = true;
};

bool isAllocation(Value value) {
  Operation *op = value.getDefiningOp();
  return op && hasEffect<MemoryEffects::Allocate>(op, value);
}

bool isFunctionArgument(Value value) {
  auto argument = dyn_cast<BlockArgument>(value);
  if (!argument)
    return false;
  auto function =
      dyn_cast<FunctionOpInterface>(argument.getOwner()->getParentOp());
  return function && argument.getOwner() == &function.getFunctionBody().front();
}

/// The value a chain of views starts from (as BufferOriginAnalysis skips it).
Value viewBase(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>()) {
    if (value != view.getViewDest())
      break;
    value = view.getViewSource();
  }
  return value;
}

struct SplitDeallocsPass : mpt::impl::SplitDeallocsBase<SplitDeallocsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SmallVector<bufferization::DeallocOp> deallocs;
    func.walk([&](bufferization::DeallocOp op) {
      if (op.getMemrefs().size() > 1)
        deallocs.push_back(op);
    });
    if (deallocs.empty())
      return;
    BufferViewFlowAnalysis analysis(func);
    DenseMap<Value, Origin> origins;
    auto originOf = [&](Value value) -> const Origin & {
      Value base = viewBase(value);
      if (auto it = origins.find(base); it != origins.end())
        return it->second;
      Origin origin;
      for (Value source : analysis.resolveReverse(base)) {
        if (!isa<BaseMemRefType>(source.getType()) ||
            !analysis.mayBeTerminalBuffer(source))
          continue;
        origin.terminals.push_back(source);
        bool allocation = isAllocation(source);
        origin.onlyAllocations &= allocation;
        origin.onlyAllocationsOrArguments &=
            allocation || isFunctionArgument(source);
      }
      if (origin.terminals.empty())
        origin.onlyAllocations = origin.onlyAllocationsOrArguments = false;
      return origins.try_emplace(base, std::move(origin)).first->second;
    };
    for (bufferization::DeallocOp dealloc : deallocs)
      split(dealloc, originOf);
  }

  template <typename OriginOf>
  void split(bufferization::DeallocOp dealloc, OriginOf &originOf) {
    // How many memrefs reach each terminal; a memref listed twice counts
    // twice (it aliases itself).
    DenseMap<Value, unsigned> memrefsPerTerminal;
    unsigned unknownMemrefs = 0;
    for (Value memref : dealloc.getMemrefs()) {
      const Origin &origin = originOf(memref);
      unknownMemrefs += !origin.onlyAllocationsOrArguments;
      for (Value terminal : origin.terminals)
        ++memrefsPerTerminal[terminal];
    }
    // A memref unrelated to a retained value must still not alias one whose
    // origin is unknown: then nothing can be split off without a retain list.
    DenseSet<Value> retainedTerminals;
    for (Value retained : dealloc.getRetained()) {
      const Origin &origin = originOf(retained);
      if (!origin.onlyAllocationsOrArguments)
        return;
      retainedTerminals.insert(origin.terminals.begin(),
                               origin.terminals.end());
    }
    // isSameAllocation(other, memref) is false for a memref of allocations
    // only exactly when `other` comes from allocations or arguments and
    // shares no terminal with it.
    if (unknownMemrefs != 0)
      return;

    SmallVector<Value> keptMemrefs, keptConditions;
    OpBuilder builder(dealloc);
    for (auto [memref, condition] :
         llvm::zip_equal(dealloc.getMemrefs(), dealloc.getConditions())) {
      const Origin &origin = originOf(memref);
      bool independent =
          origin.onlyAllocations &&
          llvm::all_of(origin.terminals, [&](Value terminal) {
            return memrefsPerTerminal.lookup(terminal) == 1 &&
                   !retainedTerminals.contains(terminal);
          });
      if (!independent) {
        keptMemrefs.push_back(memref);
        keptConditions.push_back(condition);
        continue;
      }
      bufferization::DeallocOp::create(builder, dealloc.getLoc(),
                                       ValueRange{memref},
                                       ValueRange{condition}, ValueRange{});
    }
    if (keptMemrefs.size() == dealloc.getMemrefs().size())
      return;
    // The results only depend on the memrefs that may alias a retained
    // value, which all stay.
    dealloc.getMemrefsMutable().assign(keptMemrefs);
    dealloc.getConditionsMutable().assign(keptConditions);
  }
};
} // namespace
