//===- RegionFlow.h - values carried across region boundaries --*- C++ -*-===//
//
// What a region-branch op (scf.for, scf.if, scf.while, scf.execute_region,
// any op with RegionBranchOpInterface) forwards into its regions and results,
// read through the interface once for every analysis and rewrite that needs
// it (TrainingGraph's dependence graph, PrecisionPlan's carried values and
// AutocastRewrite's retyping), so that no op is handled by hand.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_ANALYSIS_REGIONFLOW_H
#define MPT_ANALYSIS_REGIONFLOW_H

#include "mlir/IR/Value.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mpt {

/// Values of a region-branch op that one set of operands flows into, so
/// they must share one type: an scf.for's iter_arg and result, an scf.if's
/// result, an scf.while's `before` argument, or its `after` argument and
/// result.
struct CarriedGroup {
  /// Successor inputs: region arguments first, then results, each in order.
  llvm::SmallVector<mlir::Value, 2> members;
  /// The operands forwarded into the members, entry operands (an scf.for's
  /// init) before terminator operands (its yield), in region order.
  llvm::SmallVector<mlir::OpOperand *, 2> sources;

  /// The members that are region arguments / results of the op.
  llvm::SmallVector<mlir::BlockArgument, 2> getRegionArguments() const;
  llvm::SmallVector<mlir::OpResult, 1> getResults() const;
  /// The sources that are operands of the op itself (not of a terminator).
  llvm::SmallVector<mlir::OpOperand *, 1> getEntrySources() const;
  /// The sources that are operands of the op's regions' terminators.
  llvm::SmallVector<mlir::OpOperand *, 2> getTerminatorSources() const;
  /// The number that names the group in reports: its result's number, else
  /// its first region argument's.
  unsigned getNumber() const;
  /// "#N" for a group with a result, "#N (region R argument)" for one of
  /// region arguments only (an scf.while's `before` argument).
  std::string getLabel() const;
};

/// Calls `fn(source, input)` for every operand that `op` or one of its
/// regions' terminators forwards, with the successor input (region argument
/// or result) it flows into: the op's entry operands first, then the
/// terminators' in region order.
void forEachForwarded(
    mlir::RegionBranchOpInterface op,
    llvm::function_ref<void(mlir::OpOperand &source, mlir::Value input)> fn);

/// Whether the interface says where every value of `op` comes from: every
/// terminator of its regions forwards through RegionBranchTerminatorOpInterface
/// and every result is fed (scf.for, scf.if, scf.while, scf.execute_region;
/// not scf.forall, whose results come from tensor.parallel_insert_slice).
bool isFullyForwarding(mlir::RegionBranchOpInterface op);

/// The carried groups of `op`, in the order of their first member.
llvm::SmallVector<CarriedGroup>
getCarriedGroups(mlir::RegionBranchOpInterface op);

/// The values control flow in `op` depends on: its operands that are not
/// forwarded (loop bounds, an scf.if condition) and its terminators' (the
/// scf.while condition), each with the values it decides: region arguments
/// and results. Calls `fn(control, decided)` once per pair.
void forEachControlDependence(
    mlir::RegionBranchOpInterface op,
    llvm::function_ref<void(mlir::Value control, mlir::Value decided)> fn);

} // namespace mpt

#endif // MPT_ANALYSIS_REGIONFLOW_H
