//===- CompileStep.cpp - lowering and JIT-compiling the step --------------===//
#include "CompileStep.h"
#include "AllocationCounter.h"
#include "CPUPath.h"
#include "ChunkFrames.h"
#include "CompileProgress.h"
#include "LargeBlocks.h"
#include "PartitionedCodegen.h"
#include "RunError.h"
#include "StepChecks.h"
#include "StepTimer.h"
#include "TieredCompile.h"

#include "mpt/Support/Report.h"
#include "mpt/Pipelines/LowerToCPU.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Pass.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/IPO/Internalize.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <optional>
#include <unistd.h>

using namespace mlir;
using namespace mpt;

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

llvm::Error mpt::runPipeline(PassManager &pm, ModuleOp module,
                             const llvm::Twine &what) {
  // MLIR's pass manager options (--mlir-timing, --mlir-print-ir-after-all,
  // ...), as mlir-opt reads them: where the lowering's time goes.
  if (failed(applyPassManagerCLOptions(pm)))
    return runError("cannot apply the --mlir-* pass manager options to " +
                    what);
  applyDefaultTimingPassManagerCLOptions(pm);
  std::string where;
  pm.addInstrumentation(std::make_unique<FailedPassRecorder>(&where));
  // A pass that failed with a located error has said what is wrong: one
  // line per error (docs/Running.md). The pass is named only when it
  // failed without one.
  bool sawError = false;
  ScopedDiagnosticHandler seeErrors(module.getContext(), [&](Diagnostic &diag) {
    sawError |= diag.getSeverity() == DiagnosticSeverity::Error;
    return failure(); // on to mpt-run's handler, which prints it
  });
  if (succeeded(pm.run(module)))
    return llvm::Error::success();
  if (sawError)
    return alreadyReported();
  return runError(what + " failed" + (where.empty() ? "" : " " + where));
}

/// Erases the functions `func` does not call (transitively): they may not be
/// runnable.
static void keepCalledFunctions(ModuleOp module, func::FuncOp func) {
  llvm::SmallPtrSet<Operation *, 8> called = {func};
  SmallVector<Operation *> worklist = {func};
  while (!worklist.empty())
    if (auto uses = SymbolTable::getSymbolUses(worklist.pop_back_val()))
      for (const SymbolTable::SymbolUse &use : *uses)
        if (Operation *callee =
                SymbolTable::lookupSymbolIn(module, use.getSymbolRef()))
          if (called.insert(callee).second)
            worklist.push_back(callee);
  for (auto other : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (!called.contains(other) && !other.isExternal())
      other.erase();
}

/// Lowers the module to the LLVM dialect with --mpt-lower-to-cpu.
static llvm::Error lowerToLLVM(ModuleOp module, StringRef funcName,
                               const LowerToCPUOptions &options) {
  PassManager pm(module.getContext());
  // Verified once, after the pipeline: verifying after each of its ~50
  // passes took a third of the lowering of a large model
  // (docs/CompileTime.md). mpt-opt --mpt-lower-to-cpu (the lit tests)
  // verifies after each pass.
  pm.enableVerifier(false);
  buildLowerToCPUPipeline(pm, options);
  if (llvm::Error err = runPipeline(
          pm, module, "lowering @" + funcName + " with --mpt-lower-to-cpu"))
    return err;
  if (failed(verify(module)))
    return runError("lowering @" + funcName +
                    " with --mpt-lower-to-cpu gave invalid IR (the error "
                    "above; mpt-opt --mpt-lower-to-cpu names the pass)");
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
    return alreadyReported();
  return llvm::Error::success();
}

/// The matmul kernels: few functions, called by every contraction of the
/// step, whose code at -O0 is 5x slower (every vector spilled).
static bool isMatmulKernel(const llvm::Function &function) {
  StringRef name = function.getName();
  return name.starts_with("__mpt_amx_") || name.starts_with("__mpt_avx512") ||
         name.starts_with("__mpt_avx2_");
}

/// The quick tier's IR pipeline (--tiered-compile): the step inlined into
/// its C wrapper, memory to registers and the descriptors' insert/extract
/// chains folded, dead functions dropped, the chunks' values passed through
/// memory (ChunkFrames.h). Without it code generation at -O0 takes longer
/// (LLVM's FastISel falls back to SelectionDAG on every descriptor
/// insertvalue; MobileNetV3-small: 6.8 s against 5.0 s; and on the chunks'
/// calls and returns: 1.8 s against 1.2 s); the -O2 pipeline would take 3x
/// what it saves (docs/CompileTime.md).
static llvm::Error runQuickTierPipeline(llvm::Module &llvmModule) {
  llvm::PassBuilder passBuilder;
  llvm::LoopAnalysisManager loopAnalyses;
  llvm::FunctionAnalysisManager functionAnalyses;
  llvm::CGSCCAnalysisManager cgsccAnalyses;
  llvm::ModuleAnalysisManager moduleAnalyses;
  passBuilder.registerModuleAnalyses(moduleAnalyses);
  passBuilder.registerCGSCCAnalyses(cgsccAnalyses);
  passBuilder.registerFunctionAnalyses(functionAnalyses);
  passBuilder.registerLoopAnalyses(loopAnalyses);
  passBuilder.crossRegisterProxies(loopAnalyses, functionAnalyses,
                                   cgsccAnalyses, moduleAnalyses);
  llvm::ModulePassManager passes;
  if (llvm::Error err = passBuilder.parsePassPipeline(
          passes,
          "always-inline,function(sroa,instsimplify,simplifycfg),globaldce"))
    return err;
  passes.run(llvmModule, moduleAnalyses);
  // After the inlining: the chunks' caller is then the step's C wrapper.
  unsigned framed = passChunkValuesThroughFrames(llvmModule);
  if (isTimingRequested())
    llvm::errs() << "mpt-run: timing: quick code: " << framed
                 << " chunks pass their values through frames\n";
  return llvm::Error::success();
}

/// What mpt-run does to the step's LLVM IR before its code is generated, on
/// both paths (ExecutionEngine's transformer, PartitionedCodegen.h):
/// internalizes the packed wrappers, inlines the step into its C wrapper,
/// optimises at `optLevel` (or with the quick tier's pipeline) and marks
/// the large-block functions.
static llvm::Error prepareLLVMModule(llvm::Module &llvmModule,
                                     StringRef funcName, StringRef packedName,
                                     unsigned optLevel,
                                     bool quickTier = false) {
  // ExecutionEngine adds a packed wrapper (_mlir_NAME) for every function;
  // only the step's C wrapper's one (packedName) is called from outside.
  // Internal, the unused ones are dropped before LLVM optimises and
  // generates code for them: the step's own packed wrapper is one block of
  // thousands of loads and a call with thousands of arguments, seconds of
  // instruction selection and scheduling on a large model
  // (docs/CompileTime.md).
  llvm::internalizeModule(llvmModule, [&](const llvm::GlobalValue &value) {
    return value.getName() == packedName ||
           !value.getName().starts_with("_mlir_");
  });
  // The step into its C wrapper, its only caller: the wrapper loads every
  // field of every descriptor and passes them to the step (thousands of
  // scalars), which returns all its results as one struct; inlined, the
  // fields go straight to the chunks that use them (EfficientNet-B0: 33000
  // instructions in the two, 24000 in one; docs/CompileTime.md).
  if (llvm::Function *step = llvmModule.getFunction(funcName)) {
    step->setLinkage(llvm::GlobalValue::InternalLinkage);
    step->removeFnAttr(llvm::Attribute::NoInline);
    step->addFnAttr(llvm::Attribute::AlwaysInline);
  }
  if (quickTier)
    return runQuickTierPipeline(llvmModule);
  if (llvm::Error err = makeOptimizingTransformer(
          optLevel, /*sizeLevel=*/0, /*targetMachine=*/nullptr)(&llvmModule))
    return err;
  // The step's C wrapper on a large model: one block of thousands of
  // descriptor loads and calls, on which LLVM's schedulers are superlinear;
  // its code generated as at -O0 (LargeBlocks.h).
  if (optLevel > 0)
    markLargeBlockFunctions(llvmModule, getFastCodegenBlockLimit());
  return llvm::Error::success();
}

/// The host's target machine builder at code generation level `optLevel`.
static llvm::Expected<llvm::orc::JITTargetMachineBuilder>
getHostMachine(unsigned optLevel) {
  auto hostMachine = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!hostMachine)
    return hostMachine.takeError();
  hostMachine->setCodeGenOptLevel(
      static_cast<llvm::CodeGenOptLevel>(static_cast<int>(optLevel)));
  return hostMachine;
}

/// JIT-compiles the lowered module with ExecutionEngine and looks up the
/// step's packed C wrapper (`packedName`).
static llvm::Expected<CompiledStep>
jitCompile(ModuleOp module, StringRef funcName, StringRef packedName,
           ArrayRef<StringRef> libs, bool dumpObject,
           const CompileOptions &compileOptions) {
  unsigned optLevel = compileOptions.optLevel;
  ExecutionEngineOptions engineOptions;
  // At -O0 (with --perf-jitdump: one module, the engine's) the kernels'
  // code is generated at -O2 (compileInPartitions says why): an -O2
  // machine, on which every other function is optnone.
  std::function<llvm::Error(llvm::Module *)> transformer =
      [&](llvm::Module *llvmModule) -> llvm::Error {
        if (llvm::Error err = prepareLLVMModule(*llvmModule, funcName,
                                                packedName, optLevel))
          return err;
        if (optLevel == 0)
          for (llvm::Function &function : *llvmModule)
            if (!function.isDeclaration() && !isMatmulKernel(function)) {
              function.removeFnAttr(llvm::Attribute::AlwaysInline);
              function.addFnAttr(llvm::Attribute::NoInline);
              function.addFnAttr(llvm::Attribute::OptimizeNone);
            }
        return llvm::Error::success();
      };
  engineOptions.transformer = transformer;
  // The code generator's level goes into a target machine of our own:
  // MLIR 22's ExecutionEngine sets jitCodeGenOptLevel on a builder it then
  // does not use and compiles with the host's default (-O2) machine, so
  // -O0 ran the machine scheduler and the greedy register allocator
  // (docs/CompileTime.md).
  engineOptions.jitCodeGenOptLevel =
      static_cast<llvm::CodeGenOptLevel>(static_cast<int>(optLevel));
  auto hostMachine = getHostMachine(optLevel == 0 ? 2 : optLevel);
  if (!hostMachine)
    return runError("JIT compilation failed: " +
                    toString(hostMachine.takeError()));
  auto targetMachine = hostMachine->createTargetMachine();
  if (!targetMachine)
    return runError("JIT compilation failed: " +
                    toString(targetMachine.takeError()));
  engineOptions.sharedLibPaths = libs;
  // The listeners write files on every run (a jitdump directory per
  // process for perf); only on request.
  engineOptions.enablePerfNotificationListener = compileOptions.perfJitdump;
  engineOptions.enableGDBNotificationListener = false;
  // The compiled object, for the cache.
  engineOptions.enableObjectDump = dumpObject;
  auto created =
      ExecutionEngine::create(module, engineOptions, std::move(*targetMachine));
  if (!created)
    return runError("JIT compilation failed: " + toString(created.takeError()));
  std::unique_ptr<ExecutionEngine> engine = std::move(*created);
  engine->registerSymbols(getCountingAllocatorSymbols);
  auto entry = engine->lookupPacked(("_mlir_ciface_" + funcName).str());
  if (!entry)
    return runError("JIT compilation failed: " + toString(entry.takeError()));
  CompiledStep compiled;
  compiled.engine = std::move(engine);
  compiled.entry = *entry;
  return std::move(compiled);
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
    llvm::errs() << "mpt-run: warning: cannot write the cache entry in " << dir
                 << ": " << ec.message() << "\n";
    return;
  }
  ::close(fd);
  engine.dumpToObjectFile(temp);
  if (auto object = llvm::MemoryBuffer::getFile(temp, /*IsText=*/false))
    writeObjectCacheEntry(dir, key, {(*object)->getBuffer()});
  llvm::sys::fs::remove(temp);
}

/// Adds the packed wrapper `_mlir_NAME(ptr args)` of every function defined
/// in `llvmModule` and not internal, as MLIR 22's ExecutionEngine::create
/// does (so that the IR, after prepareLLVMModule, is the one-module path's):
/// argument i is loaded through args[i], and a result is stored through
/// args[arguments].
static void addPackedWrappers(llvm::Module &llvmModule) {
  SmallVector<llvm::Function *> defined;
  for (llvm::Function &function : llvmModule)
    if (!function.isDeclaration() && !function.hasLocalLinkage())
      defined.push_back(&function);
  llvm::LLVMContext &context = llvmModule.getContext();
  llvm::IRBuilder<> builder(context);
  auto *wrapperType = llvm::FunctionType::get(
      builder.getVoidTy(), builder.getPtrTy(), /*isVarArg=*/false);
  for (llvm::Function *function : defined) {
    auto *wrapper = cast<llvm::Function>(
        llvmModule
            .getOrInsertFunction(("_mlir_" + function->getName()).str(),
                                 wrapperType)
            .getCallee());
    builder.SetInsertPoint(llvm::BasicBlock::Create(context, "", wrapper));
    llvm::Value *packed = wrapper->getArg(0);
    auto slot = [&](uint64_t index) {
      llvm::Value *address = builder.CreateGEP(builder.getPtrTy(), packed,
                                               builder.getInt64(index));
      return builder.CreateLoad(builder.getPtrTy(), address);
    };
    SmallVector<llvm::Value *> arguments;
    for (llvm::Argument &argument : function->args())
      arguments.push_back(
          builder.CreateLoad(argument.getType(), slot(argument.getArgNo())));
    llvm::Value *result = builder.CreateCall(function, arguments);
    if (!result->getType()->isVoidTy())
      builder.CreateStore(result, slot(function->arg_size()));
    builder.CreateRetVoid();
  }
}

/// Translates the lowered module to LLVM IR, prepares it as ExecutionEngine
/// would (prepareLLVMModule) and generates its code in `partitions`
/// partitions on as many threads (PartitionedCodegen.h).
/// The lowered `module` as LLVM IR in `context` for the host `machine`
/// (its triple and data layout), with the packed wrappers ExecutionEngine
/// would add.
static llvm::Expected<std::unique_ptr<llvm::Module>>
translateForHost(ModuleOp module, llvm::LLVMContext &context,
                 llvm::orc::JITTargetMachineBuilder machine) {
  auto targetMachine = machine.createTargetMachine();
  if (!targetMachine)
    return runError("JIT compilation failed: " +
                    toString(targetMachine.takeError()));
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, context);
  if (!llvmModule)
    return runError("JIT compilation failed: could not convert to LLVM IR");
  ExecutionEngine::setupTargetTripleAndDataLayout(llvmModule.get(),
                                                  targetMachine->get());
  addPackedWrappers(*llvmModule);
  return std::move(llvmModule);
}

/// The work of `function` as --mpt-estimate-work estimated it ("mpt-work":
/// the ops it runs in one step), or nullopt if it was made later.
static std::optional<uint64_t> getEstimatedWork(const llvm::Function &function) {
  uint64_t work;
  if (function.getFnAttribute("mpt-work").getValueAsString().getAsInteger(
          10, work))
    return std::nullopt;
  return work;
}

/// The matmul kernels of `llvmModule`.
static SmallVector<llvm::Function *>
selectMatmulKernels(llvm::Module &llvmModule) {
  SmallVector<llvm::Function *> kernels;
  for (llvm::Function &function : llvmModule)
    if (!function.isDeclaration() && isMatmulKernel(function))
      kernels.push_back(&function);
  return kernels;
}

/// The functions the quick code optimises: the matmul kernels, and the
/// functions with the most estimated work per LLVM instruction (the loops
/// of outlined ops and of the step's chunks), the first in that order that
/// together run the share getQuickCodeOptimizedWork() of the step's ops.
/// Work per instruction, not work: -O2's cost grows with a function's
/// size, so small hot loops come before large chunks that do as much work
/// (the same quick steps, 3-6% less compile time before the first step,
/// docs/CompileTime.md). Not the step nor its C
/// wrapper (`_mlir_ciface_`), into which it is inlined: they call the
/// chunks and hold no loops.
static SmallVector<llvm::Function *>
selectQuickTierOptimized(llvm::Module &llvmModule, StringRef funcName) {
  SmallVector<llvm::Function *> selected = selectMatmulKernels(llvmModule);
  struct Candidate {
    uint64_t work;
    double workPerInstruction;
    llvm::Function *function;
  };
  SmallVector<Candidate> ranked;
  double totalWork = 0;
  for (llvm::Function &function : llvmModule) {
    if (function.isDeclaration() || isMatmulKernel(function))
      continue;
    std::optional<uint64_t> work = getEstimatedWork(function);
    if (!work)
      continue;
    if (function.getName() == funcName ||
        function.getName().starts_with("_mlir_") || *work == 0)
      continue;
    ranked.push_back(
        {*work,
         double(*work) /
             double(std::max<unsigned>(1, function.getInstructionCount())),
         &function});
    totalWork += double(*work);
  }
  size_t kernels = selected.size();
  // By work per instruction, largest first (then by name, so that the
  // choice is the same from run to run).
  llvm::sort(ranked, [](const Candidate &a, const Candidate &b) {
    return a.workPerInstruction != b.workPerInstruction
               ? a.workPerInstruction > b.workPerInstruction
               : a.function->getName() < b.function->getName();
  });
  double covered = 0, share = getQuickCodeOptimizedWork();
  for (const Candidate &candidate : ranked) {
    if (covered >= share * totalWork)
      break;
    selected.push_back(candidate.function);
    covered += double(candidate.work);
  }
  if (isTimingRequested())
    llvm::errs() << llvm::format(
        "mpt-run: timing: quick code: %zu matmul kernels and %zu of %zu "
        "functions optimised (%.1f%% of the estimated work)\n",
        kernels, selected.size() - kernels, ranked.size(),
        totalWork > 0 ? 100 * covered / totalWork : 0.0);
  return selected;
}

/// The quick tier of --tiered-compile: moves `roots` of `llvmModule`, with
/// the functions they use that the MLIR lowering did not estimate (made by
/// the translation: OpenMP's outlined loop bodies), into a module of their
/// own, optimised and compiled at -O2, while the rest is compiled as at -O0
/// (fast instruction selection and register allocation). Functions called
/// across the two modules become hidden globals, declared where they are
/// not defined; constants are copied. Returns null (and leaves
/// `llvmModule` as it was) if there are no roots, or if they use a
/// variable global.
static std::unique_ptr<llvm::Module>
splitOffOptimized(llvm::Module &llvmModule,
                  ArrayRef<llvm::Function *> roots) {
  if (roots.empty())
    return nullptr;
  llvm::SmallPtrSet<const llvm::GlobalValue *, 16> moved(roots.begin(),
                                                         roots.end());
  SmallVector<llvm::Function *> worklist(roots.begin(), roots.end());
  SmallVector<llvm::Function *> shared;
  SmallVector<llvm::GlobalVariable *> constants;
  llvm::SmallPtrSet<const llvm::GlobalVariable *, 16> copiedConstants;
  // The globals an instruction uses, through constant expressions (a
  // constant's address is often a getelementptr of it).
  llvm::SmallPtrSet<const llvm::Constant *, 32> seenConstants;
  SmallVector<const llvm::GlobalValue *> used;
  auto collectGlobals = [&](llvm::Value *value, auto &self) -> void {
    if (auto *global = dyn_cast<llvm::GlobalValue>(value)) {
      used.push_back(global);
      return;
    }
    auto *constant = dyn_cast<llvm::Constant>(value);
    if (!constant || !seenConstants.insert(constant).second)
      return;
    for (llvm::Value *operand : constant->operands())
      self(operand, self);
  };
  while (!worklist.empty()) {
    llvm::Function *function = worklist.pop_back_val();
    used.clear();
    for (llvm::Instruction &inst : llvm::instructions(*function))
      for (llvm::Value *operand : inst.operands())
        collectGlobals(operand, collectGlobals);
    // (`used` grows with the globals of the constants' initializers: an
    // OpenMP location's `ident_t` points at its string.)
    for (size_t i = 0; i < used.size(); ++i) {
      const llvm::GlobalValue *value = used[i];
      if (auto *callee = dyn_cast<llvm::Function>(value)) {
        auto *mutableCallee = const_cast<llvm::Function *>(callee);
        if (callee->isDeclaration() || moved.contains(callee))
          continue;
        if (getEstimatedWork(*callee)) {
          shared.push_back(mutableCallee);
        } else {
          moved.insert(callee);
          worklist.push_back(mutableCallee);
        }
      } else if (auto *global = dyn_cast<llvm::GlobalVariable>(value)) {
        if (!global->isConstant())
          return nullptr;
        // (An external one is declared in the copy, defined here.)
        if (global->hasLocalLinkage() &&
            copiedConstants.insert(global).second) {
          constants.push_back(const_cast<llvm::GlobalVariable *>(global));
          if (global->hasInitializer())
            collectGlobals(
                const_cast<llvm::Constant *>(global->getInitializer()),
                collectGlobals);
        }
      } else {
        return nullptr; // an alias or ifunc: not made by the lowering
      }
    }
  }
  auto makeVisible = [](llvm::Function *function) {
    if (function->hasLocalLinkage()) {
      function->setLinkage(llvm::GlobalValue::ExternalLinkage);
      function->setVisibility(llvm::GlobalValue::HiddenVisibility);
    }
  };
  for (const llvm::GlobalValue *value : moved)
    makeVisible(const_cast<llvm::Function *>(cast<llvm::Function>(value)));
  for (llvm::Function *function : shared)
    makeVisible(function);
  llvm::SmallPtrSet<const llvm::GlobalValue *, 16> cloned(moved.begin(),
                                                          moved.end());
  cloned.insert(constants.begin(), constants.end());
  llvm::ValueToValueMapTy valueMap;
  std::unique_ptr<llvm::Module> optimized = llvm::CloneModule(
      llvmModule, valueMap,
      [&](const llvm::GlobalValue *value) { return cloned.contains(value); });
  for (const llvm::GlobalValue *value : moved)
    const_cast<llvm::Function *>(cast<llvm::Function>(value))->deleteBody();
  return optimized;
}

/// Translates the lowered `module` to LLVM IR and generates its code in
/// `partitions` partitions at -O<optLevel> (or as the quick tier);
/// `onTranslated`, if set, sees the module as translated, before any change.
static llvm::Expected<ObjectList> compileInPartitions(
    ModuleOp module, StringRef funcName, StringRef packedName,
    unsigned partitions, unsigned optLevel, CompileProgress &progressLine,
    bool quickTier = false,
    llvm::function_ref<void(const llvm::Module &)> onTranslated = {}) {
  std::string tier = quickTier ? "quick code" : "-O" + std::to_string(optLevel);
  auto fail = [](llvm::Error err) {
    return runError("JIT compilation failed: " + toString(std::move(err)));
  };
  auto hostMachine = getHostMachine(optLevel);
  if (!hostMachine)
    return fail(hostMachine.takeError());
  llvm::LLVMContext context;
  progressLine.setPhase("translating to LLVM IR (" + tier + ")");
  auto translated = translateForHost(module, context, *hostMachine);
  if (!translated)
    return translated.takeError();
  std::unique_ptr<llvm::Module> llvmModule = std::move(*translated);
  if (onTranslated)
    onTranslated(*llvmModule);
  progressLine.setPhase("optimising LLVM IR (" + tier + ")");
  // Functions optimised and compiled on their own at -O<hotLevel>: in the
  // quick tier the kernels and the functions that do most of the step's
  // work, the rest at -O0 after a few cheap IR passes; at -O0 the kernels
  // (LLVM 22's -O0 code generation crashes on the AMX kernels, and the
  // others' code at -O0 is 5x slower).
  unsigned hotLevel = quickTier ? optLevel : 2;
  SmallVector<llvm::Function *> hotRoots;
  if (quickTier)
    hotRoots = selectQuickTierOptimized(*llvmModule, funcName);
  else if (optLevel == 0)
    hotRoots = selectMatmulKernels(*llvmModule);
  std::unique_ptr<llvm::Module> hotFunctions =
      splitOffOptimized(*llvmModule, hotRoots);
  if (hotFunctions)
    if (llvm::Error err = makeOptimizingTransformer(
            hotLevel, /*sizeLevel=*/0,
            /*targetMachine=*/nullptr)(hotFunctions.get()))
      return fail(std::move(err));
  if (llvm::Error err = prepareLLVMModule(*llvmModule, funcName, packedName,
                                          optLevel, quickTier))
    return fail(std::move(err));
  progressLine.setPhase("generating code (" + tier + ")");
  auto codegenMachine = getHostMachine(quickTier ? 0 : optLevel);
  if (!codegenMachine)
    return fail(codegenMachine.takeError());
  // The quick code in the small code model, position-independent: FastISel
  // then selects its calls and constant loads, which under the JIT's large
  // model it hands to SelectionDAG (MobileNetV3-small: 4600 calls; code
  // generation 25% shorter). JITLink (ObjectCache.h) links it.
  if (quickTier) {
    codegenMachine->setCodeModel(llvm::CodeModel::Small);
    codegenMachine->setRelocationModel(llvm::Reloc::PIC_);
  }
  PartitionTiming timing;
  auto objects = generateObjectsInPartitions(*llvmModule, *codegenMachine,
                                             partitions, &timing);
  if (!objects)
    return fail(objects.takeError());
  if (hotFunctions) {
    progressLine.setPhase("generating code (" + tier + ", -O" +
                          std::to_string(hotLevel) + " functions)");
    auto hotMachine = getHostMachine(hotLevel);
    if (!hotMachine)
      return fail(hotMachine.takeError());
    auto hotObjects = generateObjectsInPartitions(*hotFunctions, *hotMachine,
                                                  /*partitions=*/1);
    if (!hotObjects)
      return fail(hotObjects.takeError());
    for (auto &object : *hotObjects)
      objects->push_back(std::move(object));
  }
  // --timing: the code generation's wall time and each thread's CPU time
  // (their sum is about what one thread would take).
  if (isTimingRequested()) {
    llvm::errs() << llvm::format("mpt-run: timing: code generation %.3f s "
                                 "on %u threads, CPU s per thread:",
                                 timing.wallSeconds, partitions);
    for (double seconds : timing.cpuSeconds)
      llvm::errs() << llvm::format(" %.3f", seconds);
    llvm::errs() << "\n";
  }
  return std::move(*objects);
}

/// Whether to compile the lowered `module` in two tiers (TieredCompile.h).
static bool shouldCompileInTiers(ModuleOp module,
                                 const CompileOptions &compileOptions) {
  TieredCompileMode mode = getTieredCompileMode();
  // Not where there is nothing to gain (-O0), where the listener must see
  // the code (--perf-jitdump) or LLVM's timers would be shared between
  // threads (--time-passes), nor for an MPI job: its ranks share the cores
  // and each compiles its own step.
  if (mode == TieredCompileMode::Off || compileOptions.optLevel == 0 ||
      compileOptions.perfJitdump || llvm::TimePassesIsEnabled ||
      !compileOptions.extraLibrary.empty())
    return false;
  if (mode == TieredCompileMode::On)
    return true;
  unsigned numOps = 0;
  module->walk([&](Operation *) { ++numOps; });
  return numOps >= kTieredCompileMinOps;
}

namespace {
/// The background tier's LLVM IR in a context of its own (one context is
/// not safe to use from two threads); the module goes before its context.
struct OwnedLLVMModule {
  std::unique_ptr<llvm::LLVMContext> context =
      std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> module;
  ~OwnedLLVMModule() { module.reset(); }
};
} // namespace

/// --tiered-compile: links the step's quick code into `step` and starts
/// generating its -O<optLevel> code in the background (step.optimized),
/// which is cached under `cacheKey` when it is done (if `cacheDir` is set).
static llvm::Error compileInTiers(ModuleOp module, StringRef funcName,
                                  StringRef packedName, unsigned partitions,
                                  ArrayRef<StringRef> libs, StringRef cacheDir,
                                  StringRef cacheKey,
                                  const CompileOptions &compileOptions,
                                  CompileProgress &progressLine,
                                  CompiledStep &step) {
  unsigned optLevel = compileOptions.optLevel;
  auto fail = [](llvm::Error err) {
    return runError("JIT compilation failed: " + toString(std::move(err)));
  };
  auto hostMachine = getHostMachine(optLevel);
  if (!hostMachine)
    return fail(hostMachine.takeError());
  // The background's IR: the quick code's translation as bitcode, read in a
  // context of the background's own (one context is not safe to use from
  // two threads; translating twice took 0.3 s of MobileNetV3-small's first
  // step).
  auto bitcode = std::make_shared<SmallVector<char, 0>>();
  auto quick = compileInPartitions(
      module, funcName, packedName, partitions, optLevel, progressLine,
      /*quickTier=*/true, [&](const llvm::Module &translated) {
        progressLine.setPhase("writing the LLVM IR (for the background)");
        llvm::raw_svector_ostream os(*bitcode);
        llvm::WriteBitcodeToFile(translated, os);
      });
  if (!quick)
    return quick.takeError();
  progressLine.setPhase("loading the code (quick code)");
  auto loaded = LoadedObject::load(std::move(*quick), libs,
                                   getCountingAllocatorSymbols, packedName);
  if (!loaded)
    return fail(loaded.takeError());
  step.entry = (*loaded)->entry;
  step.loaded = std::move(*loaded);

  // Started once the quick code is ready, so that it does not delay the first
  // step. Everything the thread uses is its own.
  BackgroundCompile::Generate generate =
      [bitcode, machine = *hostMachine, funcName = funcName.str(),
       packedName = packedName.str(), partitions,
       optLevel]() -> llvm::Expected<ObjectList> {
    auto owned = std::make_unique<OwnedLLVMModule>();
    auto parsed = llvm::parseBitcodeFile(
        llvm::MemoryBufferRef(StringRef(bitcode->data(), bitcode->size()),
                              "background"),
        *owned->context);
    if (!parsed)
      return parsed.takeError();
    owned->module = std::move(*parsed);
    *bitcode = SmallVector<char, 0>(); // (the memory back)
    if (llvm::Error err = prepareLLVMModule(*owned->module, funcName,
                                            packedName, optLevel))
      return std::move(err);
    return generateObjectsInPartitions(*owned->module, machine, partitions);
  };
  BackgroundCompile::Link link =
      [libs = SmallVector<std::string>(libs.begin(), libs.end()),
       packedName = packedName.str()](ObjectList objects) {
        SmallVector<StringRef> libRefs(libs.begin(), libs.end());
        return LoadedObject::load(std::move(objects), libRefs,
                                  getCountingAllocatorSymbols, packedName);
      };
  std::function<void(const ObjectList &)> store;
  if (!cacheDir.empty())
    store = [dir = cacheDir.str(), key = cacheKey.str()](
                const ObjectList &objects) {
      SmallVector<StringRef> buffers;
      for (const auto &object : objects)
        buffers.push_back(object->getBuffer());
      writeObjectCacheEntry(dir, key, buffers);
    };
  step.optimized = std::make_unique<BackgroundCompile>(
      std::move(generate), std::move(link), std::move(store));
  return llvm::Error::success();
}

llvm::Expected<CompiledStep>
mpt::compileStep(ModuleOp module, StringRef funcName,
                 const CompileOptions &compileOptions) {
  auto func = module.lookupSymbol<func::FuncOp>(funcName);
  keepCalledFunctions(module, func);
  LowerToCPUOptions options;
  // The step allocates through the counting functions of
  // AllocationCounter.h (cheap: one hash-map update per buffer).
  options.useGenericFunctions = true;
  // New parameters and optimizer state in their argument buffers:
  // callStep expects results that are argument buffers.
  options.updateInPlace = true;
  options.chunkOps = compileOptions.chunkOps;
  // A failed check in the step: one error line, not an abort (StepChecks.h).
  options.assertHandler = kFailedCheckHandler;
  std::string cpuError, openmpRuntime;
  if (!selectCPUPath(options, openmpRuntime, cpuError))
    return runError(cpuError);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  SmallVector<StringRef> libs;
  for (const std::string &lib : compileOptions.sharedLibs)
    libs.push_back(lib);
  if (compileOptions.sharedLibs.empty())
    libs.push_back(MPT_C_RUNNER_UTILS);
  if (!openmpRuntime.empty())
    libs.push_back(openmpRuntime);
  if (!compileOptions.extraLibrary.empty())
    libs.push_back(compileOptions.extraLibrary);
  std::string packedName = ("_mlir__mlir_ciface_" + funcName).str();

  // The object cache (ObjectCache.h), keyed by the step as it is before
  // lowering and by everything that decides how it is compiled. Not with
  // --perf-jitdump, whose listener sees only code compiled in this run.
  // Nor with --cpu-kernel-report, which the lowering writes.
  std::string cacheDir =
      compileOptions.perfJitdump || !options.kernelReport.empty()
          ? ""
          : getObjectCacheDirectory();
  // Code generation in partitions on several threads, unless one is asked
  // for, --perf-jitdump's listener (ExecutionEngine's) must see the code, or
  // LLVM's --time-passes is on (its timers are not safe to share between
  // threads).
  unsigned partitions = compileOptions.perfJitdump || llvm::TimePassesIsEnabled
                            ? 1
                            : std::max(1u, compileOptions.compileThreads);
  std::string cacheKey;
  std::unique_ptr<LoadedObject> cached;
  // Ends (the line) when the step is compiled or loaded.
  std::optional<CompileProgress> progressLine;
  progressLine.emplace(compileOptions.progress &&
                       llvm::sys::Process::StandardErrIsDisplayed());
  if (!cacheDir.empty()) {
    progressLine->setPhase("looking up the cache");
    std::string stepText, optionText;
    llvm::raw_string_ostream stepOs(stepText), optionOs(optionText);
    module.print(stepOs, OpPrintingFlags().printGenericOpForm());
    options.print(optionOs);
    cacheKey = computeObjectCacheKey(
        {stepText, optionText, "O" + std::to_string(compileOptions.optLevel),
         "fast-codegen-block=" + std::to_string(getFastCodegenBlockLimit()),
         "partitions=" + std::to_string(partitions),
         llvm::join(libs, ","), packedName});
    if (ObjectList objects = readObjectCacheEntry(cacheDir, cacheKey);
        !objects.empty()) {
      auto loaded = LoadedObject::load(std::move(objects), libs,
                                       getCountingAllocatorSymbols, packedName);
      if (loaded) {
        cached = std::move(*loaded);
      } else {
        llvm::errs() << "mpt-run: warning: cache entry " << cacheKey
                     << " does not load (" << toString(loaded.takeError())
                     << "); compiling again\n";
      }
    }
    progressLine->setPhase(cached ? "loaded from the cache"
                                  : "not in the cache");
  }

  CompiledStep step;
  if (!cached) {
    progressLine->setPhase("lowering (--mpt-lower-to-cpu)");
    if (llvm::Error err = lowerToLLVM(module, funcName, options))
      return std::move(err);
  }
  if (!cached && shouldCompileInTiers(module, compileOptions)) {
    if (llvm::Error err = compileInTiers(module, funcName, packedName,
                                         partitions, libs, cacheDir, cacheKey,
                                         compileOptions, *progressLine, step))
      return std::move(err);
  } else if (!cached) {
    progressLine->setPhase(
        "compiling (LLVM -O" + std::to_string(compileOptions.optLevel) +
        (partitions > 1 ? ", " + std::to_string(partitions) + " threads" : "") +
        ")");
    // At -O0 the kernels are compiled on their own (compileInPartitions),
    // unless the engine's listener must see the code.
    if (partitions == 1 &&
        (compileOptions.optLevel > 0 || compileOptions.perfJitdump)) {
      auto compiled =
          jitCompile(module, funcName, packedName, libs,
                     /*dumpObject=*/!cacheDir.empty(), compileOptions);
      if (!compiled)
        return compiled.takeError();
      if (!cacheDir.empty()) {
        progressLine->setPhase("writing the cache entry");
        storeCompiledObject(*compiled->engine, cacheDir, cacheKey);
      }
      step = std::move(*compiled);
    } else {
      auto objects =
          compileInPartitions(module, funcName, packedName, partitions,
                              compileOptions.optLevel, *progressLine);
      if (!objects)
        return objects.takeError();
      // Cached once they have loaded (the loader takes the buffers).
      SmallVector<std::string> copies;
      if (!cacheDir.empty())
        for (const auto &object : *objects)
          copies.push_back(object->getBuffer().str());
      progressLine->setPhase("loading the code");
      auto loaded = LoadedObject::load(std::move(*objects), libs,
                                       getCountingAllocatorSymbols, packedName);
      if (!loaded)
        return runError("JIT compilation failed: " +
                        toString(loaded.takeError()));
      if (!cacheDir.empty()) {
        progressLine->setPhase("writing the cache entry");
        writeObjectCacheEntry(cacheDir, cacheKey,
                              SmallVector<StringRef>(copies.begin(),
                                                     copies.end()));
      }
      step.entry = (*loaded)->entry;
      step.loaded = std::move(*loaded);
    }
  }
  step.phaseSeconds = progressLine->getPhaseSeconds();
  progressLine->markReady();
  progressLine.reset();
  if (!cacheDir.empty() && compileOptions.cacheReport)
    llvm::errs() << "mpt-run: cache " << (cached ? "hit" : "miss") << ": "
                 << cacheKey << " in " << cacheDir << "\n";
  if (cached) {
    step.entry = cached->entry;
    step.loaded = std::move(cached);
  }
  return std::move(step);
}
