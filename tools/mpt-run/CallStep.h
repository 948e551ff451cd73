//===- CallStep.h - calling the compiled step -------------------*- C++ -*-===//
//
// One call of the compiled step through its C interface: memref descriptors
// for the arguments and results, the updated arguments' buffers kept from
// one step to the next, and what the step allocated (AllocationCounter.h).
//
//===----------------------------------------------------------------------===//
#ifndef MPT_TOOLS_MPT_RUN_CALLSTEP_H
#define MPT_TOOLS_MPT_RUN_CALLSTEP_H

#include "AllocationCounter.h"
#include "NpyIO.h"
#include "StepSignature.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <memory>

namespace mpt {

struct StepOutputs {
  /// The results that update no argument; those that do are in the
  /// argument's buffer (UpdatedArguments), and their entry here is empty.
  llvm::SmallVector<HostArray> results;
  StepMemory memory;
};

/// The buffers of the arguments the step updates (parameters, optimizer
/// state, loss scale), kept from the first step to the last: a step lowered
/// with update-in-place writes its new values into them and returns them, so
/// that the state does not travel through the host every step (copying a
/// GPT block's parameters and AdamW moments in and out cost more than a
/// tenth of its bf16 step). A result that is a new buffer is copied back.
class UpdatedArguments {
public:
  /// The buffers, holding `initial`'s values; an error when out of memory.
  static llvm::Expected<std::unique_ptr<UpdatedArguments>>
  create(const StepSignature &sig, const llvm::SmallVector<HostArray> &initial);
  UpdatedArguments(const UpdatedArguments &) = delete;
  UpdatedArguments &operator=(const UpdatedArguments &) = delete;
  ~UpdatedArguments();
  /// The buffer of argument `i`, or null if the step does not update it.
  void *getBuffer(unsigned i) const { return buffers[i]; }
  bool isBuffer(const void *p) const;
  /// Element 0 of argument `i` (a scalar of the state: scale, tracker).
  double getScalar(unsigned i) const;
  /// The current values of the updated arguments into `values`.
  void copyTo(llvm::SmallVector<HostArray> &values) const;

private:
  explicit UpdatedArguments(const StepSignature &sig);
  const StepSignature &sig;
  llvm::SmallVector<void *> buffers;
};

/// Runs the step once on `args` (the updated ones in `updated`).
llvm::Expected<StepOutputs> callStep(void (*entry)(void **),
                                     const StepSignature &sig,
                                     const llvm::SmallVector<HostArray> &args,
                                     UpdatedArguments &updated);

} // namespace mpt

#endif // MPT_TOOLS_MPT_RUN_CALLSTEP_H
