//===- ArgValues.h - where each argument's value comes from -----*- C++ -*-===//
//
// The step's argument values from --inputs, --input, --data, --hparam and
// --init (docs/Running.md), checked against the signature.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_TOOLS_MPT_RUN_ARGVALUES_H
#define MPT_TOOLS_MPT_RUN_ARGVALUES_H

#include "NpyIO.h"
#include "StepSignature.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>

namespace mpt {

class MpiJob;

/// The options that give argument values.
struct ArgSources {
  /// --inputs: .npz files of values keyed by argument name.
  llvm::ArrayRef<std::string> inputFiles;
  /// --input: name=file.npy.
  llvm::ArrayRef<std::string> inputArrays;
  /// --data: an .npz of stacked batches (empty: none).
  std::string dataFile;
  /// --hparam: name=value.
  llvm::ArrayRef<std::string> hparams;
  /// --init: seed:N (empty: none).
  std::string initSpec;
};

struct ArgValues {
  /// The current value of every argument.
  llvm::SmallVector<HostArray> current;
  /// For arguments fed from --data: the batches, stacked.
  std::map<unsigned, HostArray> batches;
  int64_t numBatches = 0;
};

/// Every argument's value, from `sources` (later ones override earlier
/// ones). `mpiJob`: the data-parallel job whose rank takes its shard of the
/// data batches, or null.
llvm::Expected<ArgValues> gatherArgValues(const StepSignature &sig,
                                          const ArgSources &sources,
                                          MpiJob *mpiJob);

} // namespace mpt

#endif // MPT_TOOLS_MPT_RUN_ARGVALUES_H
