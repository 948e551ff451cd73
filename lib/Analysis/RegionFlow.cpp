//===- RegionFlow.cpp - values carried across region boundaries -----------===//
#include "mpt/Analysis/RegionFlow.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mpt;

/// Each region-branch terminator of `op`'s regions with the successors it
/// may branch to.
static void forEachTerminator(
    RegionBranchOpInterface op,
    llvm::function_ref<void(RegionBranchTerminatorOpInterface,
                            ArrayRef<RegionSuccessor>)>
        fn) {
  SmallVector<RegionSuccessor> successors;
  for (Region &region : op->getRegions())
    for (Block &block : region) {
      auto terminator =
          dyn_cast<RegionBranchTerminatorOpInterface>(block.getTerminator());
      if (!terminator)
        continue;
      successors.clear();
      op.getSuccessorRegions(RegionBranchPoint(terminator), successors);
      fn(terminator, successors);
    }
}

void mpt::forEachForwarded(RegionBranchOpInterface op,
                           llvm::function_ref<void(OpOperand &, Value)> fn) {
  SmallVector<RegionSuccessor> successors;
  op.getSuccessorRegions(RegionBranchPoint::parent(), successors);
  for (const RegionSuccessor &successor : successors) {
    OperandRange operands = op.getEntrySuccessorOperands(successor);
    // An empty range has no operand to number (scf.if forwards nothing).
    if (operands.empty())
      continue;
    unsigned begin = operands.getBeginOperandIndex();
    for (auto [i, input] : llvm::enumerate(successor.getSuccessorInputs()))
      if (i < operands.size())
        fn(op->getOpOperand(begin + i), input);
  }
  forEachTerminator(op, [&](RegionBranchTerminatorOpInterface terminator,
                            ArrayRef<RegionSuccessor> successors) {
    for (const RegionSuccessor &successor : successors) {
      MutableOperandRange operands =
          terminator.getMutableSuccessorOperands(successor);
      for (auto [i, input] : llvm::enumerate(successor.getSuccessorInputs()))
        if (i < operands.size())
          fn(operands[i], input);
    }
  });
}

SmallVector<CarriedGroup> mpt::getCarriedGroups(RegionBranchOpInterface op) {
  // Members fed by a common operand share a type: one group.
  llvm::MapVector<Value, SmallVector<OpOperand *, 2>> sourcesOf;
  llvm::DenseMap<OpOperand *, Value> firstInputOf;
  llvm::EquivalenceClasses<void *> same;
  forEachForwarded(op, [&](OpOperand &source, Value input) {
    SmallVector<OpOperand *, 2> &sources = sourcesOf[input];
    if (!llvm::is_contained(sources, &source))
      sources.push_back(&source);
    same.insert(input.getAsOpaquePointer());
    auto [it, inserted] = firstInputOf.try_emplace(&source, input);
    if (!inserted)
      same.unionSets(it->second.getAsOpaquePointer(),
                     input.getAsOpaquePointer());
  });

  // Members in order: region arguments by region, then results.
  SmallVector<Value> inputs;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument arg : block.getArguments())
        if (sourcesOf.count(arg))
          inputs.push_back(arg);
  for (OpResult result : op->getResults())
    if (sourcesOf.count(result))
      inputs.push_back(result);

  SmallVector<CarriedGroup> groups;
  llvm::DenseMap<void *, unsigned> groupOf;
  for (Value input : inputs) {
    void *leader = same.getLeaderValue(input.getAsOpaquePointer());
    auto [it, inserted] = groupOf.try_emplace(leader, groups.size());
    if (inserted)
      groups.emplace_back();
    groups[it->second].members.push_back(input);
  }
  // Sources in the order they are forwarded (entry operands first).
  forEachForwarded(op, [&](OpOperand &source, Value input) {
    CarriedGroup &group =
        groups[groupOf.lookup(same.getLeaderValue(input.getAsOpaquePointer()))];
    if (!llvm::is_contained(group.sources, &source))
      group.sources.push_back(&source);
  });
  return groups;
}

bool mpt::isFullyForwarding(RegionBranchOpInterface op) {
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (!isa<RegionBranchTerminatorOpInterface>(block.getTerminator()))
        return false;
  llvm::DenseSet<Value> fed;
  forEachForwarded(op, [&](OpOperand &, Value input) { fed.insert(input); });
  return llvm::all_of(op->getResults(),
                      [&](Value result) { return fed.contains(result); });
}

void mpt::forEachControlDependence(
    RegionBranchOpInterface op,
    llvm::function_ref<void(Value control, Value decided)> fn) {
  llvm::DenseSet<OpOperand *> forwarded;
  llvm::DenseSet<Value> fed;
  forEachForwarded(op, [&](OpOperand &source, Value input) {
    forwarded.insert(&source);
    fed.insert(input);
  });
  // The op's own operands that are not forwarded (bounds, conditions)
  // decide its results and the region arguments no operand feeds (an
  // induction variable).
  for (OpOperand &operand : op->getOpOperands()) {
    if (forwarded.contains(&operand))
      continue;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (!fed.contains(arg))
            fn(operand.get(), arg);
    for (OpResult result : op->getResults())
      fn(operand.get(), result);
  }
  // A terminator's operands that are not forwarded (scf.condition's
  // condition) decide the inputs of its successors.
  forEachTerminator(op, [&](RegionBranchTerminatorOpInterface terminator,
                            ArrayRef<RegionSuccessor> successors) {
    for (OpOperand &operand : terminator->getOpOperands()) {
      if (forwarded.contains(&operand))
        continue;
      for (const RegionSuccessor &successor : successors)
        for (Value input : successor.getSuccessorInputs())
          fn(operand.get(), input);
    }
  });
}

SmallVector<BlockArgument, 2> CarriedGroup::getRegionArguments() const {
  SmallVector<BlockArgument, 2> args;
  for (Value member : members)
    if (auto arg = dyn_cast<BlockArgument>(member))
      args.push_back(arg);
  return args;
}

SmallVector<OpResult, 1> CarriedGroup::getResults() const {
  SmallVector<OpResult, 1> results;
  for (Value member : members)
    if (auto result = dyn_cast<OpResult>(member))
      results.push_back(result);
  return results;
}

SmallVector<OpOperand *, 1> CarriedGroup::getEntrySources() const {
  SmallVector<OpOperand *, 1> entry;
  Value first = members.front();
  Operation *owner = isa<OpResult>(first)
                         ? first.getDefiningOp()
                         : cast<BlockArgument>(first).getOwner()->getParentOp();
  for (OpOperand *source : sources)
    if (source->getOwner() == owner)
      entry.push_back(source);
  return entry;
}

SmallVector<OpOperand *, 2> CarriedGroup::getTerminatorSources() const {
  SmallVector<OpOperand *, 2> terminators;
  SmallVector<OpOperand *, 1> entry = getEntrySources();
  for (OpOperand *source : sources)
    if (!llvm::is_contained(entry, source))
      terminators.push_back(source);
  return terminators;
}

unsigned CarriedGroup::getNumber() const {
  SmallVector<OpResult, 1> results = getResults();
  if (!results.empty())
    return results.front().getResultNumber();
  return getRegionArguments().front().getArgNumber();
}

std::string CarriedGroup::getLabel() const {
  std::string label = "#" + std::to_string(getNumber());
  if (getResults().empty())
    label +=
        " (region " +
        std::to_string(
            getRegionArguments().front().getParentRegion()->getRegionNumber()) +
        " argument)";
  return label;
}
