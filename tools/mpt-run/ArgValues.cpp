//===- ArgValues.cpp - where each argument's value comes from -------------===//
#include "ArgValues.h"
#include "MpiRuntime.h"
#include "RunError.h"

#include <cmath>
#include <random>

using namespace mlir;
using namespace mpt;

/// Checks that `array` holds a value of `arg` (`batched`: a stack of values
/// along a leading axis of any length, as --data gives them).
static llvm::Error checkMatches(const ArgInfo &arg, unsigned index,
                                const HostArray &array, bool batched,
                                const Twine &source) {
  ArrayRef<int64_t> dims = array.shape;
  bool ok = array.kind == arg.kind;
  if (batched)
    ok = ok && !dims.empty() && dims.drop_front() == ArrayRef(arg.shape);
  else
    ok = ok && dims == ArrayRef(arg.shape);
  if (ok)
    return llvm::Error::success();
  HostArray expected = HostArray::zeros(arg.kind, arg.shape);
  std::string want = expected.describe();
  if (batched)
    want = (arg.shape.empty() ? "(N," : "(N, ") + want.substr(1);
  return runError(source + " is " + array.describe() + " but " +
                  arg.describe(index) + " needs " + want + " (" +
                  arg.typeString() + ")");
}

static void initialiseParam(HostArray &array, std::mt19937_64 &rng) {
  // Kaiming-uniform for ReLU networks: U(-b, b), b = sqrt(6 / fan_in), with
  // fan_in the product of all dimensions but the last (the [in, out] and
  // HWCF layouts of the examples). Vectors (biases) start at zero.
  if (array.shape.size() < 2 || array.getNumElements() == 0)
    return;
  int64_t fanIn = array.getNumElements() / array.shape.back();
  double bound = std::sqrt(6.0 / static_cast<double>(fanIn));
  for (int64_t i = 0, e = array.getNumElements(); i < e; ++i) {
    // 53 random bits -> [0, 1), spelled out so the values do not depend on
    // the standard library's distributions.
    double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    array.setFromDouble(i, (2.0 * u - 1.0) * bound);
  }
}

llvm::Expected<ArgValues> mpt::gatherArgValues(const StepSignature &sig,
                                               const ArgSources &sources,
                                               MpiJob *mpiJob) {
  unsigned numArgs = sig.args.size();
  SmallVector<std::optional<HostArray>> given(numArgs);
  SmallVector<std::string> givenBy(numArgs);
  ArgValues values;

  // Later sources override earlier ones, in this order: --inputs files (in
  // the order given), --input, --data, --hparam. So a hyperparameter saved
  // in an .npz (mpt-run --save, the importer's init.npz) can be changed by
  // name, and --data replaces what an initial-state file holds for the
  // data. One name given twice by --hparam is an error: two values in one
  // flag family are a typo, not an override.
  SmallVector<bool> givenByHparam(numArgs, false);
  auto give = [&](unsigned index, HostArray array, const std::string &source,
                  bool byHparam = false) {
    values.batches.erase(index);
    given[index] = std::move(array);
    givenBy[index] = source;
    givenByHparam[index] = byHparam;
  };

  for (const std::string &path : sources.inputFiles) {
    auto arrays = readNpzFile(path);
    if (!arrays)
      return arrays.takeError();
    for (auto &[key, array] : *arrays) {
      std::string source = path + ":" + key;
      std::optional<unsigned> index = lookupArg(sig, key);
      if (!index)
        return runError(source + " matches no argument of @" + sig.funcName);
      if (llvm::Error err = checkMatches(sig.args[*index], *index, array,
                                         /*batched=*/false, source))
        return std::move(err);
      give(*index, std::move(array), source);
    }
  }
  for (StringRef spec : sources.inputArrays) {
    auto [key, path] = spec.split('=');
    if (path.empty())
      return runError("--input expects name=file.npy, got '" + spec + "'");
    std::optional<unsigned> index = lookupArg(sig, key);
    if (!index)
      return runError("--input " + spec + ": '" + key +
                      "' matches no argument of @" + sig.funcName);
    auto array = readNpyFile(path);
    if (!array)
      return array.takeError();
    if (llvm::Error err = checkMatches(sig.args[*index], *index, *array,
                                       /*batched=*/false, path))
      return std::move(err);
    give(*index, std::move(*array), path.str());
  }
  if (!sources.dataFile.empty()) {
    auto arrays = readNpzFile(sources.dataFile);
    if (!arrays)
      return arrays.takeError();
    std::string firstKey;
    for (auto &[key, array] : *arrays) {
      std::string source = sources.dataFile + ":" + key;
      std::optional<unsigned> index = lookupArg(sig, key);
      if (!index)
        return runError(source + " matches no argument of @" + sig.funcName);
      const ArgInfo &arg = sig.args[*index];
      if (mpiJob && arg.role == ArgRole::Data && !arg.shape.empty()) {
        auto shard = mpiJob->takeShard(array, arg.shape.front(), source,
                                       arg.describe(*index));
        if (!shard)
          return shard.takeError();
        array = std::move(*shard);
      }
      if (llvm::Error err =
              checkMatches(arg, *index, array, /*batched=*/true, source))
        return std::move(err);
      if (values.numBatches == 0) {
        values.numBatches = array.shape.front();
        firstKey = key;
      } else if (array.shape.front() != values.numBatches) {
        return runError(source + " has " + Twine(array.shape.front()) +
                        " batches but " + sources.dataFile + ":" + firstKey +
                        " has " + Twine(values.numBatches));
      }
      given[*index].reset();
      if (array.shape.front() == 0)
        return runError(source + " holds no batch");
      values.batches.emplace(*index, std::move(array));
      givenBy[*index] = source;
    }
  }
  for (StringRef spec : sources.hparams) {
    auto [key, text] = spec.split('=');
    double value;
    if (text.empty() || text.trim().getAsDouble(value))
      return runError("--hparam expects name=number, got '" + spec + "'");
    std::optional<unsigned> index = lookupArg(sig, key);
    if (!index)
      return runError("--hparam " + spec + ": '" + key +
                      "' matches no argument of @" + sig.funcName);
    const ArgInfo &arg = sig.args[*index];
    if (arg.role != ArgRole::Hyperparameter)
      return runError("--hparam " + spec + ": " + arg.describe(*index) +
                      " is not a hyperparameter");
    if (std::string why = checkRepresentable(arg.kind, value); !why.empty())
      return runError("--hparam " + spec + ": " + why + " (" +
                      arg.describe(*index) + " is " + arg.typeString() + ")");
    HostArray array = HostArray::zeros(arg.kind, arg.shape);
    for (int64_t i = 0, e = array.getNumElements(); i < e; ++i)
      array.setFromDouble(i, value);
    std::string source = "--hparam " + spec.str();
    if (givenByHparam[*index])
      return runError(arg.describe(*index) + " is given twice: by " +
                      givenBy[*index] + " and by " + source);
    give(*index, std::move(array), source, /*byHparam=*/true);
  }

  std::optional<uint64_t> seed;
  if (!sources.initSpec.empty()) {
    StringRef spec = sources.initSpec;
    uint64_t value;
    if (!spec.consume_front("seed:") || spec.getAsInteger(10, value))
      return runError("--init expects seed:N, got '" + sources.initSpec + "'");
    seed = value;
  }
  std::mt19937_64 rng(seed.value_or(0));

  values.current.resize(numArgs);
  for (unsigned i = 0; i < numArgs; ++i) {
    const ArgInfo &arg = sig.args[i];
    if (values.batches.count(i)) {
      values.current[i] = HostArray::zeros(arg.kind, arg.shape);
      continue;
    }
    if (given[i]) {
      values.current[i] = std::move(*given[i]);
      continue;
    }
    HostArray array = HostArray::zeros(arg.kind, arg.shape);
    if (arg.workingCopyOf && *arg.workingCopyOf < i) {
      // A master-weights working copy starts as its parameter's value
      // rounded to its type (docs/Autocast.md), however the parameter was
      // given.
      const HostArray &master = values.current[*arg.workingCopyOf];
      for (int64_t k = 0, e = array.getNumElements(); k < e; ++k)
        array.setFromDouble(k, master.getAsDouble(k));
    } else if (arg.role == ArgRole::RngState && (arg.initialValue || seed)) {
      // [seed, offset]: the generator starts at offset 0 of its seed.
      array.setFromDouble(0, arg.initialValue ? *arg.initialValue
                                              : static_cast<double>(*seed));
    } else if (arg.initialValue) {
      for (int64_t k = 0, e = array.getNumElements(); k < e; ++k)
        array.setFromDouble(k, *arg.initialValue);
    } else if (seed && arg.role == ArgRole::Param) {
      initialiseParam(array, rng);
    } else if (seed && arg.role == ArgRole::OptimizerState) {
      // zeros
    } else if (seed && arg.role == ArgRole::LossGrad) {
      // dL/dL = 1
      for (int64_t k = 0, e = array.getNumElements(); k < e; ++k)
        array.setFromDouble(k, 1.0);
    } else {
      std::string how = arg.role == ArgRole::Hyperparameter
                            ? "--hparam " + arg.name + "=VALUE or --inputs"
                        : arg.role == ArgRole::Data ? "--data or --inputs"
                                                    : "--inputs or --init";
      return runError(arg.describe(i) + " has no value: give it with " + how);
    }
    values.current[i] = std::move(array);
  }
  return values;
}
