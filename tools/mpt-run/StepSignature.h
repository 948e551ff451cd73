//===- StepSignature.h - what mpt-run needs to know of a step ---*- C++ -*-===//
//
// The step function mpt-run runs (findStep) and its signature as the host
// sees it (analyseStep): each argument's name, role, element kind and shape,
// which result updates it, the loss, the loss-scaling state and the guards.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_TOOLS_MPT_RUN_STEPSIGNATURE_H
#define MPT_TOOLS_MPT_RUN_STEPSIGNATURE_H

#include "NpyIO.h"

#include "mpt/IR/TrainingContract.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mpt {

struct ArgInfo {
  std::string name;
  std::optional<ArgRole> role;
  ElementKind kind;
  llvm::SmallVector<int64_t> shape;
  std::optional<double> initialValue;
  /// Index of the result that updates this argument.
  std::optional<unsigned> updatedBy;
  /// A master-weights working copy: its f32 parameter's index
  /// (mpt.working_copy_of).
  std::optional<unsigned> workingCopyOf;

  /// "argument 'w1' (#0, param)".
  std::string describe(unsigned index) const;
  /// "tensor<4x8xf32>".
  std::string typeString() const;
};

struct ResultInfo {
  ElementKind kind;
  llvm::SmallVector<int64_t> shape;
  std::optional<unsigned> updates;
  /// A guard's message (mpt.role = "guard"): the step is only the program it
  /// was built as while this result is true.
  std::optional<std::string> guard;
};

struct StepSignature {
  std::string funcName;
  llvm::SmallVector<ArgInfo> args;
  llvm::SmallVector<ResultInfo> results;
  unsigned lossResult;
  std::optional<unsigned> lossScaleArg, trackerArg;
};

/// The function to run: `entryName` when given, else the only function with
/// a loss result (`inputFilename` names the file in the errors).
llvm::Expected<mlir::func::FuncOp> findStep(mlir::ModuleOp module,
                                            llvm::StringRef entryName,
                                            llvm::StringRef inputFilename);

/// The SSA name an argument has in the source (`%w1` -> "w1"), read back
/// from the source text at the argument's location; "argN" otherwise.
std::string getArgName(mlir::BlockArgument arg, llvm::SourceMgr &sourceMgr);

/// Checks the step against the contract and what mpt-run can execute
/// (`argNames`: the arguments' names). Failures are diagnostics on `func`.
/// `lintWarnings`: also warn of the contract's likely mistakes (off for a
/// step --passes rewrote: its source was checked, and a lowered step, its
/// gradient markers gone, would look like one that forgot them).
mlir::FailureOr<StepSignature> analyseStep(mlir::func::FuncOp func,
                                           llvm::ArrayRef<std::string> argNames,
                                           bool lintWarnings = true);

/// The index of the argument `key` names: its name, "argN" or "N".
std::optional<unsigned> lookupArg(const StepSignature &sig,
                                  llvm::StringRef key);

/// Why `value` cannot be stored in an element of `kind` exactly enough:
/// integers must be integral and in range (a cast would wrap); empty when
/// it can.
std::string checkRepresentable(ElementKind kind, double value);

} // namespace mpt

#endif // MPT_TOOLS_MPT_RUN_STEPSIGNATURE_H
