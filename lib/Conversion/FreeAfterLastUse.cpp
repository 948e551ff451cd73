//===- FreeAfterLastUse.cpp - free each buffer right after its last use ---===//
//
// upstream optimize-allocation-liveness, with op positions computed once per
// block instead of by isBeforeInBlock after every move (which renumbers the
// block each time a dealloc moved).
//
//===----------------------------------------------------------------------===//
#include "mpt/Conversion/CPUPasses.h"

#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mpt {
#define GEN_PASS_DEF_FREEAFTERLASTUSE
#include "mpt/Conversion/CPUPasses.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// The one result `op` allocates, or null (none, several).
Value allocatedValue(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return {};
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  Value allocated;
  bool allocates = false;
  unsigned results = 0;
  for (const MemoryEffects::EffectInstance &instance : instances) {
    if (!isa<MemoryEffects::Allocate>(instance.getEffect()))
      continue;
    allocates = true;
    if (Value value = instance.getValue(); value && value.getDefiningOp() == op) {
      allocated = value;
      ++results;
    }
  }
  return allocates && results == 1 ? allocated : Value();
}

/// The single user of `value` that frees memory, or null (none, several).
Operation *singleFreeingUser(Value value) {
  Operation *freeing = nullptr;
  for (Operation *user : value.getUsers()) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(user);
    if (!effects)
      continue;
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &instance : instances) {
      if (!isa<MemoryEffects::Free>(instance.getEffect()))
        continue;
      if (freeing)
        return nullptr;
      freeing = user;
    }
  }
  return freeing;
}

struct FreeAfterLastUsePass
    : mpt::impl::FreeAfterLastUseBase<FreeAfterLastUsePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SmallVector<std::pair<Operation *, Value>> allocations;
    func.walk([&](Operation *op) {
      if (Value allocated = allocatedValue(op))
        allocations.push_back({op, allocated});
    });
    if (allocations.empty())
      return;

    BufferViewFlowAnalysis analysis(func);
    // Positions in steps of 2, numbered once per block: a moved free takes
    // the odd position after its new predecessor, so the order stays right
    // without renumbering.
    DenseMap<Operation *, uint64_t> position;
    DenseSet<Block *> numbered;
    auto positionOf = [&](Operation *op) {
      Block *block = op->getBlock();
      if (numbered.insert(block).second) {
        uint64_t next = 0;
        for (Operation &inBlock : *block) {
          position[&inBlock] = next;
          next += 2;
        }
      }
      return position.lookup(op);
    };

    for (auto [allocation, allocated] : allocations) {
      Operation *free = singleFreeingUser(allocated);
      Block *block = allocation->getBlock();
      if (!free || free->getBlock() != block)
        continue;
      Operation *lastUser = nullptr;
      bool usedOutsideBlock = false;
      for (Value alias : analysis.resolve(allocated)) {
        for (Operation *user : alias.getUsers()) {
          if (user == free)
            continue;
          Operation *inBlock = block->findAncestorOpInBlock(*user);
          if (!inBlock) {
            usedOutsideBlock = true;
            break;
          }
          if (!lastUser || positionOf(lastUser) < positionOf(inBlock))
            lastUser = inBlock;
        }
        if (usedOutsideBlock)
          break;
      }
      if (!lastUser || usedOutsideBlock)
        continue;
      free->moveAfter(lastUser);
      // Number the block before the first move (lastUser did), then keep
      // the moved op's position by hand.
      position[free] = positionOf(lastUser) + 1;
    }
  }
};
} // namespace
