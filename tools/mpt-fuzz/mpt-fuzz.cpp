//===- mpt-fuzz.cpp - structured fuzzing of mpt's passes ------------------===//
//
// Takes the training steps in the given files and directories (every
// `// -----` chunk of every .mlir file that parses and verifies), mutates
// them structurally with MLIR's C++ API (delete, duplicate and move ops,
// rewire operands, change types and shapes, add and remove training
// markers, change argument roles and result attributes, change attributes,
// wrap ops in scf regions), keeps the mutants that verify, and runs every mpt
// pass and pipeline on each, in this process. Findings:
//
//   crash             the process dies (a signal handler saves the mutant
//                     and names the pass); a crash while verifying a fresh
//                     mutant is the mutator's (upstream verifiers that crash
//                     on what a mutation made: avoid making it)
//   hang              one pass run takes more than --timeout seconds of CPU
//                     time, or makes no progress for ten times that (saved,
//                     exit); time the process is stopped or not scheduled
//                     does not count
//   invalid-output    a run succeeds and its output does not verify or does
//                     not parse back
//   invalid-ir        an mpt pass succeeds and leaves IR that does not
//                     verify (checked after every pass, as mpt-opt does; the
//                     rest of the pipeline then runs on an emptied function
//                     so that it cannot crash on it). After an upstream
//                     pass this is counted, not a finding: upstream's bug,
//                     which mpt-opt --verify-each stops at with the
//                     verifier's diagnostic (mpt-opt and mpt-run verify
//                     once, after their pipelines, by default).
//   silent-failure    a run fails without an error diagnostic
//   error-but-success a run emits an error diagnostic and succeeds
//
// Everything is decided by --seed: the same seed and inputs give the same
// mutants. Exit code 0 when nothing was found, 1 otherwise.
//
//===----------------------------------------------------------------------===//
#include "mpt/IR/MPTDialect.h"
#include "mpt/IR/MPTOps.h"
#include "mpt/InitAll.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ShapedOpInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <pthread.h>
#include <random>
#include <thread>
#include <time.h>
#include <unistd.h>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory fuzzCategory("mpt-fuzz options");
static cl::list<std::string> inputs(cl::Positional, cl::OneOrMore,
                                    cl::desc("<.mlir files or directories>"),
                                    cl::cat(fuzzCategory));
static cl::opt<uint64_t> seedOpt("seed", cl::desc("Random seed"), cl::init(1),
                                 cl::cat(fuzzCategory));
static cl::opt<unsigned> numMutants("mutants",
                                    cl::desc("Valid mutants to run (0: no "
                                             "limit, see --time)"),
                                    cl::init(200), cl::cat(fuzzCategory));
static cl::opt<double> timeLimit("time",
                                 cl::desc("Stop after this many seconds "
                                          "(0: no limit)"),
                                 cl::init(0), cl::cat(fuzzCategory));
static cl::opt<double> runTimeout("timeout",
                                  cl::desc("Seconds of CPU time one pass run "
                                           "may take before it counts as a "
                                           "hang (also: awake for ten times "
                                           "that)"),
                                  cl::init(60), cl::cat(fuzzCategory));
static cl::opt<std::string> outDir("out",
                                   cl::desc("Directory for the mutants of "
                                            "findings (default: none saved)"),
                                   cl::cat(fuzzCategory));
static cl::opt<unsigned> maxSeedOps("max-seed-ops",
                                    cl::desc("Skip seed modules with more ops"),
                                    cl::init(400), cl::cat(fuzzCategory));
static cl::opt<unsigned> cpuEvery(
    "cpu-every",
    cl::desc("Run the CPU pipelines (slow) on every Nth mutant (0: never)"),
    cl::init(4), cl::cat(fuzzCategory));
static cl::list<std::string>
    onlyPipelines("pipeline",
                  cl::desc("Run only this pass pipeline (repeatable; "
                           "default: every mpt pass and pipeline)"),
                  cl::cat(fuzzCategory));
static cl::opt<int> onlyMutant(
    "only-mutant",
    cl::desc("Run the pipelines on this mutant only (the ones before it are "
             "still generated, so it is the same mutant); with --out it is "
             "saved as mutant-SEED-N.mlir"),
    cl::init(-1), cl::cat(fuzzCategory));
enum class TestInRun { None, Stop, Spin, Block };
static cl::opt<TestInRun> testInRun(
    "test-in-run",
    cl::desc("For the watchdog's tests: at the start of the first pass run, "
             "stop the process (SIGSTOP), spin, or block the main thread"),
    cl::values(clEnumValN(TestInRun::Stop, "stop", "raise SIGSTOP"),
               clEnumValN(TestInRun::Spin, "spin", "loop on the CPU forever"),
               clEnumValN(TestInRun::Block, "block", "sleep forever")),
    cl::init(TestInRun::None), cl::Hidden, cl::cat(fuzzCategory));
static cl::opt<bool> verbose("v", cl::desc("Print every finding's diagnostics"),
                             cl::cat(fuzzCategory));

namespace {
/// The pass configurations every mutant goes through. `slow` ones run on
/// every --cpu-every-th mutant.
struct PipelineSpec {
  const char *pipeline;
  bool slow;
};
const PipelineSpec kPipelines[] = {
    {"mpt-training-graph-report{output=/dev/null}", false},
    {"mpt-training-graph-report{format=json output=/dev/null}", false},
    {"mpt-precision-report{output=/dev/null}", false},
    {"mpt-precision-report{dtype=bf16 format=json master-weights=1 "
     "output=/dev/null}",
     false},
    {"func.func(mpt-autocast)", false},
    {"func.func(mpt-autocast{dtype=bf16 master-weights=1})", false},
    {"func.func(mpt-cast-cleanup)", false},
    {"mpt-insert-loss-scaling{mode=static}", false},
    {"mpt-insert-loss-scaling,func.func(mpt-lower-loss-scaling)", false},
    {"mpt-insert-loss-scaling,mpt-loss-scaling-report{output=/dev/null}",
     false},
    {"func.func(mpt-strip-training-markers)", false},
    {"func.func(mpt-strip-contract-attributes)", false},
    {"func.func(mpt-decompose-aggregate-ops)", false},
    {"func.func(convert-elementwise-to-linalg,mpt-merge-accumulated-matmuls)",
     false},
    {"mpt-mixed-precision", false},
    {"mpt-mixed-precision{dtype=bf16 master-weights=1}", false},
    {"mpt-matmul-to-tensorcore{chip=sm_80}", false},
    {"mpt-matmul-to-tensorcore{chip=sm_90a}", false},
    {"mpt-lower-to-cpu", true},
    {"mpt-mixed-precision,mpt-lower-to-cpu", true},
};

const char *const kRoles[] = {"param",
                              "data",
                              "hyperparameter",
                              "optimizer_state",
                              "loss_grad",
                              "loss_scale",
                              "loss_scale_growth_tracker",
                              "bogus"};

//===----------------------------------------------------------------------===//
// Crash and hang reporting
//===----------------------------------------------------------------------===//

/// What is running now, for the signal handler and the watchdog. Written
/// before every run; read only when the process is about to die.
struct CurrentRun {
  std::string text;     // the mutant
  std::string pipeline; // the pass pipeline
  std::string pass;     // the pass running in it
  std::string invalidAfter; // the first pass that left IR that does not verify
  std::string crashPath, hangPath;
  /// The CPU time of the main thread when the run started, in ms.
  std::atomic<int64_t> startedCpuMs{0};
  /// Counts the runs, so that the watchdog sees a new one.
  std::atomic<uint64_t> id{0};
  std::atomic<bool> running{false};
} current;

/// The CPU clock of the main thread, which runs every pass (the context is
/// single-threaded).
clockid_t mainThreadClock = CLOCK_THREAD_CPUTIME_ID;

int64_t mainThreadCpuMs() {
  timespec time{};
  if (::clock_gettime(mainThreadClock, &time) != 0)
    return 0;
  return int64_t(time.tv_sec) * 1000 + time.tv_nsec / 1000000;
}

/// Marks the start of a run on the main thread.
void startRun() {
  current.startedCpuMs = mainThreadCpuMs();
  ++current.id;
  current.running = true;
}

/// Writes `text` to `path` with async-signal-safe calls only.
void writeRaw(const std::string &path, const std::string &header,
              const std::string &text) {
  if (path.empty())
    return;
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    return;
  (void)!::write(fd, header.data(), header.size());
  (void)!::write(fd, text.data(), text.size());
  ::close(fd);
}

void onCrash(void *) {
  if (!current.running)
    return;
  std::string header = "// mpt-fuzz: crash in --pass-pipeline='builtin.module(" +
                       current.pipeline + ")'\n";
  writeRaw(current.crashPath, header, current.text);
  std::string line = "mpt-fuzz: CRASH in pipeline '" + current.pipeline +
                     "', pass '" + current.pass + "'" +
                     (current.invalidAfter.empty()
                          ? std::string()
                          : ", after '" + current.invalidAfter +
                                "' left IR that does not verify") +
                     " (mutant saved to " +
                     (current.crashPath.empty() ? std::string("nowhere: no --out")
                                                : current.crashPath) +
                     ")\n";
  (void)!::write(2, line.data(), line.size());
}

/// --test-in-run, in the first pass run.
void runTestInRun() {
  switch (testInRun) {
  case TestInRun::None:
    return;
  case TestInRun::Stop:
    ::raise(SIGSTOP);
    return;
  case TestInRun::Spin:
    for (volatile uint64_t i = 0;; i = i + 1)
      ;
  case TestInRun::Block:
    while (true)
      std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

/// Ends the process on a run that hangs: one that has taken more than
/// --timeout seconds of the main thread's CPU time (a loop), or that has
/// been awake for ten times that without finishing (a thread blocked for
/// good). Neither counts time the process is stopped (SIGSTOP) or starved:
/// the CPU clock does not run then, and a watchdog tick much longer than
/// its 200 ms sleep counts as one second at most.
void watchdog() {
  using std::chrono::milliseconds;
  auto last = std::chrono::steady_clock::now();
  uint64_t seen = 0;
  int64_t awakeMs = 0;
  while (true) {
    std::this_thread::sleep_for(milliseconds(200));
    auto now = std::chrono::steady_clock::now();
    int64_t tickMs =
        std::chrono::duration_cast<milliseconds>(now - last).count();
    last = now;
    if (!current.running)
      continue;
    if (current.id != seen) {
      seen = current.id;
      awakeMs = 0;
    }
    awakeMs += std::min<int64_t>(tickMs, 1000);
    int64_t cpuMs = mainThreadCpuMs() - current.startedCpuMs;
    int64_t limitMs = int64_t(runTimeout * 1000);
    if (cpuMs <= limitMs && awakeMs <= 10 * limitMs)
      continue;
    std::string why = cpuMs > limitMs ? "CPU time" : "no end while awake";
    std::string header = "// mpt-fuzz: hang (" + why + " > " +
                         std::to_string(cpuMs > limitMs ? 1 : 10) + " x " +
                         std::to_string(runTimeout.getValue()) +
                         " s) in --pass-pipeline='builtin.module(" +
                         current.pipeline + ")'\n";
    writeRaw(current.hangPath, header, current.text);
    llvm::errs() << "mpt-fuzz: HANG (" << why << ") in pipeline '"
                 << current.pipeline << "' (mutant saved to "
                 << (current.hangPath.empty() ? "nowhere: no --out"
                                              : current.hangPath)
                 << ")\n";
    llvm::errs().flush();
    ::_exit(3);
  }
}

/// While set, the diagnostic handler drops diagnostics instead of counting
/// them (the fuzzer's own verification of a pass's output).
bool quietDiagnostics = false;

LogicalResult verifyQuietly(Operation *op) {
  quietDiagnostics = true;
  LogicalResult result = verify(op);
  quietDiagnostics = false;
  return result;
}

/// Empties `op` (a module or a function) so that the rest of a pipeline runs
/// on valid IR: upstream patterns assume verified IR and crash on what an
/// earlier pass got wrong, which would hide that pass.
void emptyAnchor(Operation *op) {
  if (auto module = dyn_cast<ModuleOp>(op)) {
    Block *body = module.getBody();
    for (Operation &child : *body)
      child.dropAllReferences();
    while (!body->empty())
      body->back().erase();
    return;
  }
  if (auto function = dyn_cast<FunctionOpInterface>(op)) {
    function.getFunctionBody().dropAllReferences();
    function.getFunctionBody().getBlocks().clear();
    // A declaration may not be public.
    function.setPrivate();
  }
}

/// Verifies the IR after every pass that succeeds, as mpt-opt does, but
/// names the pass whose output does not verify (an invalid-ir finding)
/// instead of failing the pipeline as if the pass had reported an error.
struct VerifyAfterEachPass : public PassInstrumentation {
  void runBeforePass(Pass *pass, Operation *) override {
    current.pass = pass->getArgument().empty() ? pass->getName().str()
                                               : pass->getArgument().str();
  }
  void runAfterPass(Pass *pass, Operation *op) override {
    // A pipeline adaptor's nested passes were verified on their own.
    if (pass->getArgument().empty() || !current.invalidAfter.empty())
      return;
    if (succeeded(verifyQuietly(op)))
      return;
    current.invalidAfter = current.pass;
    emptyAnchor(op);
  }
};

//===----------------------------------------------------------------------===//
// Mutations
//===----------------------------------------------------------------------===//

class Mutator {
public:
  Mutator(std::mt19937_64 &rng) : rng(rng) {}

  /// Applies one random mutation to `module`; false when the one drawn did
  /// not apply (no candidate).
  bool mutate(ModuleOp module, std::string &what) {
    funcs.clear();
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        funcs.push_back(func);
    if (funcs.empty())
      return false;
    func::FuncOp func = funcs[pick(funcs.size())];
    ops.clear();
    func.walk([&](Operation *op) {
      if (op != func && !op->hasTrait<OpTrait::IsTerminator>())
        ops.push_back(op);
    });
    switch (pick(12)) {
    case 0:
      what = "delete-op";
      return deleteOp(func);
    case 1:
      what = "duplicate-op";
      return duplicateOp();
    case 2:
      what = "move-op";
      return moveOp();
    case 3:
    case 4:
      what = "rewire-operand";
      return rewireOperand(func);
    case 5:
      what = "change-type";
      return changeType(func);
    case 6:
      what = "add-marker";
      return addMarker();
    case 7:
      what = "remove-marker";
      return removeMarker();
    case 8:
      what = "change-role";
      return changeRole(func);
    case 9:
      what = "change-attribute";
      return changeAttribute(func);
    case 10:
      what = "wrap-in-scf";
      return wrapInScf();
    default:
      what = "change-result-attribute";
      return changeResultAttribute(func);
    }
  }

private:
  size_t pick(size_t n) { return n ? rng() % n : 0; }
  template <typename T> T &choose(SmallVectorImpl<T> &v) {
    return v[pick(v.size())];
  }

  /// Values of `type` (any type when null) that dominate `op`: block
  /// arguments and earlier results in its block and the enclosing blocks,
  /// up to the function.
  SmallVector<Value> visibleValues(Operation *op, Type type) {
    SmallVector<Value> values;
    auto consider = [&](Value v) {
      if (!type || v.getType() == type)
        values.push_back(v);
    };
    for (Operation *at = op; at && !isa<func::FuncOp>(at);
         at = at->getParentOp()) {
      Block *block = at->getBlock();
      if (!block)
        break;
      for (BlockArgument arg : block->getArguments())
        consider(arg);
      for (Operation &before : *block) {
        if (&before == at)
          break;
        for (Value result : before.getResults())
          consider(result);
      }
      if (at->getParentOp() &&
          at->getParentOp()->hasTrait<OpTrait::IsIsolatedFromAbove>())
        break;
    }
    return values;
  }

  bool deleteOp(func::FuncOp func) {
    if (ops.empty())
      return false;
    Operation *op = choose(ops);
    for (Value result : op->getResults()) {
      if (result.use_empty())
        continue;
      SmallVector<Value> candidates;
      for (BlockArgument arg : func.getArguments())
        if (arg.getType() == result.getType())
          candidates.push_back(arg);
      if (candidates.empty())
        return false;
      result.replaceAllUsesWith(choose(candidates));
    }
    op->erase();
    return true;
  }

  bool duplicateOp() {
    if (ops.empty())
      return false;
    Operation *op = choose(ops);
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    Operation *copy = b.clone(*op);
    for (auto [from, to] : llvm::zip(op->getResults(), copy->getResults()))
      for (OpOperand &use : llvm::make_early_inc_range(from.getUses()))
        if (rng() & 1)
          use.set(to);
    return true;
  }

  bool moveOp() {
    if (ops.empty())
      return false;
    Operation *op = choose(ops);
    SmallVector<Operation *> siblings;
    for (Operation &other : *op->getBlock())
      if (&other != op)
        siblings.push_back(&other);
    if (siblings.empty())
      return false;
    op->moveBefore(choose(siblings));
    return true;
  }

  bool rewireOperand(func::FuncOp func) {
    SmallVector<Operation *> withOperands;
    for (Operation *op : ops)
      if (op->getNumOperands())
        withOperands.push_back(op);
    // Terminators too: a rewired return is a different result.
    func.walk([&](Operation *op) {
      if (op->hasTrait<OpTrait::IsTerminator>() && op->getNumOperands())
        withOperands.push_back(op);
    });
    if (withOperands.empty())
      return false;
    Operation *op = choose(withOperands);
    OpOperand &operand = op->getOpOperand(pick(op->getNumOperands()));
    SmallVector<Value> candidates =
        visibleValues(op, operand.get().getType());
    if (candidates.empty())
      return false;
    operand.set(choose(candidates));
    return true;
  }

  Type mutateType(Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return type;
    MLIRContext *ctx = type.getContext();
    switch (pick(4)) {
    case 0: {
      Type elements[] = {Float32Type::get(ctx), Float16Type::get(ctx),
                         BFloat16Type::get(ctx), Float64Type::get(ctx),
                         IntegerType::get(ctx, 32)};
      return tensor.clone(elements[pick(5)]);
    }
    case 1: {
      if (tensor.getRank() == 0)
        return tensor;
      SmallVector<int64_t> shape(tensor.getShape());
      int64_t &dim = shape[pick(shape.size())];
      int64_t choices[] = {0, 1, 2, ShapedType::kDynamic};
      dim = pick(2) ? choices[pick(4)] : (dim > 0 ? dim + 1 : 3);
      return tensor.clone(shape);
    }
    case 2: {
      SmallVector<int64_t> shape(tensor.getShape());
      shape.push_back(1);
      return tensor.clone(shape);
    }
    default:
      return RankedTensorType::get({}, tensor.getElementType());
    }
  }

  bool changeType(func::FuncOp func) {
    if (pick(2) && func.getNumArguments()) {
      unsigned index = pick(func.getNumArguments());
      BlockArgument arg = func.getArgument(index);
      Type type = mutateType(arg.getType());
      arg.setType(type);
      SmallVector<Type> inputs(func.getArgumentTypes());
      inputs[index] = type;
      func.setType(
          FunctionType::get(func.getContext(), inputs, func.getResultTypes()));
      return true;
    }
    // A result type, where the op may infer it (tensor.empty, fills...).
    SmallVector<Operation *> withResults;
    for (Operation *op : ops)
      if (op->getNumResults())
        withResults.push_back(op);
    if (withResults.empty())
      return false;
    Operation *op = choose(withResults);
    Value result = op->getResult(pick(op->getNumResults()));
    result.setType(mutateType(result.getType()));
    return true;
  }

  bool addMarker() {
    SmallVector<Value> floats;
    for (Operation *op : ops)
      for (Value result : op->getResults())
        if (auto tensor = dyn_cast<RankedTensorType>(result.getType()))
          if (isa<FloatType>(tensor.getElementType()))
            floats.push_back(result);
    if (floats.empty())
      return false;
    Value value = choose(floats);
    OpBuilder b(value.getContext());
    b.setInsertionPointAfterValue(value);
    Operation *marker =
        pick(3) ? mpt::GradientOp::create(b, value.getLoc(), value)
                      .getOperation()
                : mpt::GradSeedOp::create(b, value.getLoc(), value)
                      .getOperation();
    value.replaceAllUsesExcept(marker->getResult(0), marker);
    return true;
  }

  bool removeMarker() {
    SmallVector<Operation *> markers;
    for (Operation *op : ops)
      if (isa<mpt::GradientOp, mpt::GradSeedOp>(op))
        markers.push_back(op);
    if (markers.empty())
      return false;
    Operation *marker = choose(markers);
    marker->getResult(0).replaceAllUsesWith(marker->getOperand(0));
    marker->erase();
    return true;
  }

  bool changeRole(func::FuncOp func) {
    if (!func.getNumArguments())
      return false;
    unsigned index = pick(func.getNumArguments());
    MLIRContext *ctx = func.getContext();
    switch (pick(4)) {
    case 0:
      func.removeArgAttr(index, "mpt.role");
      return true;
    case 1: {
      double values[] = {0, 1, -1, 65536, 1e30, 0.5, 2147483648.0};
      func.setArgAttr(index, "mpt.initial_value",
                      FloatAttr::get(Float64Type::get(ctx), values[pick(7)]));
      return true;
    }
    default:
      func.setArgAttr(index, "mpt.role",
                      StringAttr::get(ctx, kRoles[pick(std::size(kRoles))]));
      return true;
    }
  }

  bool changeResultAttribute(func::FuncOp func) {
    if (!func.getNumResults())
      return false;
    unsigned index = pick(func.getNumResults());
    MLIRContext *ctx = func.getContext();
    switch (pick(4)) {
    case 0:
      func.removeResultAttr(index, StringAttr::get(ctx, "mpt.updates"));
      func.removeResultAttr(index, StringAttr::get(ctx, "mpt.role"));
      return true;
    case 1:
      func.setResultAttr(index, "mpt.role", StringAttr::get(ctx, "loss"));
      return true;
    default: {
      int64_t target = func.getNumArguments() ? pick(func.getNumArguments() + 1)
                                              : 0;
      func.setResultAttr(index, "mpt.updates",
                         IntegerAttr::get(IntegerType::get(ctx, 64), target));
      return true;
    }
    }
  }

  Attribute mutateAttribute(Attribute attr) {
    MLIRContext *ctx = attr.getContext();
    if (auto i = dyn_cast<IntegerAttr>(attr)) {
      unsigned width = i.getValue().getBitWidth();
      unsigned choice = pick(6);
      // The successor in the attribute's own width: it wraps there, and an
      // earlier mutation may have left INT64_MAX or a value wider than 64 bits.
      if (choice == 3)
        return IntegerAttr::get(i.getType(), i.getValue() + 1);
      int64_t values[] = {0, 1, -1, 0, INT32_MAX, INT64_MAX};
      return IntegerAttr::get(i.getType(),
                              APInt(width, values[choice], /*isSigned=*/true,
                                    /*implicitTrunc=*/true));
    }
    if (auto f = dyn_cast<FloatAttr>(attr)) {
      double values[] = {0.0, -1.0, 1e30, 65504.0, 1e-45,
                         std::numeric_limits<double>::infinity(),
                         std::numeric_limits<double>::quiet_NaN()};
      return FloatAttr::get(f.getType(), values[pick(7)]);
    }
    if (auto s = dyn_cast<StringAttr>(attr)) {
      const char *values[] = {"", "bogus", "f16", "bf16", "loss", "param"};
      return StringAttr::get(ctx, values[pick(6)]);
    }
    return UnitAttr::get(ctx);
  }

  bool changeAttribute(func::FuncOp func) {
    SmallVector<Operation *> withAttrs;
    for (Operation *op : ops)
      if (!op->getAttrs().empty())
        withAttrs.push_back(op);
    withAttrs.push_back(func);
    Operation *op = choose(withAttrs);
    ArrayRef<NamedAttribute> attrs = op->getAttrs();
    if (attrs.empty())
      return false;
    NamedAttribute attr = attrs[pick(attrs.size())];
    // function_type and sym_name stay: the module would not name the
    // function any more.
    if (attr.getName() == "function_type" || attr.getName() == "sym_name")
      return false;
    if (op->getDiscardableAttr(attr.getName())) {
      if (pick(3) == 0)
        op->removeAttr(attr.getName());
      else
        op->setAttr(attr.getName(), mutateAttribute(attr.getValue()));
      return true;
    }
    // An inherent attribute (a property) only takes one of its own kind:
    // another would be dropped to null, which verifiers do not expect.
    Attribute replacement = mutateAttribute(attr.getValue());
    if (replacement.getTypeID() != attr.getValue().getTypeID())
      return false;
    op->setAttr(attr.getName(), replacement);
    return true;
  }

  bool wrapInScf() {
    if (ops.empty())
      return false;
    Operation *op = choose(ops);
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (pick(2)) {
      // scf.execute_region { op; scf.yield }
      auto region =
          scf::ExecuteRegionOp::create(b, loc, op->getResultTypes());
      Block *body = b.createBlock(&region.getRegion());
      op->replaceAllUsesWith(region.getResults());
      op->moveBefore(body, body->end());
      b.setInsertionPointToEnd(body);
      scf::YieldOp::create(b, loc, op->getResults());
      return true;
    }
    // scf.if %true { op } else { a copy of op }: both branches compute it.
    Value cond = arith::ConstantOp::create(b, loc, b.getBoolAttr(pick(2)));
    auto ifOp = scf::IfOp::create(b, loc, op->getResultTypes(), cond,
                                  /*withElseRegion=*/true);
    op->replaceAllUsesWith(ifOp.getResults());
    Block *thenBlock = &ifOp.getThenRegion().front();
    Block *elseBlock = &ifOp.getElseRegion().front();
    if (!op->getNumResults()) {
      // The builder added empty yields: insert before them.
      OpBuilder eb = OpBuilder::atBlockTerminator(elseBlock);
      eb.clone(*op);
      op->moveBefore(thenBlock->getTerminator());
      return true;
    }
    OpBuilder eb = OpBuilder::atBlockEnd(elseBlock);
    Operation *copy = eb.clone(*op);
    scf::YieldOp::create(eb, loc, copy->getResults());
    op->moveBefore(thenBlock, thenBlock->end());
    OpBuilder tb = OpBuilder::atBlockEnd(thenBlock);
    scf::YieldOp::create(tb, loc, op->getResults());
    return true;
  }

  std::mt19937_64 &rng;
  SmallVector<func::FuncOp> funcs;
  SmallVector<Operation *> ops;
};

/// Whether `module` holds IR that upstream MLIR 22's verifiers accept (or
/// crash on) although upstream code indexes out of bounds with it. Such
/// mutants are dropped: they find upstream bugs, not mpt's.
///  - tensor.concat with a negative `dim`: ConcatOp::verify reads a shape at
///    that index before checking it.
///  - memref.dim / tensor.dim with a negative constant index: the verifiers
///    only reject indices >= rank, and canonicalization patterns
///    (memref SimplifyDimOfAllocOp) then read shape[-1] and may crash.
bool hasUpstreamVerifierGap(ModuleOp module) {
  WalkResult result = module.walk([](Operation *op) {
    if (auto concat = dyn_cast<tensor::ConcatOp>(op))
      if (static_cast<int64_t>(concat.getDim()) < 0)
        return WalkResult::interrupt();
    if (auto dim = dyn_cast<ShapedDimOpInterface>(op))
      if (std::optional<int64_t> index =
              getConstantIntValue(dim.getDimension()))
        if (*index < 0)
          return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

//===----------------------------------------------------------------------===//
// Seeds
//===----------------------------------------------------------------------===//

void collectFiles(StringRef input, std::vector<std::string> &files) {
  if (!llvm::sys::fs::is_directory(input)) {
    files.push_back(input.str());
    return;
  }
  std::error_code ec;
  for (llvm::sys::fs::recursive_directory_iterator it(input, ec), end;
       it != end && !ec; it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".mlir")
      files.push_back(it->path());
}

/// The chunks of `text` between `// -----` lines (mlir-opt's
/// --split-input-file marker).
SmallVector<StringRef> splitChunks(StringRef text) {
  SmallVector<StringRef> chunks;
  while (true) {
    size_t at = text.find("// -----");
    if (at == StringRef::npos) {
      chunks.push_back(text);
      return chunks;
    }
    chunks.push_back(text.take_front(at));
    text = text.drop_front(at);
    text = text.drop_front(std::min(text.size(), text.find('\n')));
  }
}

size_t countOps(Operation *root) {
  size_t n = 0;
  root->walk([&](Operation *) { ++n; });
  return n;
}

bool hasStep(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal())
      return true;
  return false;
}

std::string print(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os, OpPrintingFlags().assumeVerified());
  return text;
}
} // namespace

//===----------------------------------------------------------------------===//
// main
//===----------------------------------------------------------------------===//

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerAllPasses();
  mpt::registerAllPasses();
  cl::HideUnrelatedOptions(fuzzCategory);
  cl::ParseCommandLineOptions(argc, argv,
                              "mpt-fuzz: structured fuzzing of mpt's passes\n");

  DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mpt::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // One thread: the same seed gives the same runs, and the watchdog knows
  // which run is the slow one.
  context.disableMultithreading();

  // Diagnostics are counted, not printed (bad input is what is fed in).
  unsigned numErrors = 0;
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (quietDiagnostics || diag.getSeverity() != DiagnosticSeverity::Error)
      return success();
    ++numErrors;
    if (diagnostics.size() < 4096)
      diagnostics += diag.str() + "\n";
    return success();
  });

  if (!outDir.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(outDir)) {
      llvm::errs() << "mpt-fuzz: error: cannot create " << outDir << ": "
                   << ec.message() << "\n";
      return 2;
    }

  // Seeds, in a fixed order.
  std::vector<std::string> files;
  for (const std::string &input : inputs)
    collectFiles(input, files);
  llvm::sort(files);
  std::vector<OwningOpRef<ModuleOp>> seeds;
  for (const std::string &file : files) {
    auto buffer = llvm::MemoryBuffer::getFile(file);
    if (!buffer)
      continue;
    for (StringRef chunk : splitChunks((*buffer)->getBuffer())) {
      numErrors = 0;
      OwningOpRef<ModuleOp> module =
          parseSourceString<ModuleOp>(chunk, ParserConfig(&context));
      if (!module || numErrors || failed(verify(*module)) ||
          !hasStep(*module) || countOps(*module) > maxSeedOps)
        continue;
      seeds.push_back(std::move(module));
    }
  }
  if (seeds.empty()) {
    llvm::errs() << "mpt-fuzz: error: no seed parses and verifies\n";
    return 2;
  }

  SmallVector<PipelineSpec> pipelines;
  for (const PipelineSpec &spec : kPipelines)
    if (onlyPipelines.empty() || llvm::is_contained(onlyPipelines, spec.pipeline))
      pipelines.push_back(spec);
  for (const std::string &extra : onlyPipelines)
    if (!llvm::any_of(pipelines, [&](const PipelineSpec &spec) {
          return extra == spec.pipeline;
        }))
      pipelines.push_back({strdup(extra.c_str()), false});
  // Parse every pipeline once up front: a typo is the fuzzer's error.
  for (const PipelineSpec &spec : pipelines) {
    PassManager pm(&context);
    std::string error;
    llvm::raw_string_ostream errorStream(error);
    if (failed(parsePassPipeline(spec.pipeline, pm, errorStream))) {
      llvm::errs() << "mpt-fuzz: error: pipeline '" << spec.pipeline
                   << "': " << error << "\n";
      return 2;
    }
  }

  llvm::sys::AddSignalHandler(onCrash, nullptr);
  if (::pthread_getcpuclockid(::pthread_self(), &mainThreadClock) != 0) {
    llvm::errs() << "mpt-fuzz: error: no CPU clock for the main thread\n";
    return 2;
  }
  std::thread(watchdog).detach();

  std::mt19937_64 rng(seedOpt);
  Mutator mutator(rng);
  std::map<std::string, unsigned> findings, mutationCounts, upstreamInvalid;
  unsigned valid = 0, rejected = 0, runs = 0, cleanFailures = 0;
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  // Saves the mutant of a finding (or of a note) under --out.
  auto save = [&](StringRef kind, StringRef pipeline, const std::string &text,
                  unsigned mutant, StringRef pass) {
    std::string path;
    if (!outDir.empty()) {
      path = (outDir + "/" + kind + "-" + Twine(seedOpt) + "-" + Twine(mutant) +
              ".mlir")
                 .str();
      std::string header = "// mpt-fuzz: " + kind.str() +
                           " in --pass-pipeline='builtin.module(" +
                           pipeline.str() + ")'\n";
      if (!pass.empty())
        header += "// the IR did not verify after pass '" + pass.str() + "'\n";
      for (StringRef line : llvm::split(StringRef(diagnostics), '\n'))
        if (!line.empty())
          header += "// " + line.str() + "\n";
      writeRaw(path, header, text);
    }
    return path;
  };
  auto report = [&](StringRef kind, StringRef pipeline, const std::string &text,
                    unsigned mutant, StringRef pass = "") {
    ++findings[kind.str()];
    std::string path = save(kind, pipeline, text, mutant, pass);
    llvm::errs() << "mpt-fuzz: " << kind << " in pipeline '" << pipeline
                 << "'" << (pass.empty() ? "" : " after pass '" + pass + "'")
                 << " on mutant " << mutant
                 << (path.empty() ? "" : " (saved to " + path + ")") << "\n";
    if (verbose)
      llvm::errs() << diagnostics;
  };

  while ((onlyMutant >= 0 ? valid <= unsigned(onlyMutant)
                          : numMutants == 0 || valid < numMutants) &&
         (timeLimit <= 0 || elapsed() < timeLimit)) {
    if (onlyMutant < 0 && numMutants == 0 && timeLimit <= 0)
      break;
    // A mutant: a seed with one to three mutations, kept if it verifies.
    OwningOpRef<ModuleOp> mutant = seeds[rng() % seeds.size()]->clone();
    unsigned numMutations = 1 + rng() % 3;
    std::string applied;
    bool ok = true;
    for (unsigned m = 0; m < numMutations && ok; ++m) {
      std::string what;
      ok = mutator.mutate(*mutant, what);
      applied += (applied.empty() ? "" : ",") + what;
    }
    // Upstream verifiers may crash on what a mutation made (they assume
    // their own invariants); such a crash is the mutator's bug, named so.
    current.text.clear();
    current.pipeline = "(none: verifying a mutant after " + applied +
                       ", a mutator bug)";
    current.pass.clear();
    current.invalidAfter.clear();
    current.crashPath = current.hangPath = "";
    startRun();
    numErrors = 0;
    quietDiagnostics = true;
    bool rejectedByVerifier = !ok || hasUpstreamVerifierGap(*mutant) ||
                              failed(verify(*mutant));
    quietDiagnostics = false;
    current.running = false;
    if (rejectedByVerifier) {
      ++rejected;
      continue;
    }
    // The passes run on the mutant as read back from its text, which is
    // what a finding saves: a mutant that does not read back (a verified
    // arith.mulf of tensor<4xf32> and tensor<?xf32> prints as one type) is
    // rejected too.
    std::string text = print(*mutant);
    quietDiagnostics = true;
    mutant = parseSourceString<ModuleOp>(text, ParserConfig(&context));
    quietDiagnostics = false;
    if (!mutant) {
      ++rejected;
      continue;
    }
    ++mutationCounts[applied];
    unsigned index = valid++;
    if (onlyMutant >= 0 && index != unsigned(onlyMutant))
      continue;
    if (onlyMutant >= 0 && !outDir.empty())
      writeRaw((outDir + "/mutant-" + Twine(seedOpt) + "-" + Twine(index) +
                ".mlir")
                   .str(),
               "", text);
    for (const PipelineSpec &spec : pipelines) {
      if (spec.slow && (cpuEvery == 0 || index % cpuEvery != 0))
        continue;
      OwningOpRef<ModuleOp> module = mutant->clone();
      PassManager pm(&context);
      pm.enableVerifier(false);
      pm.addInstrumentation(std::make_unique<VerifyAfterEachPass>());
      std::string error;
      llvm::raw_string_ostream errorStream(error);
      (void)parsePassPipeline(spec.pipeline, pm, errorStream);
      numErrors = 0;
      diagnostics.clear();
      current.text = text;
      current.pipeline = spec.pipeline;
      if (!outDir.empty()) {
        current.crashPath = (outDir + "/crash-" + Twine(seedOpt) + "-" +
                             Twine(index) + ".mlir")
                                .str();
        current.hangPath = (outDir + "/hang-" + Twine(seedOpt) + "-" +
                            Twine(index) + ".mlir")
                               .str();
      }
      current.pass.clear();
      current.invalidAfter.clear();
      startRun();
      if (runs == 0)
        runTestInRun();
      LogicalResult result = pm.run(*module);
      current.running = false;
      ++runs;
      if (!current.invalidAfter.empty()) {
        // An mpt pass must report bad input itself; an upstream pass's
        // invalid IR is its bug (mpt-opt --verify-each fails on it with the
        // verifier's diagnostic).
        if (StringRef(current.invalidAfter).starts_with("mpt-"))
          report("invalid-ir", spec.pipeline, text, index,
                 current.invalidAfter);
        else {
          ++upstreamInvalid[current.invalidAfter];
          save("upstream-invalid-ir", spec.pipeline, text, index,
               current.invalidAfter);
        }
        continue;
      }
      if (failed(result)) {
        if (numErrors == 0)
          report("silent-failure", spec.pipeline, text, index);
        else
          ++cleanFailures;
        continue;
      }
      if (numErrors) {
        report("error-but-success", spec.pipeline, text, index);
        continue;
      }
      if (failed(verify(*module))) {
        report("invalid-output", spec.pipeline, text, index);
        continue;
      }
      // What a tool would write must read back.
      std::string output = print(*module);
      if (!parseSourceString<ModuleOp>(output, ParserConfig(&context)))
        report("invalid-output", spec.pipeline, text, index);
    }
  }

  llvm::outs() << "mpt-fuzz: seed " << seedOpt << ": " << seeds.size()
               << " seed modules, " << valid << " mutants (" << rejected
               << " rejected: do not verify or read back), " << runs << " pass runs ("
               << cleanFailures << " ended in a diagnostic) in "
               << llvm::format("%.1f", elapsed()) << " s\n";
  for (auto &[pass, count] : upstreamInvalid)
    llvm::outs() << "  (not a finding) upstream pass '" << pass
                 << "' left IR that does not verify: " << count << "\n";
  unsigned total = 0;
  for (auto &[kind, count] : findings) {
    llvm::outs() << "  " << kind << ": " << count << "\n";
    total += count;
  }
  llvm::outs() << "mpt-fuzz: " << total << " finding(s)\n";
  return total ? 1 : 0;
}
