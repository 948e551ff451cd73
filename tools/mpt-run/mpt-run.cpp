//===- mpt-run.cpp - run training steps on the CPU ------------------------===//
//
// Loads a training step written to the contract (docs/TrainingGraphContract.md),
// optionally runs passes on it (--passes), lowers it with
// --mpt-lower-to-cpu, JIT-compiles it with MLIR's ExecutionEngine and runs it
// for N steps, feeding every `mpt.updates` result back into its argument.
// docs/Running.md is the user documentation.
//
//===----------------------------------------------------------------------===//
#include "AllocationCounter.h"
#include "CPUPath.h"
#include "CompileProgress.h"
#include "LargeBlocks.h"
#include "MpiRuntime.h"
#include "NpyIO.h"
#include "ObjectCache.h"
#include "Options.h"
#include "StepTimer.h"

#include "mpt/Analysis/ReportUtils.h"
#include "mpt/Analysis/TrainingGraph.h"
#include "mpt/IR/MPTDialect.h"
#include "mpt/IR/MPTOps.h"
#include "mpt/IR/TrainingContract.h"
#include "mpt/InitAll.h"
#include "mpt/Pipelines/LowerToCPU.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/IPO/Internalize.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <unistd.h>

using namespace mlir;
using namespace mpt;
namespace cl = llvm::cl;

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<step.mlir>"),
                                          cl::init("-"),
                                          cl::cat(getRunCategory()));
static cl::opt<std::string>
    entryName("entry", cl::desc("The step function (default: the only "
                                "function with a loss result)"),
              cl::value_desc("name"), cl::cat(getRunCategory()));
static cl::opt<std::string> prePasses(
    "passes",
    cl::desc("Pass pipeline to run on the module before lowering, as for "
             "mpt-opt --pass-pipeline (the builtin.module(...) wrapper may "
             "be left out), e.g. 'func.func(mpt-strip-training-markers)'"),
    cl::value_desc("pipeline"), cl::cat(getRunCategory()));
static cl::opt<unsigned> numSteps("steps", cl::desc("Steps to run"),
                                  cl::init(1), cl::cat(getRunCategory()));
static cl::list<std::string>
    inputFiles("inputs",
               cl::desc("A .npz file of argument values keyed by argument "
                        "name, 'argN' or 'N' (repeatable)"),
               cl::value_desc("file.npz"), cl::cat(getRunCategory()));
static cl::list<std::string>
    inputArrays("input",
                cl::desc("One argument's value from a .npy file (repeatable)"),
                cl::value_desc("name=file.npy"), cl::cat(getRunCategory()));
static cl::opt<std::string> dataFile(
    "data",
    cl::desc("A .npz file of data batches: each entry is an argument's value "
             "with a leading batch axis; step i uses batch i mod N"),
    cl::value_desc("file.npz"), cl::cat(getRunCategory()));
static cl::opt<std::string> initSpec(
    "init",
    cl::desc("Initialise arguments no file gives: 'seed:N' (parameters "
             "Kaiming-uniform, optimizer state zeros, loss_grad ones, "
             "rng_state [N, 0])"),
    cl::value_desc("seed:N"), cl::cat(getRunCategory()));
static cl::list<std::string>
    hparams("hparam", cl::desc("A hyperparameter's value (repeatable)"),
            cl::value_desc("name=value"), cl::cat(getRunCategory()));
static cl::opt<std::string> logFile("log",
                                    cl::desc("Per-step log file ('-': stdout)"),
                                    cl::value_desc("file"), cl::init("-"),
                                    cl::cat(getRunCategory()));
static cl::opt<std::string> logFormat("log-format",
                                      cl::desc("Log format: csv or jsonl"),
                                      cl::init("csv"),
                                      cl::cat(getRunCategory()));
static cl::opt<std::string>
    saveFile("save",
             cl::desc("Write the final value of every updated argument "
                      "(parameters, optimizer state, loss scale) to a .npz"),
             cl::value_desc("file.npz"), cl::cat(getRunCategory()));
static cl::opt<unsigned> optLevel("O", cl::desc("JIT optimisation level 0-3"),
                                  cl::init(2), cl::Prefix,
                                  cl::cat(getRunCategory()));
static cl::opt<unsigned> chunkOps(
    "chunk-ops",
    cl::desc("Compile the step as functions of at most this many ops "
             "(--mpt-lower-to-cpu's chunk-ops; 0: one function). Changes "
             "compile time only, not results"),
    cl::init(256), cl::cat(getRunCategory()));
static cl::list<std::string> sharedLibs(
    "shared-libs",
    cl::desc("Libraries the JIT-compiled step may call (default: MLIR's "
             "C runner utilities, for f16/bf16 conversion helpers)"),
    cl::CommaSeparated, cl::cat(getRunCategory()));
static cl::opt<bool> stopOnNonfinite(
    "stop-on-nonfinite",
    cl::desc("Stop with an error at the first NaN or infinite loss (without "
             "it, mpt-run warns once and goes on)"),
    cl::cat(getRunCategory()));
static cl::opt<bool> perfJitdump(
    "perf-jitdump",
    cl::desc("Write perf jitdump files of the compiled step (for perf "
             "record; they go to $JITDUMPDIR/.debug/jit or $HOME/.debug/jit)"),
    cl::cat(getRunCategory()));
static cl::opt<bool> memoryReport(
    "memory",
    cl::desc("Report the heap bytes the compiled step allocates (peak per "
             "step and over the run, caller-owned apart) on stderr and in "
             "the log (docs/Memory.md)"),
    cl::cat(getRunCategory()));
static cl::opt<bool> cacheReport(
    "cache-report",
    cl::desc("Say on stderr whether the compiled step came from the cache"),
    cl::cat(getRunCategory()));
static cl::opt<bool> noProgress("no-progress",
                                cl::desc("No progress line on a terminal"),
                                cl::cat(getRunCategory()));

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

namespace {
/// Remembers the first pass that failed, so that a failed pipeline is
/// reported with the pass and the op it ran on, not just "failed".
struct FailedPassRecorder : public PassInstrumentation {
  std::string *where;
  explicit FailedPassRecorder(std::string *where) : where(where) {}
  void runAfterPassFailed(Pass *pass, Operation *op) override {
    if (!where->empty())
      return;
    *where = ("in pass '" + pass->getArgument() + "' on '" +
              op->getName().getStringRef() + "'")
                 .str();
    if (auto symbol = dyn_cast<SymbolOpInterface>(op))
      *where += " @" + symbol.getName().str();
    *where += " (" + formatLocation(op->getLoc()) + ")";
  }
};
} // namespace

/// Runs `pm` on `module`; on failure, the first failed pass and its op.
static LogicalResult runRecordingFailure(PassManager &pm, ModuleOp module,
                                         std::string &where) {
  pm.addInstrumentation(std::make_unique<FailedPassRecorder>(&where));
  return pm.run(module);
}

/// Reports an error that ends the run: one line on stderr, exit code 1.
[[noreturn]] static void fail(const llvm::Twine &message) {
  if (mpt::getLauncherWorldSize() > 1)
    mpt::failInJob(message); // once per job, with the rank (MpiRuntime.h)
  llvm::errs() << "mpt-run: error: " << message << "\n";
  std::exit(1);
}

/// The MPI job, under a launcher or when the step is data-parallel
/// (docs/Distributed.md).
static mpt::MpiJob *mpiJob = nullptr;
/// A rank other than 0's first error diagnostic (it prints none).
static std::string firstRankError;

//===----------------------------------------------------------------------===//
// The step's signature
//===----------------------------------------------------------------------===//

namespace {
struct ArgInfo {
  std::string name;
  std::optional<ArgRole> role;
  ElementKind kind;
  SmallVector<int64_t> shape;
  std::optional<double> initialValue;
  /// Index of the result that updates this argument.
  std::optional<unsigned> updatedBy;

  std::string describe(unsigned index) const {
    std::string s = "argument '" + name + "' (#" + std::to_string(index);
    if (role)
      s += ", " + stringifyArgRole(*role).str();
    return s + ")";
  }
  std::string typeString() const {
    std::string s = "tensor<";
    for (int64_t d : shape)
      s += std::to_string(d) + "x";
    return s + getElementName(kind).str() + ">";
  }
};

struct ResultInfo {
  ElementKind kind;
  SmallVector<int64_t> shape;
  std::optional<unsigned> updates;
  /// A guard's message (mpt.role = "guard"): the step is only the program it
  /// was built as while this result is true.
  std::optional<std::string> guard;
};

struct StepSignature {
  std::string funcName;
  SmallVector<ArgInfo> args;
  SmallVector<ResultInfo> results;
  unsigned lossResult;
  std::optional<unsigned> lossScaleArg, trackerArg;
};
} // namespace

static std::optional<ElementKind> getElementKind(Type type) {
  if (type.isF32())
    return ElementKind::F32;
  if (type.isF16())
    return ElementKind::F16;
  if (type.isBF16())
    return ElementKind::BF16;
  if (type.isSignlessInteger(32))
    return ElementKind::I32;
  if (type.isSignlessInteger(64))
    return ElementKind::I64;
  if (type.isSignlessInteger(1))
    return ElementKind::I1;
  return std::nullopt;
}

/// The kind and shape of a step argument or result, or a diagnostic.
static FailureOr<std::pair<ElementKind, SmallVector<int64_t>>>
checkBoundaryType(func::FuncOp func, Type type, const Twine &what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::optional<ElementKind> kind;
  if (tensor && tensor.hasStaticShape())
    kind = getElementKind(tensor.getElementType());
  if (!kind) {
    func.emitError() << what << " has type " << type
                     << "; mpt-run needs ranked tensors with static shapes of "
                        "f32, f16, bf16, i32, i64 or i1";
    return failure();
  }
  // Host buffers are allocated for every argument and result: a size that
  // does not fit, or exceeds the machine's memory, is refused here.
  std::optional<int64_t> bytes = getByteSize(*kind, tensor.getShape());
  static const int64_t physicalMemory =
      static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  if (!bytes || (physicalMemory > 0 && *bytes > physicalMemory)) {
    func.emitError() << what << " has type " << type << ", "
                     << (bytes ? std::to_string(*bytes) + " bytes"
                               : std::string("more than 2^63 bytes"))
                     << ": more than this machine's memory";
    return failure();
  }
  return std::make_pair(*kind, SmallVector<int64_t>(tensor.getShape()));
}

/// Why `value` cannot be stored in an element of `kind` exactly enough:
/// integers must be integral and in range (a cast would wrap); empty when
/// it can.
static std::string checkRepresentable(ElementKind kind, double value) {
  double lowest, highest;
  switch (kind) {
  case ElementKind::I32:
    lowest = -0x1p31, highest = 0x1p31 - 1;
    break;
  case ElementKind::I64:
    // The largest double below 2^63.
    lowest = -0x1p63, highest = 0x1.fffffffffffffp62;
    break;
  default:
    return "";
  }
  if (!std::isfinite(value) || value != std::trunc(value) || value < lowest ||
      value > highest) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.9g", value);
    return std::string(text) + " is not an " + getElementName(kind).str() +
           " integer value";
  }
  return "";
}

/// The SSA name an argument has in the source (`%w1` -> "w1"), read back
/// from the source text at the argument's location; "argN" otherwise.
static std::string getArgName(BlockArgument arg, llvm::SourceMgr &sourceMgr) {
  std::string fallback = "arg" + std::to_string(arg.getArgNumber());
  // `%name: type loc("name")`, as a printer with name locations writes it.
  if (auto name = dyn_cast<NameLoc>(arg.getLoc()))
    return name.getName().str();
  auto loc = dyn_cast<FileLineColLoc>(arg.getLoc());
  if (!loc || sourceMgr.getNumBuffers() == 0)
    return fallback;
  llvm::SMLoc at = sourceMgr.FindLocForLineAndColumn(
      sourceMgr.getMainFileID(), loc.getLine(), loc.getColumn());
  if (!at.isValid())
    return fallback;
  StringRef text(at.getPointer(),
                 sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
                         ->getBufferEnd() -
                     at.getPointer());
  if (!text.consume_front("%"))
    return fallback;
  size_t n = 0;
  while (n < text.size() &&
         (llvm::isAlnum(text[n]) || StringRef("_$.-").contains(text[n])))
    ++n;
  return n ? text.substr(0, n).str() : fallback;
}

static func::FuncOp findStep(ModuleOp module) {
  SmallVector<func::FuncOp> candidates;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    if (!entryName.empty()) {
      if (func.getSymName() == entryName)
        return func;
      continue;
    }
    for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
      if (isLossResult(func, i)) {
        candidates.push_back(func);
        break;
      }
  }
  if (!entryName.empty())
    fail("no function named '" + entryName + "' in " + inputFilename);
  if (candidates.empty())
    fail("no function in " + inputFilename +
         " has a result marked mpt.role = \"loss\"; mpt-run runs training "
         "steps written to the contract (docs/TrainingGraphContract.md)");
  if (candidates.size() > 1)
    fail("several functions have a loss result; choose one with --entry");
  return candidates.front();
}

/// Checks the step against the contract and what mpt-run can execute;
/// diagnostics go to the handler, which reports them as errors.
static FailureOr<StepSignature>
analyseStep(func::FuncOp func, ArrayRef<std::string> argNames) {
  TrainingGraph graph(func);
  if (!graph.isValid())
    return failure();
  StepSignature sig;
  sig.funcName = func.getSymName().str();
  std::optional<unsigned> loss = graph.getLossResultIndex();
  if (!loss) {
    func.emitError() << "the step has no result marked mpt.role = \"loss\"";
    return failure();
  }
  sig.lossResult = *loss;

  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    ArgInfo info;
    info.name = i < argNames.size() ? argNames[i] : "arg" + std::to_string(i);
    info.role = getArgRole(func, i);
    auto kindShape = checkBoundaryType(
        func, func.getArgument(i).getType(),
        "argument #" + Twine(i) + " ('" + info.name + "')");
    if (failed(kindShape))
      return failure();
    std::tie(info.kind, info.shape) = *kindShape;
    if (auto attr = func.getArgAttr(i, "mpt.initial_value")) {
      if (auto f = dyn_cast<FloatAttr>(attr))
        info.initialValue = f.getValueAsDouble();
      else
        info.initialValue =
            static_cast<double>(cast<IntegerAttr>(attr).getInt());
      if (std::string why = checkRepresentable(info.kind, *info.initialValue);
          !why.empty()) {
        func.emitError() << "argument #" << i << " ('" << info.name
                         << "'): mpt.initial_value " << why;
        return failure();
      }
    }
    if (info.role == ArgRole::LossScale)
      sig.lossScaleArg = i;
    if (info.role == ArgRole::LossScaleGrowthTracker)
      sig.trackerArg = i;
    sig.args.push_back(std::move(info));
  }
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i) {
    ResultInfo info;
    auto kindShape = checkBoundaryType(func, func.getResultTypes()[i],
                                       "result #" + Twine(i));
    if (failed(kindShape))
      return failure();
    std::tie(info.kind, info.shape) = *kindShape;
    info.updates = getUpdatedArg(func, i);
    if (auto role = func.getResultAttrOfType<StringAttr>(i, "mpt.role");
        role && role.getValue() == "guard")
      info.guard =
          func.getResultAttrOfType<StringAttr>(i, "mpt.message").str();
    if (info.updates)
      sig.args[*info.updates].updatedBy = i;
    sig.results.push_back(std::move(info));
  }
  const ResultInfo &lossInfo = sig.results[sig.lossResult];
  if (lossInfo.kind != ElementKind::F32 && lossInfo.kind != ElementKind::F16 &&
      lossInfo.kind != ElementKind::BF16) {
    func.emitError() << "the loss (result #" << sig.lossResult
                     << ") must be a floating-point tensor";
    return failure();
  }
  if (llvm::any_of(lossInfo.shape, [](int64_t d) { return d != 1; })) {
    func.emitError() << "the loss (result #" << sig.lossResult
                     << ") must hold one element to be logged";
    return failure();
  }
  return sig;
}

//===----------------------------------------------------------------------===//
// Argument values
//===----------------------------------------------------------------------===//

namespace {
/// Where each argument's value comes from.
struct ArgValues {
  /// The current value of every argument.
  SmallVector<HostArray> current;
  /// For arguments fed from --data: the batches, stacked.
  std::map<unsigned, HostArray> batches;
  int64_t numBatches = 0;
};
} // namespace

/// The index of the argument `key` names: its name, "argN" or "N".
static std::optional<unsigned> lookupArg(const StepSignature &sig,
                                         StringRef key) {
  for (auto [i, arg] : llvm::enumerate(sig.args))
    if (arg.name == key)
      return i;
  unsigned index;
  StringRef digits = key;
  digits.consume_front("arg");
  if (!digits.getAsInteger(10, index) && index < sig.args.size())
    return index;
  return std::nullopt;
}

/// Checks that `array` holds a value of `arg` (`batched`: a stack of values
/// along a leading axis of any length, as --data gives them).
static void checkMatches(const ArgInfo &arg, unsigned index,
                         const HostArray &array, bool batched,
                         const Twine &source) {
  ArrayRef<int64_t> dims = array.shape;
  bool ok = array.kind == arg.kind;
  if (batched)
    ok = ok && !dims.empty() && dims.drop_front() == ArrayRef(arg.shape);
  else
    ok = ok && dims == ArrayRef(arg.shape);
  if (ok)
    return;
  HostArray expected = HostArray::zeros(arg.kind, arg.shape);
  std::string want = expected.describe();
  if (batched)
    want = (arg.shape.empty() ? "(N," : "(N, ") + want.substr(1);
  fail(source + " is " + array.describe() + " but " + arg.describe(index) +
       " needs " + want + " (" + arg.typeString() + ")");
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

static ArgValues gatherArgValues(const StepSignature &sig) {
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
    if (byHparam && givenByHparam[index])
      fail(sig.args[index].describe(index) + " is given twice: by " +
           givenBy[index] + " and by " + source);
    values.batches.erase(index);
    given[index] = std::move(array);
    givenBy[index] = source;
    givenByHparam[index] = byHparam;
  };

  for (const std::string &path : inputFiles) {
    auto arrays = readNpzFile(path);
    if (!arrays)
      fail(toString(arrays.takeError()));
    for (auto &[key, array] : *arrays) {
      std::string source = path + ":" + key;
      std::optional<unsigned> index = lookupArg(sig, key);
      if (!index)
        fail(source + " matches no argument of @" + sig.funcName);
      checkMatches(sig.args[*index], *index, array, /*batched=*/false, source);
      give(*index, std::move(array), source);
    }
  }
  for (StringRef spec : inputArrays) {
    auto [key, path] = spec.split('=');
    if (path.empty())
      fail("--input expects name=file.npy, got '" + spec + "'");
    std::optional<unsigned> index = lookupArg(sig, key);
    if (!index)
      fail("--input " + spec + ": '" + key + "' matches no argument of @" +
           sig.funcName);
    auto array = readNpyFile(path);
    if (!array)
      fail(toString(array.takeError()));
    checkMatches(sig.args[*index], *index, *array, /*batched=*/false, path);
    give(*index, std::move(*array), path.str());
  }
  if (!dataFile.empty()) {
    auto arrays = readNpzFile(dataFile);
    if (!arrays)
      fail(toString(arrays.takeError()));
    std::string firstKey;
    for (auto &[key, array] : *arrays) {
      std::string source = dataFile + ":" + key;
      std::optional<unsigned> index = lookupArg(sig, key);
      if (!index)
        fail(source + " matches no argument of @" + sig.funcName);
      const ArgInfo &arg = sig.args[*index];
      if (mpiJob && arg.role == ArgRole::Data && !arg.shape.empty())
        array = mpiJob->takeShard(array, arg.shape.front(), source,
                                  arg.describe(*index));
      checkMatches(arg, *index, array, /*batched=*/true, source);
      if (values.numBatches == 0) {
        values.numBatches = array.shape.front();
        firstKey = key;
      } else if (array.shape.front() != values.numBatches) {
        fail(source + " has " + Twine(array.shape.front()) +
             " batches but " + dataFile + ":" + firstKey + " has " +
             Twine(values.numBatches));
      }
      given[*index].reset();
      if (array.shape.front() == 0)
        fail(source + " holds no batch");
      values.batches.emplace(*index, std::move(array));
      givenBy[*index] = source;
    }
  }
  for (StringRef spec : hparams) {
    auto [key, text] = spec.split('=');
    double value;
    if (text.empty() || text.trim().getAsDouble(value))
      fail("--hparam expects name=number, got '" + spec + "'");
    std::optional<unsigned> index = lookupArg(sig, key);
    if (!index)
      fail("--hparam " + spec + ": '" + key + "' matches no argument of @" +
           sig.funcName);
    const ArgInfo &arg = sig.args[*index];
    if (arg.role != ArgRole::Hyperparameter)
      fail("--hparam " + spec + ": " + arg.describe(*index) +
           " is not a hyperparameter");
    if (std::string why = checkRepresentable(arg.kind, value); !why.empty())
      fail("--hparam " + spec + ": " + why + " (" + arg.describe(*index) +
           " is " + arg.typeString() + ")");
    HostArray array = HostArray::zeros(arg.kind, arg.shape);
    for (int64_t i = 0, e = array.getNumElements(); i < e; ++i)
      array.setFromDouble(i, value);
    give(*index, std::move(array), "--hparam " + spec.str(),
         /*byHparam=*/true);
  }

  std::optional<uint64_t> seed;
  if (!initSpec.empty()) {
    StringRef spec = initSpec;
    uint64_t value;
    if (!spec.consume_front("seed:") || spec.getAsInteger(10, value))
      fail("--init expects seed:N, got '" + initSpec + "'");
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
    if (arg.role == ArgRole::RngState && (arg.initialValue || seed)) {
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
      fail(arg.describe(i) + " has no value: give it with " + how);
    }
    values.current[i] = std::move(array);
  }
  return values;
}

//===----------------------------------------------------------------------===//
// Calling the compiled step
//===----------------------------------------------------------------------===//

/// The 8-byte words of a memref descriptor as the C interface lays it out:
/// {allocated, aligned, offset, sizes[rank], strides[rank]}.
static size_t getDescriptorWords(size_t rank) { return 3 + 2 * rank; }

static void *allocateCopy(const HostArray &array) {
  // Counted as the caller's; an empty tensor still gets a distinct pointer.
  void *buffer = getAllocationCounter().allocate(array.data.size(), 0,
                                                 BufferOwner::Caller);
  if (!buffer)
    fail("out of memory");
  // An empty vector's data() may be null, which memcpy must not get even
  // for 0 bytes (UBSan under -DMPT_SANITIZE).
  if (!array.data.empty())
    std::memcpy(buffer, array.data.data(), array.data.size());
  return buffer;
}

static void fillDescriptor(int64_t *words, void *buffer,
                           ArrayRef<int64_t> shape) {
  words[0] = reinterpret_cast<int64_t>(buffer);
  words[1] = reinterpret_cast<int64_t>(buffer);
  words[2] = 0;
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    words[3 + d] = shape[d];
    words[3 + shape.size() + d] = stride;
    stride *= shape[d];
  }
}

namespace {
struct StepOutputs {
  /// The results that update no argument; those that do are in the
  /// argument's buffer (UpdatedArguments), and their entry here is empty.
  SmallVector<HostArray> results;
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
  UpdatedArguments(const StepSignature &sig, const SmallVector<HostArray> &initial)
      : sig(sig), buffers(sig.args.size(), nullptr) {
    for (auto [i, arg] : llvm::enumerate(sig.args))
      if (arg.updatedBy)
        buffers[i] = allocateCopy(initial[i]);
  }
  UpdatedArguments(const UpdatedArguments &) = delete;
  UpdatedArguments &operator=(const UpdatedArguments &) = delete;
  ~UpdatedArguments() {
    for (void *buffer : buffers)
      if (buffer)
        getAllocationCounter().release(buffer);
  }
  /// The buffer of argument `i`, or null if the step does not update it.
  void *getBuffer(unsigned i) const { return buffers[i]; }
  bool isBuffer(const void *p) const { return llvm::is_contained(buffers, p); }
  /// Element 0 of argument `i` (a scalar of the state: scale, tracker).
  double getScalar(unsigned i) const {
    HostArray element = HostArray::zeros(sig.args[i].kind, {});
    std::memcpy(element.data.data(), buffers[i], element.data.size());
    return element.getAsDouble(0);
  }
  /// The current values of the updated arguments into `values`.
  void copyTo(SmallVector<HostArray> &values) const {
    for (auto [i, buffer] : llvm::enumerate(buffers))
      if (buffer && !values[i].data.empty())
        std::memcpy(values[i].data.data(), buffer, values[i].data.size());
  }

private:
  const StepSignature &sig;
  SmallVector<void *> buffers;
};
} // namespace

/// The start of the data of a returned memref descriptor (`words`: the C
/// interface's {allocated, aligned, offset, sizes, strides}), after checking
/// that it has the result's shape and an identity layout.
static uint8_t *getContiguousData(const int64_t *words, const ResultInfo &r) {
  int64_t stride = 1;
  for (size_t d = r.shape.size(); d-- > 0;) {
    if (words[3 + d] != r.shape[d] ||
        (r.shape[d] != 1 && words[3 + r.shape.size() + d] != stride))
      fail("the compiled step returned a non-contiguous or mis-shaped "
           "buffer; mpt-run expects --mpt-lower-to-cpu's identity layouts");
    stride *= r.shape[d];
  }
  return reinterpret_cast<uint8_t *>(words[1]) +
         words[2] * getElementSize(r.kind);
}

static StepOutputs callStep(void (*entry)(void **), const StepSignature &sig,
                            const SmallVector<HostArray> &args,
                            UpdatedArguments &updated) {
  // Arguments the step does not update are copied in every step: the
  // compiled step may write into its argument buffers (one-shot
  // bufferization reuses them in place), and data batches must stay intact
  // for the next cycle.
  SmallVector<void *> argBuffers, copiedArgs;
  SmallVector<SmallVector<int64_t>> argDescs;
  for (auto [i, info, array] : llvm::enumerate(sig.args, args)) {
    void *buffer = updated.getBuffer(i);
    if (!buffer)
      copiedArgs.push_back(buffer = allocateCopy(array));
    argBuffers.push_back(buffer);
    argDescs.emplace_back(getDescriptorWords(info.shape.size()));
    fillDescriptor(argDescs.back().data(), buffer, info.shape);
  }
  size_t resultWords = 0;
  for (const ResultInfo &r : sig.results)
    resultWords += getDescriptorWords(r.shape.size());
  SmallVector<int64_t> resultStruct(resultWords, 0);

  // _mlir_ciface_<f>(results*, arg0*, arg1*, ...) through the packed
  // wrapper: every entry points at one argument of the C interface.
  SmallVector<void *> pointers;
  pointers.push_back(resultStruct.data());
  for (auto &desc : argDescs)
    pointers.push_back(desc.data());
  SmallVector<void *> packed;
  for (void *&p : pointers)
    packed.push_back(&p);
  AllocationCounter &counter = getAllocationCounter();
  counter.startWindow();
  entry(packed.data());

  StepOutputs out;
  std::set<void *> toFree;
  SmallVector<std::pair<unsigned, const uint8_t *>> newValues;
  int64_t *words = resultStruct.data();
  for (const ResultInfo &r : sig.results) {
    const uint8_t *data = getContiguousData(words, r);
    toFree.insert(reinterpret_cast<void *>(words[0]));
    if (r.updates) {
      out.results.emplace_back();
      if (data != updated.getBuffer(*r.updates))
        newValues.emplace_back(*r.updates, data);
    } else {
      HostArray array = HostArray::zeros(r.kind, r.shape);
      if (!array.data.empty())
        std::memcpy(array.data.data(), data, array.data.size());
      out.results.push_back(std::move(array));
    }
    words += getDescriptorWords(r.shape.size());
  }
  // New values not written in place go into the arguments' buffers; one
  // that is another updated argument's old buffer is read before any is
  // overwritten.
  std::vector<std::vector<uint8_t>> snapshots;
  for (auto &[i, data] : newValues)
    if (updated.isBuffer(data)) {
      size_t bytes = args[i].data.size();
      snapshots.emplace_back(data, data + bytes);
      data = snapshots.back().data();
    }
  for (auto [i, data] : newValues)
    std::memcpy(updated.getBuffer(i), data, args[i].data.size());
  // What the step handed back: new buffers count as returned, argument
  // buffers it wrote in place add nothing; anything else still live is a
  // leak.
  StepMemory &memory = out.memory;
  memory.callerBytes = counter.getLiveBytes(BufferOwner::Caller);
  memory.stepPeakBytes = counter.getStepPeakBytes();
  memory.peakBytes = counter.getTotalPeakBytes();
  memory.backwardStartBytes = counter.getBackwardStartBytes();
  memory.allocations = counter.getStepAllocations();
  memory.frees = counter.getStepFrees();
  for (void *buffer : toFree)
    memory.returnedBytes += counter.getStepBufferSize(buffer).value_or(0);
  for (void *buffer : argBuffers)
    memory.inPlaceResults += toFree.count(buffer);
  memory.leakedBytes =
      counter.getLiveBytes(BufferOwner::Step) - memory.returnedBytes;
  // A returned buffer may be an argument buffer or returned twice: free
  // each allocation exactly once, and keep the updated arguments' buffers.
  for (void *buffer : copiedArgs)
    toFree.insert(buffer);
  for (void *buffer : toFree)
    if (!updated.isBuffer(buffer))
      counter.release(buffer);
  return out;
}

//===----------------------------------------------------------------------===//
// Logging
//===----------------------------------------------------------------------===//

static std::string formatNumber(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  // 9 significant digits round-trip every float exactly.
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.9g", value);
  return buffer;
}

namespace {
class StepLogger {
public:
  StepLogger(llvm::raw_ostream &os, bool json, bool hasScale, bool hasSkip,
             bool hasMemory)
      : os(os), json(json), hasScale(hasScale), hasSkip(hasSkip),
        hasMemory(hasMemory) {
    if (json)
      return;
    os << "step,loss";
    if (hasScale)
      os << ",loss_scale";
    if (hasSkip)
      os << ",skipped";
    if (hasMemory)
      for (const char *column : kMemoryColumns)
        os << "," << column;
    os << "\n";
  }
  void log(unsigned step, double loss, double scale, bool skipped,
           const StepMemory &memory) {
    // -1: the step has no backward pass to mark.
    int64_t memoryValues[] = {
        static_cast<int64_t>(memory.callerBytes),
        static_cast<int64_t>(memory.stepPeakBytes),
        static_cast<int64_t>(memory.returnedBytes),
        static_cast<int64_t>(memory.peakBytes),
        memory.backwardStartBytes
            ? static_cast<int64_t>(*memory.backwardStartBytes)
            : -1};
    if (json) {
      llvm::json::Object line{{"step", step}};
      // JSON has no NaN/inf: non-finite losses are null.
      line["loss"] = std::isfinite(loss) ? llvm::json::Value(loss) : nullptr;
      if (hasScale)
        line["loss_scale"] =
            std::isfinite(scale) ? llvm::json::Value(scale) : nullptr;
      if (hasSkip)
        line["skipped"] = skipped;
      if (hasMemory)
        for (auto [column, value] : llvm::zip_equal(kMemoryColumns, memoryValues))
          line[column] = value;
      os << llvm::json::Value(std::move(line)) << "\n";
    } else {
      os << step << "," << formatNumber(loss);
      if (hasScale)
        os << "," << formatNumber(scale);
      if (hasSkip)
        os << "," << (skipped ? 1 : 0);
      if (hasMemory)
        for (int64_t value : memoryValues)
          os << "," << value;
      os << "\n";
    }
    os.flush();
  }

private:
  /// The StepMemory figures, in bytes (docs/Memory.md).
  static constexpr const char *kMemoryColumns[] = {
      "caller_bytes", "step_peak_bytes", "returned_bytes", "peak_bytes",
      "backward_start_bytes"};
  llvm::raw_ostream &os;
  bool json, hasScale, hasSkip, hasMemory;
};
} // namespace

//===----------------------------------------------------------------------===//
// main
//===----------------------------------------------------------------------===//

/// Whether two paths name the same file: the same inode when both exist,
/// else the same absolute path.
static bool isSameFile(StringRef a, StringRef b) {
  bool same = false;
  if (!llvm::sys::fs::equivalent(a, b, same))
    return same;
  auto normalise = [](StringRef path) {
    SmallString<256> full(path);
    llvm::sys::fs::make_absolute(full);
    llvm::sys::path::remove_dots(full, /*remove_dot_dot=*/true);
    return std::string(full);
  };
  return normalise(a) == normalise(b);
}

/// --log and --save must not replace an input or each other (but --save
/// may replace the --inputs checkpoint it resumes from).
static void checkOutputsSpareInputs() {
  SmallVector<std::pair<std::string, std::string>> inputs;
  if (inputFilename != "-")
    inputs.push_back({inputFilename, "the step"});
  if (!dataFile.empty())
    inputs.push_back({dataFile, "--data"});
  for (const std::string &path : inputFiles)
    inputs.push_back({path, "--inputs"});
  for (StringRef spec : inputArrays)
    inputs.push_back({spec.split('=').second.str(), "--input"});
  SmallVector<std::pair<std::string, std::string>> outputs;
  if (logFile != "-")
    outputs.push_back({logFile, "--log"});
  if (!saveFile.empty())
    outputs.push_back({saveFile, "--save"});
  for (auto &[output, option] : outputs)
    for (auto &[input, what] : inputs)
      // Resuming from a checkpoint and saving over it is fine: it has been
      // read, and the save replaces it atomically.
      if (!(option == "--save" && what == "--inputs") &&
          isSameFile(output, input))
        fail(option + " " + output + " would overwrite " + what + " (" +
             input + "); write it to another file");
  if (outputs.size() == 2 && isSameFile(outputs[0].first, outputs[1].first))
    fail("--log and --save name the same file (" + saveFile +
         "); write them to different files");
}

/// Writes the engine's compiled object to the cache (ObjectCache.h) through
/// a temporary file, the one way ExecutionEngine gives it out.
static void storeCompiledObject(ExecutionEngine &engine, StringRef dir,
                                StringRef key) {
  SmallString<256> model(dir), temp;
  llvm::sys::path::append(model, key + "-%%%%%%%%.dump");
  int fd;
  std::error_code ec = llvm::sys::fs::create_directories(dir);
  if (!ec)
    ec = llvm::sys::fs::createUniqueFile(model, fd, temp);
  if (ec) {
    llvm::errs() << "mpt-run: warning: cannot write the cache entry in "
                 << dir << ": " << ec.message() << "\n";
    return;
  }
  ::close(fd);
  engine.dumpToObjectFile(temp);
  if (auto object = llvm::MemoryBuffer::getFile(temp, /*IsText=*/false))
    writeObjectCacheEntry(dir, key, (*object)->getBuffer());
  llvm::sys::fs::remove(temp);
}

static int run(int argc, char **argv) {
  mlir::registerAllPasses();
  mpt::registerAllPasses();
  cl::HideUnrelatedOptions(
      {&getRunCategory(), &getCPUCategory(), &getCacheCategory()});
  SmallVector<const char *> args(argv, argv + argc);
  std::string threadsError;
  if (!takeThreadsOption(args, threadsError))
    fail(threadsError);
  cl::ParseCommandLineOptions(
      args.size(), args.data(),
      "mpt-run: run a training step on the CPU for N steps "
      "(docs/Running.md)\n");
  // Under a launcher every rank joins the MPI job now, so that an error any
  // rank meets before the step runs is reported once, by rank 0
  // (MpiJob::finishSetup).
  if (getLauncherWorldSize() > 1)
    mpiJob = &MpiJob::start();
  if (logFormat != "csv" && logFormat != "jsonl")
    fail("--log-format must be csv or jsonl, got '" + logFormat + "'");
  if (optLevel > 3)
    fail("-O must be 0, 1, 2 or 3");
  checkOutputsSpareInputs();

  DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mpt::registerAllDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);

  // Diagnostics become one line each, "file:line:col: error: message".
  bool sawError = false;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      sawError = true;
    // Rank 0 reports for the job; another rank keeps its first error for
    // rank 0 to report should only this rank meet it (main).
    if (mpt::getLauncherRank() != 0) {
      if (diag.getSeverity() == DiagnosticSeverity::Error &&
          firstRankError.empty())
        firstRankError =
            formatLocation(diag.getLocation()) + ": error: " + diag.str();
      return success();
    }
    StringRef severity =
        diag.getSeverity() == DiagnosticSeverity::Error     ? "error"
        : diag.getSeverity() == DiagnosticSeverity::Warning ? "warning"
                                                            : "note";
    llvm::errs() << formatLocation(diag.getLocation()) << ": " << severity
                 << ": " << diag.str() << "\n";
    return success();
  });

  std::string errorMessage;
  auto file = openInputFile(inputFilename, &errorMessage);
  if (!file)
    fail(inputFilename + ": " + errorMessage);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return 1;

  func::FuncOp func = findStep(*module);
  // Keep the source names across --passes (which may add arguments) as
  // name locations on the block arguments.
  for (BlockArgument arg : func.getArguments())
    arg.setLoc(NameLoc::get(StringAttr::get(&context, getArgName(arg, sourceMgr)),
                            arg.getLoc()));

  // --memory: a mark where the backward pass starts, placed before --passes
  // (which may lower the markers that say where it is).
  if (memoryReport) {
    TrainingGraph graph(func);
    if (graph.isValid())
      insertBackwardStartMark(func, graph);
  }

  StepTimer timer;
  if (!prePasses.empty()) {
    // The pass manager is the module's: a builtin.module(...) wrapper would
    // nest a second module level and silently run nothing.
    StringRef pipeline = StringRef(prePasses).trim();
    if (pipeline.consume_front("builtin.module(") && pipeline.consume_back(")"))
      pipeline = pipeline.trim();
    // Function passes given at the top level (--passes=mpt-autocast) run
    // on every function, as the user meant: the pipeline is nested in
    // func.func(...) when it does not parse as is and that does.
    std::string nestedText = ("func.func(" + pipeline + ")").str();
    {
      OpPassManager probe(ModuleOp::getOperationName());
      std::string ignored;
      llvm::raw_string_ostream ignoredStream(ignored);
      OpPassManager nestedProbe(ModuleOp::getOperationName());
      if (failed(parsePassPipeline(pipeline, probe, ignoredStream)) &&
          succeeded(parsePassPipeline(nestedText, nestedProbe, ignoredStream)))
        pipeline = nestedText;
    }
    PassManager pm(&context);
    std::string parseError;
    llvm::raw_string_ostream parseErrorStream(parseError);
    if (failed(parsePassPipeline(pipeline, pm, parseErrorStream))) {
      // The parser's first line holds the reason; the rest is a caret.
      StringRef reason = StringRef(parseError).split('\n').first;
      size_t at = reason.find("error: ");
      if (at != StringRef::npos)
        reason = reason.drop_front(at + strlen("error: "));
      fail("--passes '" + prePasses + "': " + reason);
    }
    std::string where;
    if (failed(runRecordingFailure(pm, *module, where)))
      fail("--passes '" + prePasses + "' failed" +
           (where.empty() ? "" : " " + where));
    func = findStep(*module);
  }

  SmallVector<std::string> argNames;
  for (BlockArgument arg : func.getArguments()) {
    auto name = dyn_cast<NameLoc>(arg.getLoc());
    argNames.push_back(name ? name.getName().str()
                            : "arg" + std::to_string(arg.getArgNumber()));
  }
  FailureOr<StepSignature> sig = analyseStep(func, argNames);
  if (failed(sig))
    return 1;
  if (mpt::isDataParallel(*module, func)) {
    if (!mpiJob) // one process without a launcher: MPI's singleton start
      mpiJob = &mpt::MpiJob::start();
    // Rank 0 logs and saves for the job.
    if (mpiJob->getRank() != 0) {
      logFile = "/dev/null";
      saveFile = "";
      noProgress = true;
    }
  } else if (mpt::getLauncherWorldSize() > 1) {
    fail("mpt-run runs as one of " + Twine(mpt::getLauncherWorldSize()) +
         " ranks but @" + sig->funcName +
         " is not data-parallel: every rank would train alone; make it "
         "data-parallel (--passes='mpt-mixed-precision{data-parallel=true}' "
         "or 'func.func(mpt-data-parallel)')");
  }

  ArgValues values = gatherArgValues(*sig);
  if (mpiJob) {
    mpiJob->finishSetup(); // one rank's bad data: one error, by rank 0
    // Every replica starts from rank 0's parameters and state (what the
    // step updates), as DDP broadcasts the model at construction: ranks
    // need not share an --init seed or read the same checkpoint.
    SmallVector<HostArray *> state;
    for (auto [i, arg] : llvm::enumerate(sig->args))
      if (arg.updatedBy)
        state.push_back(&values.current[i]);
    mpiJob->broadcastFromRankZero(state);
  }

  // --memory: the static estimate of the step as it runs, where its
  // training markers are still there to say what is kept.
  std::optional<MemoryEstimate> estimate;
  if (memoryReport) {
    TrainingGraph graph(func);
    if (graph.isTrainingStep() && !graph.getGradients().empty())
      estimate = graph.estimateMemory();
  }

  // Lower and compile the step and every function it calls (transitively):
  // other functions may not be runnable.
  llvm::SmallPtrSet<Operation *, 8> called = {func};
  SmallVector<Operation *> worklist = {func};
  while (!worklist.empty())
    if (auto uses = SymbolTable::getSymbolUses(worklist.pop_back_val()))
      for (const SymbolTable::SymbolUse &use : *uses)
        if (Operation *callee = SymbolTable::lookupSymbolIn(
                *module, use.getSymbolRef()))
          if (called.insert(callee).second)
            worklist.push_back(callee);
  for (auto other : llvm::make_early_inc_range(module->getOps<func::FuncOp>()))
    if (!called.contains(other) && !other.isExternal())
      other.erase();
  LowerToCPUOptions options;
  // The step allocates through the counting functions of
  // AllocationCounter.h (cheap: one hash-map update per buffer).
  options.useGenericFunctions = true;
  // New parameters and optimizer state in their argument buffers:
  // callStep expects results that are argument buffers.
  options.updateInPlace = true;
  options.chunkOps = chunkOps;
  std::string cpuError, openmpRuntime;
  if (!selectCPUPath(options, openmpRuntime, cpuError))
    fail(cpuError);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  SmallVector<StringRef> libs;
  for (const std::string &lib : sharedLibs)
    libs.push_back(lib);
  if (sharedLibs.empty())
    libs.push_back(MPT_C_RUNNER_UTILS);
  if (!openmpRuntime.empty())
    libs.push_back(openmpRuntime);
  if (mpiJob)
    libs.push_back(mpiJob->getLibraryPath());
  std::string packedName = "_mlir__mlir_ciface_" + sig->funcName;

  // The object cache (ObjectCache.h), keyed by the step as it is before
  // lowering and by everything that decides how it is compiled. Not with
  // --perf-jitdump, whose listener sees only code compiled in this run.
  // Nor with --cpu-kernel-report, which the lowering writes.
  std::string cacheDir = perfJitdump || !options.kernelReport.empty()
                             ? ""
                             : getObjectCacheDirectory();
  std::string cacheKey;
  std::unique_ptr<LoadedObject> cached;
  // Ends (the line) when the step is compiled or loaded.
  std::optional<CompileProgress> progressLine;
  progressLine.emplace(!noProgress &&
                       llvm::sys::Process::StandardErrIsDisplayed());
  if (!cacheDir.empty()) {
    progressLine->setPhase("looking up the cache");
    std::string stepText, optionText;
    llvm::raw_string_ostream stepOs(stepText), optionOs(optionText);
    module->print(stepOs, OpPrintingFlags().printGenericOpForm());
    options.print(optionOs);
    cacheKey = computeObjectCacheKey(
        {stepText, optionText, "O" + std::to_string(optLevel.getValue()),
         "fast-codegen-block=" + std::to_string(getFastCodegenBlockLimit()),
         llvm::join(libs, ","), packedName});
    if (auto object = readObjectCacheEntry(cacheDir, cacheKey)) {
      auto loaded = LoadedObject::load(std::move(object), libs,
                                       getCountingAllocatorSymbols,
                                       packedName);
      if (loaded) {
        cached = std::move(*loaded);
      } else {
        llvm::errs() << "mpt-run: warning: cache entry " << cacheKey
                     << " does not load ("
                     << toString(loaded.takeError()) << "); compiling again\n";
      }
    }
    progressLine->setPhase(cached ? "loaded from the cache"
                                  : "not in the cache");
  }

  std::unique_ptr<ExecutionEngine> engine;
  void (*stepEntry)(void **) = cached ? cached->entry : nullptr;
  if (!cached) {
    progressLine->setPhase("lowering (--mpt-lower-to-cpu)");
    {
      PassManager pm(&context);
      // Verified once, after the pipeline: verifying after each of its ~50
      // passes took a third of the lowering of a large model
      // (docs/CompileTime.md). mpt-opt --mpt-lower-to-cpu (the lit tests)
      // verifies after each pass.
      pm.enableVerifier(false);
      buildLowerToCPUPipeline(pm, options);
      std::string where;
      if (failed(runRecordingFailure(pm, *module, where)))
        fail("lowering @" + sig->funcName + " with --mpt-lower-to-cpu failed" +
             (where.empty() ? "" : " " + where));
      if (failed(verify(*module)))
        fail("lowering @" + sig->funcName +
             " with --mpt-lower-to-cpu gave invalid IR (the error above; "
             "mpt-opt --mpt-lower-to-cpu names the pass)");
    }
    // An op the pipeline has no lowering for survives it; name it here rather
    // than let LLVM IR translation fail on it. (The omp ops of parallel loops
    // are translated to LLVM IR as they are.)
    WalkResult unlowered = module->walk([&](Operation *op) {
      if (isa<ModuleOp>(op) ||
          isa<LLVM::LLVMDialect, omp::OpenMPDialect>(op->getDialect()))
        return WalkResult::advance();
      op->emitError() << "'" << op->getName()
                      << "' is not lowered to LLVM by --mpt-lower-to-cpu";
      return WalkResult::interrupt();
    });
    if (unlowered.wasInterrupted())
      return 1;

    progressLine->setPhase("compiling (LLVM -O" +
                           std::to_string(optLevel.getValue()) + ")");
    ExecutionEngineOptions engineOptions;
    auto optimize = makeOptimizingTransformer(optLevel, /*sizeLevel=*/0,
                                              /*targetMachine=*/nullptr);
    // ExecutionEngine adds a packed wrapper (_mlir_NAME) for every function;
    // only the step's C wrapper's one (packedName) is called from outside.
    // Internal, the unused ones are dropped before LLVM optimises and
    // generates code for them: the step's own packed wrapper is one block of
    // thousands of loads and a call with thousands of arguments, seconds of
    // instruction selection and scheduling on a large model
    // (docs/CompileTime.md).
    std::function<llvm::Error(llvm::Module *)> transformer =
        [&](llvm::Module *llvmModule) {
          llvm::internalizeModule(*llvmModule,
                                  [&](const llvm::GlobalValue &value) {
                                    return value.getName() == packedName ||
                                           !value.getName().starts_with(
                                               "_mlir_");
                                  });
          // The step into its C wrapper, its only caller: the wrapper loads
          // every field of every descriptor and passes them to the step
          // (thousands of scalars), which returns all its results as one
          // struct; inlined, the fields go straight to the chunks that use
          // them (EfficientNet-B0: 33000 instructions in the two, 24000 in
          // one; docs/CompileTime.md).
          if (llvm::Function *step = llvmModule->getFunction(sig->funcName)) {
            step->setLinkage(llvm::GlobalValue::InternalLinkage);
            step->removeFnAttr(llvm::Attribute::NoInline);
            step->addFnAttr(llvm::Attribute::AlwaysInline);
          }
          if (llvm::Error err = optimize(llvmModule))
            return err;
          // The step's C wrapper on a large model: one block of thousands of
          // descriptor loads and calls, on which LLVM's schedulers are
          // superlinear; its code generated as at -O0 (LargeBlocks.h).
          if (optLevel > 0)
            markLargeBlockFunctions(*llvmModule, getFastCodegenBlockLimit());
          return llvm::Error(llvm::Error::success());
        };
    engineOptions.transformer = transformer;
    // The code generator's level goes into a target machine of our own:
    // MLIR 22's ExecutionEngine sets jitCodeGenOptLevel on a builder it then
    // does not use and compiles with the host's default (-O2) machine, so
    // -O0 ran the machine scheduler and the greedy register allocator
    // (docs/CompileTime.md).
    auto codeGenLevel = static_cast<llvm::CodeGenOptLevel>(
        static_cast<int>(optLevel.getValue()));
    engineOptions.jitCodeGenOptLevel = codeGenLevel;
    auto hostMachine = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!hostMachine)
      fail("JIT compilation failed: " + toString(hostMachine.takeError()));
    hostMachine->setCodeGenOptLevel(codeGenLevel);
    auto targetMachine = hostMachine->createTargetMachine();
    if (!targetMachine)
      fail("JIT compilation failed: " + toString(targetMachine.takeError()));
    engineOptions.sharedLibPaths = libs;
    // The listeners write files on every run (a jitdump directory per
    // process for perf); only on request.
    engineOptions.enablePerfNotificationListener = perfJitdump;
    engineOptions.enableGDBNotificationListener = false;
    // The compiled object, for the cache.
    engineOptions.enableObjectDump = !cacheDir.empty();
    auto created = ExecutionEngine::create(*module, engineOptions,
                                           std::move(*targetMachine));
    if (!created)
      fail("JIT compilation failed: " + toString(created.takeError()));
    engine = std::move(*created);
    engine->registerSymbols(getCountingAllocatorSymbols);
    auto entry = engine->lookupPacked("_mlir_ciface_" + sig->funcName);
    if (!entry)
      fail("JIT compilation failed: " + toString(entry.takeError()));
    stepEntry = *entry;
    if (!cacheDir.empty()) {
      progressLine->setPhase("writing the cache entry");
      storeCompiledObject(*engine, cacheDir, cacheKey);
    }
  }
  progressLine.reset();
  if (!cacheDir.empty() && cacheReport)
    llvm::errs() << "mpt-run: cache " << (cached ? "hit" : "miss") << ": "
                 << cacheKey << " in " << cacheDir << "\n";

  std::error_code ec;
  llvm::ToolOutputFile logOut(logFile, ec, llvm::sys::fs::OF_Text);
  if (ec)
    fail(logFile + ": cannot write: " + ec.message());
  bool hasScale = sig->lossScaleArg.has_value();
  // A skipped step is recognised from the growth tracker's update (see
  // docs/Running.md): it needs both the scale and its tracker to be updated.
  bool hasSkip = hasScale && sig->trackerArg &&
                 sig->args[*sig->lossScaleArg].updatedBy &&
                 sig->args[*sig->trackerArg].updatedBy;
  StepLogger logger(logOut.os(), logFormat == "jsonl", hasScale, hasSkip,
                    memoryReport);
  SmallVector<StepMemory> memoryPerStep;
  // The progress line shares the terminal with a log written to stdout
  // only if stdout is not that terminal.
  bool progress = !noProgress &&
                  llvm::sys::Process::StandardErrIsDisplayed() &&
                  !(logFile == "-" && llvm::sys::Process::StandardOutIsDisplayed());

  auto lastProgress = std::chrono::steady_clock::time_point();
  double firstLoss = 0, lastLoss = 0;
  unsigned numSkipped = 0;
  bool warnedNonfinite = false;
  UpdatedArguments updated(*sig, values.current);
  for (unsigned step = 0; step < numSteps; ++step) {
    for (auto &[index, stacked] : values.batches) {
      HostArray &arg = values.current[index];
      size_t bytes = arg.data.size();
      int64_t batch = step % values.numBatches;
      std::memcpy(arg.data.data(), stacked.data.data() + batch * bytes, bytes);
    }
    // The scale this step uses (updated arguments live in `updated`).
    double scale = !hasScale ? 0.0
                   : updated.getBuffer(*sig->lossScaleArg)
                       ? updated.getScalar(*sig->lossScaleArg)
                       : values.current[*sig->lossScaleArg].getAsDouble(0);
    timer.stepStarted();
    StepOutputs out = callStep(stepEntry, *sig, values.current, updated);
    timer.stepFinished();
    double loss = out.results[sig->lossResult].getAsDouble(0);
    for (auto [i, result] : llvm::enumerate(sig->results))
      if (result.guard && out.results[i].getAsDouble(0) == 0)
        fail("step " + Twine(step) + ": guard (result #" + Twine(i) +
             ") is false: " + *result.guard);
    bool skipped = false;
    if (hasSkip) {
      // An overflowing step resets the tracker and never raises the scale;
      // a good step raises the tracker or, at the growth interval, the scale.
      double newScale = updated.getScalar(*sig->lossScaleArg);
      double newTracker = updated.getScalar(*sig->trackerArg);
      skipped = newTracker == 0 && !(newScale > scale);
    }
    numSkipped += skipped;
    logger.log(step, loss, scale, skipped, out.memory);
    if (memoryReport)
      memoryPerStep.push_back(out.memory);
    if (!std::isfinite(loss)) {
      if (stopOnNonfinite)
        fail("step " + Twine(step) + ": the loss is " + formatNumber(loss) +
             "; stopping (--stop-on-nonfinite), nothing saved");
      if (!warnedNonfinite && (!mpiJob || mpiJob->getRank() == 0))
        llvm::errs() << "mpt-run: warning: step " << step << ": the loss is "
                     << formatNumber(loss)
                     << " (NaN or infinity in the data, hyperparameters or "
                        "parameters?); --stop-on-nonfinite stops here\n";
      warnedNonfinite = true;
    }
    if (step == 0)
      firstLoss = loss;
    lastLoss = loss;
    // At most ten updates a second: a terminal is slow next to a step.
    auto now = std::chrono::steady_clock::now();
    if (progress && (now - lastProgress > std::chrono::milliseconds(100) ||
                     step + 1 == numSteps)) {
      lastProgress = now;
      llvm::errs() << "\rmpt-run: step " << (step + 1) << "/" << numSteps
                   << "  loss " << formatNumber(loss) << "   ";
    }
  }
  updated.copyTo(values.current);
  if (progress)
    llvm::errs() << "\n";
  if (logOut.os().has_error()) {
    std::error_code error = logOut.os().error();
    logOut.os().clear_error();
    fail(logFile + ": write failed: " + error.message());
  }
  timer.report();
  logOut.keep();

  if (!saveFile.empty()) {
    SmallVector<std::pair<std::string, const HostArray *>> saved;
    for (auto [i, arg] : llvm::enumerate(sig->args))
      if (arg.updatedBy)
        saved.emplace_back(arg.name, &values.current[i]);
    if (llvm::Error err = writeNpzFile(saveFile, saved))
      fail(toString(std::move(err)));
  }
  if (memoryReport) {
    // The caller's bytes by role, in the order roles first appear.
    SmallVector<std::pair<std::string, uint64_t>> callerByRole;
    for (auto [arg, array] : llvm::zip_equal(sig->args, values.current)) {
      std::string role = arg.role ? stringifyArgRole(*arg.role).str() : "other";
      auto it = llvm::find_if(callerByRole,
                              [&](const auto &e) { return e.first == role; });
      if (it == callerByRole.end())
        callerByRole.emplace_back(role, array.data.size());
      else
        it->second += array.data.size();
    }
    printMemoryReport(llvm::errs(), sig->funcName, memoryPerStep, callerByRole,
                      estimate ? &*estimate : nullptr);
  }
  if (numSteps > 0 && progress) {
    llvm::errs() << "mpt-run: " << numSteps << " steps of @" << sig->funcName
                 << ", loss " << formatNumber(firstLoss) << " -> "
                 << formatNumber(lastLoss);
    if (hasSkip)
      llvm::errs() << ", " << numSkipped << " skipped";
    llvm::errs() << "\n";
  }
  if (mpiJob) {
    SmallVector<const HostArray *> state;
    for (auto [i, arg] : llvm::enumerate(sig->args))
      if (arg.updatedBy)
        state.push_back(&values.current[i]);
    bool lockstep = mpiJob->checkLockstep(state);
    mpiJob->finish();
    if (!lockstep)
      return 1;
  }
  return sawError ? 1 : 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  int status = run(argc, argv);
  // A diagnosed error before the step ran: rank 0 printed its own; another
  // rank's goes to rank 0 (MpiRuntime.h).
  if (status != 0)
    if (mpt::MpiJob *job = mpt::MpiJob::getInSetup())
      job->failSetup(job->getRank() == 0 ? "" : firstRankError);
  return status;
}
