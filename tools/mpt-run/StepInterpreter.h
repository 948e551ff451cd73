//===- StepInterpreter.h - the first steps without compiling ----*- C++ -*-===//
//
// A small model's first step takes PyTorch tens of milliseconds; compiling
// it takes mpt seconds (docs/CompileTime.md), most of them in passes and
// LLVM that no change to a JIT removes. So mpt-run can run the first steps
// (--interpreted-steps) on the step's tensor-level IR (--mpt-lower-to-cpu's
// passes up to bufferization) in this interpreter while the step compiles
// on another thread: every linalg op is a loop over its iteration space
// whose body is decoded once into instructions that each process a column
// of elements (a parallel loop of the op), tensors are strided views of
// shared buffers, written in place at their last use.
//
// The interpreter computes what the IR says, op by op, rounding each result
// to its type as the compiled code does, and sums in the loops' order; the
// compiled step's kernels sum in blocks, so the two agree to within
// rounding, not bit for bit (test/mpt-run/interpreted-steps.test).
//
//===----------------------------------------------------------------------===//
#ifndef MPT_TOOLS_MPT_RUN_STEPINTERPRETER_H
#define MPT_TOOLS_MPT_RUN_STEPINTERPRETER_H

#include "CallStep.h"
#include "StepSignature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/Support/Error.h"

#include <memory>

namespace mpt {

class StepInterpreter {
public:
  /// Decodes `func` (tensor-level IR: linalg, tensor, arith, math, scf on
  /// static shapes). An error names the first op it cannot run. `func` must
  /// outlive the interpreter.
  static llvm::Expected<std::unique_ptr<StepInterpreter>>
  create(mlir::func::FuncOp func);
  ~StepInterpreter();

  /// The iterations of the step's loop bodies (the work of one step), and
  /// those of its multiply-adds (convolutions, matmuls: quicker).
  double getIterations() const;
  double getMultiplyAddIterations() const;

  /// Runs the step once, as callStep does: new values of the updated
  /// arguments go into `updated`'s buffers, the other results are returned.
  llvm::Expected<StepOutputs> run(const StepSignature &sig,
                                  const llvm::SmallVector<HostArray> &args,
                                  UpdatedArguments &updated);

  class Impl;

private:
  explicit StepInterpreter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
  int numRuns = 0;
};

/// The first steps of a run in the interpreter (--interpreted-steps).
struct InterpretedSteps {
  /// The step at tensor level, a copy the interpreter reads.
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::unique_ptr<StepInterpreter> interpreter;
  /// How many first steps it runs (0: none; then the rest is empty).
  unsigned steps = 0;
  /// Under auto, what the choice was made on (for --timing), or empty.
  std::string decision;
};

/// Under --interpreted-steps=auto, a step is a candidate when it has at
/// least this many operations before lowering: about half a second of
/// compiling, which is already 10x-100x PyTorch eager's first step on such a
/// model (the bundled GPT block: 1400 ops, 1 s compiled, its first step
/// interpreted in 2 ms; MobileNetV3-small: 14000, ResNet-18: 4900; the
/// bundled MLP and CNN steps: 130-220, compiled at once).
constexpr unsigned kInterpretMinOps = 1000;

/// Decides how many of `numSteps` first steps of `module`'s `funcName` run
/// in the interpreter, and prepares it: --interpreted-steps=N asks for N
/// (a step the interpreter cannot run is then a warning, and none is);
/// auto (the default) for one step when the step is large and the
/// interpreter's estimate of its work is small next to compiling it.
/// `excessPrecision`: the lowering's option of that name. `allowed`: false
/// where the first steps must run compiled code (an MPI job, --memory).
llvm::Expected<InterpretedSteps>
prepareInterpretedSteps(mlir::ModuleOp module, llvm::StringRef funcName,
                        unsigned numSteps, bool excessPrecision, bool allowed);

} // namespace mpt

#endif // MPT_TOOLS_MPT_RUN_STEPINTERPRETER_H
