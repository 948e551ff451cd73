//===- mpt-run.cpp - run training steps on the CPU ------------------------===//
//
// Loads a training step written to the contract
// (docs/TrainingGraphContract.md), optionally runs passes on it (--passes),
// lowers it with
// --mpt-lower-to-cpu, JIT-compiles it with MLIR's ExecutionEngine and runs it
// for N steps, feeding every `mpt.updates` result back into its argument.
// docs/Running.md is the user documentation.
//
// This file holds the options, the training loop and main; the pieces are
// StepSignature.h (the step and its signature), ArgValues.h (argument values
// from --inputs/--input/--data/--hparam/--init), CompileStep.h (lowering,
// JIT, object cache), CallStep.h (one call of the compiled step) and
// MpiRuntime.h (data-parallel runs). Every error is returned (RunError.h);
// main alone reports it and chooses the exit code.
//
//===----------------------------------------------------------------------===//
#include "AllocationCounter.h"
#include "ArgValues.h"
#include "CPUPath.h"
#include "CallStep.h"
#include "CompileStep.h"
#include "MpiRuntime.h"
#include "NpyIO.h"
#include "ObjectCache.h"
#include "Options.h"
#include "RunError.h"
#include "StepChecks.h"
#include "StepInterpreter.h"
#include "StepSignature.h"
#include "StepTimer.h"

#include "mpt/Support/Report.h"
#include "mpt/Analysis/TrainingGraph.h"
#include "mpt/IR/MPTDialect.h"
#include "mpt/IR/MPTOps.h"
#include "mpt/IR/TrainingContract.h"
#include "mpt/InitAll.h"
#include "mpt/Pipelines/LowerToCPU.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>

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
    entryName("entry",
              cl::desc("The step function (default: the only "
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

/// The MPI job, under a launcher or when the step is data-parallel
/// (docs/Distributed.md).
static mpt::MpiJob *mpiJob = nullptr;
/// Whether every rank returns the same loss (--mpt-data-parallel all-reduces
/// it): an error on its value is then one every rank meets at the same step.
static bool lossAllReduced = false;
/// A rank other than 0's first error diagnostic (it prints none).
static std::string firstRankError;

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
        for (auto [column, value] :
             llvm::zip_equal(kMemoryColumns, memoryValues))
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

//===----------------------------------------------------------------------===//
// Loading the step
//===----------------------------------------------------------------------===//

/// --log and --save must not replace an input or each other (but --save
/// may replace the --inputs checkpoint it resumes from).
static llvm::Error checkOutputsSpareInputs() {
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
        return runError(option + " " + output + " would overwrite " + what +
                        " (" + input + "); write it to another file");
  if (outputs.size() == 2 && isSameFile(outputs[0].first, outputs[1].first))
    return runError("--log and --save name the same file (" + saveFile +
                    "); write them to different files");
  return llvm::Error::success();
}

/// Runs --passes on `module`. The pass manager is the module's: a
/// builtin.module(...) wrapper would nest a second module level and silently
/// run nothing, so it is dropped.
static llvm::Error runPassesOption(ModuleOp module) {
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
  PassManager pm(module.getContext());
  std::string parseError;
  llvm::raw_string_ostream parseErrorStream(parseError);
  if (failed(parsePassPipeline(pipeline, pm, parseErrorStream))) {
    // The parser's first line holds the reason; the rest is a caret.
    StringRef reason = StringRef(parseError).split('\n').first;
    size_t at = reason.find("error: ");
    if (at != StringRef::npos)
      reason = reason.drop_front(at + strlen("error: "));
    return runError("--passes '" + prePasses + "': " + reason);
  }
  return runPipeline(pm, module, "--passes '" + prePasses + "'");
}

/// Parses the step (`sourceMgr` keeps its text) and names its arguments as
/// the source does; returns the step function.
static llvm::Expected<func::FuncOp> loadStep(MLIRContext &context,
                                             llvm::SourceMgr &sourceMgr,
                                             OwningOpRef<ModuleOp> &module) {
  std::string errorMessage;
  auto file = openInputFile(inputFilename, &errorMessage);
  if (!file)
    return runError(inputFilename + ": " + errorMessage);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  module = parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return alreadyReported();

  auto func = findStep(*module, entryName, inputFilename);
  if (!func)
    return func.takeError();
  // Keep the source names across --passes (which may add arguments) as
  // name locations on the block arguments.
  for (BlockArgument arg : func->getArguments())
    arg.setLoc(NameLoc::get(
        StringAttr::get(&context, getArgName(arg, sourceMgr)), arg.getLoc()));

  // The contract is checked on the source when --passes will rewrite it
  // (they may lower the markers the checks read); --memory marks where the
  // backward pass starts before that, for the same reason.
  if (memoryReport || !prePasses.empty()) {
    TrainingGraph graph(*func);
    if (failed(graph.emitFindings()))
      return alreadyReported();
    if (memoryReport)
      insertBackwardStartMark(*func, graph);
  }
  return func;
}

/// Joins the MPI job when the step is data-parallel (ranks other than 0 then
/// neither log nor save); an error when mpt-run runs as one of several ranks
/// of a step that is not.
static llvm::Error joinJobIfDataParallel(ModuleOp module, func::FuncOp func,
                                         const StepSignature &sig) {
  if (!mpt::isDataParallel(module, func)) {
    if (mpt::getLauncherWorldSize() > 1)
      return runError(
          "mpt-run runs as one of " + Twine(mpt::getLauncherWorldSize()) +
          " ranks but @" + sig.funcName +
          " is not data-parallel: every rank would train alone; make it "
          "data-parallel (--passes='mpt-mixed-precision{data-parallel=true}' "
          "or 'func.func(mpt-data-parallel)')");
    return llvm::Error::success();
  }
  lossAllReduced = func->hasAttr(mpt::kDataParallelAttrName);
  if (!mpiJob) { // one process without a launcher: MPI's singleton start
    auto job = mpt::MpiJob::start();
    if (!job)
      return job.takeError();
    mpiJob = *job;
  }
  // Rank 0 logs and saves for the job.
  if (mpiJob->getRank() != 0) {
    logFile = "/dev/null";
    saveFile = "";
    noProgress = true;
  }
  return llvm::Error::success();
}

/// The arguments the step updates (parameters, optimizer state, loss-scaling
/// state), in `values`.
static SmallVector<HostArray *> getUpdatedValues(const StepSignature &sig,
                                                 ArgValues &values) {
  SmallVector<HostArray *> state;
  for (auto [i, arg] : llvm::enumerate(sig.args))
    if (arg.updatedBy)
      state.push_back(&values.current[i]);
  return state;
}

//===----------------------------------------------------------------------===//
// The training loop
//===----------------------------------------------------------------------===//

/// Runs the step --steps times from `values`, the first `interpreted.steps`
/// in the interpreter, the others compiled (`getCompiled`, asked for at the
/// first of them), logging every step, then saves (--save) and reports
/// (--memory, --timing, the summary).
static llvm::Error
train(const StepSignature &sig, ArgValues &values,
      InterpretedSteps &interpreted,
      llvm::function_ref<llvm::Expected<CompiledStep *>()> getCompiled,
      StepTimer &timer, const std::optional<MemoryEstimate> &estimate) {
  CompiledStep *compiled = nullptr;
  void (*entry)(void **) = nullptr;
  auto useCompiled = [&]() -> llvm::Error {
    auto step = getCompiled();
    if (!step)
      return step.takeError();
    compiled = *step;
    entry = compiled->entry;
    if (compiled->optimized)
      timer.setTiered();
    return llvm::Error::success();
  };
  if (interpreted.steps == 0)
    if (llvm::Error err = useCompiled())
      return err;
  std::error_code ec;
  llvm::ToolOutputFile logOut(logFile, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return runError(logFile + ": cannot write: " + ec.message());
  // What was logged stays, whatever error ends the run later (a failed
  // check in the step included: StepChecks.h).
  logOut.keep();
  setBeforeFailedCheckExit([&] { logOut.os().flush(); });
  llvm::scope_exit forgetLog([] { setBeforeFailedCheckExit(nullptr); });
  bool hasScale = sig.lossScaleArg.has_value();
  // A skipped step is recognised from the growth tracker's update (see
  // docs/Running.md): it needs both the scale and its tracker to be updated.
  bool hasSkip = hasScale && sig.trackerArg &&
                 sig.args[*sig.lossScaleArg].updatedBy &&
                 sig.args[*sig.trackerArg].updatedBy;
  StepLogger logger(logOut.os(), logFormat == "jsonl", hasScale, hasSkip,
                    memoryReport);
  SmallVector<StepMemory> memoryPerStep;
  // The progress line shares the terminal with a log written to stdout
  // only if stdout is not that terminal.
  bool progress =
      !noProgress && llvm::sys::Process::StandardErrIsDisplayed() &&
      !(logFile == "-" && llvm::sys::Process::StandardOutIsDisplayed());

  auto lastProgress = std::chrono::steady_clock::time_point();
  double firstLoss = 0, lastLoss = 0;
  unsigned numSkipped = 0;
  bool warnedNonfinite = false;
  auto updatedOr = UpdatedArguments::create(sig, values.current);
  if (!updatedOr)
    return updatedOr.takeError();
  UpdatedArguments &updated = **updatedOr;
  for (unsigned step = 0; step < numSteps; ++step) {
    for (auto &[index, stacked] : values.batches) {
      HostArray &arg = values.current[index];
      size_t bytes = arg.data.size();
      int64_t batch = step % values.numBatches;
      std::memcpy(arg.data.data(), stacked.data.data() + batch * bytes, bytes);
    }
    // The scale this step uses (updated arguments live in `updated`).
    double scale = !hasScale ? 0.0
                   : updated.getBuffer(*sig.lossScaleArg)
                       ? updated.getScalar(*sig.lossScaleArg)
                       : values.current[*sig.lossScaleArg].getAsDouble(0);
    bool interpret = step < interpreted.steps;
    std::optional<StepOutputs> outputs;
    if (interpret) {
      setRunningStep(step);
      timer.stepStarted();
      auto ran = interpreted.interpreter->run(sig, values.current, updated);
      if (ran) {
        outputs = std::move(*ran);
      } else {
        // The interpreter writes nothing until the step's end: an error (a
        // value it met that the compiled step would not check either)
        // leaves the step to the compiled code.
        llvm::errs() << ("mpt-run: warning: step " + Twine(step) +
                         ": the interpreter stopped (" +
                         toString(ran.takeError()) +
                         "); this step and the next run compiled code\n")
                            .str();
        interpreted.steps = step;
        interpret = false;
      }
    }
    if (!interpret) {
      if (!compiled)
        if (llvm::Error err = useCompiled())
          return err;
      // --tiered-compile: the optimised code from the first step after it
      // is ready (the same results: TieredCompile.h).
      if (compiled->optimized && entry == compiled->entry)
        if (auto optimizedEntry = compiled->optimized->takeEntry(
                /*wait=*/isTieredSwitchForcedAt(step))) {
          entry = optimizedEntry;
          timer.optimizedCodeReady();
        }
      setRunningStep(step);
      timer.stepStarted();
      auto ran = callStep(entry, sig, values.current, updated);
      if (!ran)
        return ran.takeError();
      outputs = std::move(*ran);
    }
    StepOutputs *out = &*outputs;
    timer.stepFinished(interpret);
    double loss = out->results[sig.lossResult].getAsDouble(0);
    for (auto [i, result] : llvm::enumerate(sig.results))
      if (result.guard && out->results[i].getAsDouble(0) == 0)
        return runError("step " + Twine(step) + ": guard (result #" + Twine(i) +
                        ") is false: " + *result.guard);
    bool skipped = false;
    if (hasSkip) {
      // An overflowing step resets the tracker and never raises the scale;
      // a good step raises the tracker or, at the growth interval, the scale.
      double newScale = updated.getScalar(*sig.lossScaleArg);
      double newTracker = updated.getScalar(*sig.trackerArg);
      skipped = newTracker == 0 && !(newScale > scale);
    }
    numSkipped += skipped;
    logger.log(step, loss, scale, skipped, out->memory);
    if (memoryReport)
      memoryPerStep.push_back(out->memory);
    if (!std::isfinite(loss)) {
      if (stopOnNonfinite) {
        std::string message =
            ("step " + Twine(step) + ": the loss is " + formatNumber(loss) +
             "; stopping (--stop-on-nonfinite), nothing saved")
                .str();
        return lossAllReduced ? runErrorOnAllRanks(message)
                              : runError(message);
      }
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
      // One write: a compile on another thread may be writing its line.
      llvm::errs() << ("\rmpt-run: step " + Twine(step + 1) + "/" +
                       Twine(numSteps) + "  loss " + formatNumber(loss) +
                       "   ")
                          .str();
    }
  }
  updated.copyTo(values.current);
  if (progress)
    llvm::errs() << "\n";
  if (logOut.os().has_error()) {
    std::error_code error = logOut.os().error();
    logOut.os().clear_error();
    return runError(logFile + ": write failed: " + error.message());
  }
  timer.report();

  if (!saveFile.empty()) {
    SmallVector<std::pair<std::string, const HostArray *>> saved;
    for (auto [i, arg] : llvm::enumerate(sig.args))
      if (arg.updatedBy)
        saved.emplace_back(arg.name, &values.current[i]);
    if (llvm::Error err = writeNpzFile(saveFile, saved))
      return err;
  }
  if (memoryReport) {
    // The caller's bytes by role, in the order roles first appear.
    SmallVector<std::pair<std::string, uint64_t>> callerByRole;
    for (auto [arg, array] : llvm::zip_equal(sig.args, values.current)) {
      std::string role = arg.role ? stringifyArgRole(*arg.role).str() : "other";
      auto it = llvm::find_if(callerByRole,
                              [&](const auto &e) { return e.first == role; });
      if (it == callerByRole.end())
        callerByRole.emplace_back(role, array.data.size());
      else
        it->second += array.data.size();
    }
    printMemoryReport(llvm::errs(), sig.funcName, memoryPerStep, callerByRole,
                      estimate ? &*estimate : nullptr);
  }
  if (numSteps > 0 && progress) {
    llvm::errs() << "mpt-run: " << numSteps << " steps of @" << sig.funcName
                 << ", loss " << formatNumber(firstLoss) << " -> "
                 << formatNumber(lastLoss);
    if (hasSkip)
      llvm::errs() << ", " << numSkipped << " skipped";
    llvm::errs() << "\n";
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// main
//===----------------------------------------------------------------------===//

/// The whole run; every error it meets is returned for main to report.
static llvm::Error run(int argc, char **argv) {
  mlir::registerAllPasses();
  mpt::registerAllPasses();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  cl::HideUnrelatedOptions(
      {&getRunCategory(), &getCPUCategory(), &getCacheCategory()});
  SmallVector<const char *> args(argv, argv + argc);
  std::string threadsError;
  if (!takeThreadsOption(args, threadsError))
    return runError(threadsError);
  cl::ParseCommandLineOptions(
      args.size(), args.data(),
      "mpt-run: run a training step on the CPU for N steps "
      "(docs/Running.md)\n");
  // Under a launcher every rank joins the MPI job now, so that an error any
  // rank meets before the step runs is reported once, by rank 0
  // (MpiJob::finishSetup).
  if (getLauncherWorldSize() > 1) {
    auto job = MpiJob::start();
    if (!job)
      return job.takeError();
    mpiJob = *job;
  }
  if (logFormat != "csv" && logFormat != "jsonl")
    return runError("--log-format must be csv or jsonl, got '" + logFormat +
                    "'");
  if (optLevel > 3)
    return runError("-O must be 0, 1, 2 or 3");
  if (llvm::Error err = checkOutputsSpareInputs())
    return err;

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

  llvm::SourceMgr sourceMgr;
  OwningOpRef<ModuleOp> module;
  auto func = loadStep(context, sourceMgr, module);
  if (!func)
    return func.takeError();
  // Compile time is counted from here (--timing).
  StepTimer timer;
  if (!prePasses.empty()) {
    if (llvm::Error err = runPassesOption(*module))
      return err;
    func = findStep(*module, entryName, inputFilename);
    if (!func)
      return func.takeError();
  }

  SmallVector<std::string> argNames;
  for (BlockArgument arg : func->getArguments()) {
    auto name = dyn_cast<NameLoc>(arg.getLoc());
    argNames.push_back(name ? name.getName().str()
                            : "arg" + std::to_string(arg.getArgNumber()));
  }
  FailureOr<StepSignature> sig =
      analyseStep(*func, argNames, /*lintWarnings=*/prePasses.empty());
  if (failed(sig))
    return alreadyReported();
  if (llvm::Error err = joinJobIfDataParallel(*module, *func, *sig))
    return err;

  ArgSources sources{inputFiles, inputArrays, dataFile, hparams, initSpec};
  auto values = gatherArgValues(*sig, sources, mpiJob);
  if (!values)
    return values.takeError();
  if (mpiJob) {
    // One rank's bad data: one error, by rank 0.
    if (llvm::Error err = mpiJob->finishSetup())
      return err;
    // Every replica starts from rank 0's parameters and state (what the
    // step updates), as DDP broadcasts the model at construction: ranks
    // need not share an --init seed or read the same checkpoint.
    if (llvm::Error err =
            mpiJob->broadcastFromRankZero(getUpdatedValues(*sig, *values)))
      return err;
  }

  // --memory: the static estimate of the step as it runs, where its
  // training markers are still there to say what is kept.
  std::optional<MemoryEstimate> estimate;
  if (memoryReport) {
    TrainingGraph graph(*func);
    (void)graph.emitFindings();
    if (graph.isTrainingStep() && !graph.getGradients().empty())
      estimate = graph.estimateMemory();
  }

  // --interpreted-steps: the first steps without waiting for the compiler.
  auto interpreted = prepareInterpretedSteps(
      *module, sig->funcName, numSteps, isExcessPrecisionRequested(),
      /*allowed=*/!mpiJob && !memoryReport);
  if (!interpreted)
    return interpreted.takeError();
  if (isTimingRequested() && !interpreted->decision.empty())
    llvm::errs() << "mpt-run: timing: interpreter: "
                 << interpreted->decision << "; "
                 << interpreted->steps << " steps interpreted\n";

  CompileOptions compileOptions;
  compileOptions.optLevel = optLevel;
  compileOptions.chunkOps = chunkOps;
  compileOptions.sharedLibs = sharedLibs;
  if (mpiJob)
    compileOptions.extraLibrary = mpiJob->getLibraryPath();
  compileOptions.compileThreads = getCompileThreads();
  compileOptions.perfJitdump = perfJitdump;
  compileOptions.cacheReport = cacheReport;
  compileOptions.progress = !noProgress;
  timer.compileStarted();
  // With interpreted first steps the step compiles on a thread of its own
  // meanwhile (its progress line and the steps' share the terminal: the
  // compile's phases show while the run waits for it); not at all when they
  // are all the run's steps.
  std::optional<CompiledStep> compiled;
  std::future<llvm::Expected<CompiledStep>> compiling;
  if (interpreted->steps == 0) {
    auto step = compileStep(*module, sig->funcName, compileOptions);
    if (!step)
      return step.takeError();
    compiled = std::move(*step);
    timer.setCompilePhases(compiled->phaseSeconds);
  } else if (interpreted->steps < numSteps) {
    compiling = std::async(std::launch::async, [&] {
      return compileStep(*module, sig->funcName, compileOptions);
    });
  }
  auto getCompiled = [&]() -> llvm::Expected<CompiledStep *> {
    if (!compiled) {
      // Compiled now if no step was to run compiled code (the interpreter
      // stopped).
      auto step = compiling.valid()
                      ? compiling.get()
                      : compileStep(*module, sig->funcName, compileOptions);
      if (!step)
        return step.takeError();
      compiled = std::move(*step);
      timer.setCompilePhases(compiled->phaseSeconds);
    }
    return &*compiled;
  };

  llvm::Error trained =
      train(*sig, *values, *interpreted, getCompiled, timer, estimate);
  // A compile the run ended before (after an error) finishes first.
  if (compiling.valid())
    if (auto step = getCompiled(); !step)
      llvm::consumeError(step.takeError());
  // Optimised code the run ended before: finished for the cache, or left
  // to the process's end (and always after an error).
  if (compiled && compiled->optimized) {
    if (trained)
      compiled->optimized->abandon();
    else
      compiled->optimized->finishForCache(!noProgress);
  }
  if (trained)
    return trained;

  if (mpiJob) {
    SmallVector<const HostArray *> state;
    for (HostArray *array : getUpdatedValues(*sig, *values))
      state.push_back(array);
    auto lockstep = mpiJob->checkLockstep(state);
    if (!lockstep)
      return lockstep.takeError();
    mpiJob->finish();
    // Each rank said whether it is in lockstep.
    if (!*lockstep)
      return alreadyReported();
  }
  if (sawError)
    return alreadyReported();
  return llvm::Error::success();
}

/// Reports the error that ends the run, once for an MPI job
/// (MpiRuntime.h).
static void reportError(llvm::Error err) {
  std::string message;
  bool onAllRanks = false, reported = false;
  llvm::handleAllErrors(
      std::move(err), [&](const AlreadyReported &) { reported = true; },
      [&](const RunError &e) {
        message = e.getMessage();
        onAllRanks = e.isOnAllRanks();
      },
      [&](const llvm::ErrorInfoBase &e) { message = e.message(); });
  if (reported) {
    // A diagnosed error before the step ran: rank 0 printed its own;
    // another rank's goes to rank 0.
    if (mpt::MpiJob *job = mpt::MpiJob::getInSetup())
      job->failSetup(job->getRank() == 0 ? "" : firstRankError);
    return;
  }
  if (onAllRanks || mpt::getLauncherWorldSize() > 1) {
    mpt::reportInJob(message, onAllRanks);
    return;
  }
  llvm::errs() << "mpt-run: error: " << message << "\n";
}

char RunError::ID = 0;
char AlreadyReported::ID = 0;

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  int code = 0;
  if (llvm::Error err = run(argc, argv)) {
    reportError(std::move(err));
    code = 1;
  }
  if (mpt::hasAbandonedBackgroundWork())
    mpt::exitAbandoningBackgroundWork(code);
  return code;
}
