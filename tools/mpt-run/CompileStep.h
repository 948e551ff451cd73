//===- CompileStep.h - lowering and JIT-compiling the step ------*- C++ -*-===//
//
// The step and the functions it calls, lowered with --mpt-lower-to-cpu and
// compiled by MLIR's ExecutionEngine (one module, one thread) or in
// partitions on several threads (PartitionedCodegen.h), or loaded from the
// object cache (ObjectCache.h) when the same step was compiled the same way
// before.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_TOOLS_MPT_RUN_COMPILESTEP_H
#define MPT_TOOLS_MPT_RUN_COMPILESTEP_H

#include "ObjectCache.h"
#include "TieredCompile.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mpt {

/// How the step is compiled (mpt-run's options).
struct CompileOptions {
  /// -O: LLVM's optimisation and code generation level, 0-3.
  unsigned optLevel = 2;
  /// --chunk-ops.
  unsigned chunkOps = 256;
  /// --shared-libs (empty: MLIR's C runner utilities).
  llvm::ArrayRef<std::string> sharedLibs;
  /// A library the step must also be linked with (the MPI library), or empty.
  std::string extraLibrary;
  /// --compile-threads: partitions whose code is generated in parallel
  /// (PartitionedCodegen.h); 1 compiles one module with ExecutionEngine.
  unsigned compileThreads = 1;
  /// --perf-jitdump (compiles one module: ExecutionEngine's listener).
  bool perfJitdump = false;
  /// --cache-report.
  bool cacheReport = false;
  /// A progress line on stderr when it is a terminal (not --no-progress).
  bool progress = true;
};

/// The compiled step: owned by `engine` when compiled as one module in this
/// run, by `loaded` when loaded from the cache or compiled in partitions.
/// Under --tiered-compile, `entry` is the -O0 code and `optimized` the
/// optimised code being generated (TieredCompile.h).
struct CompiledStep {
  std::unique_ptr<mlir::ExecutionEngine> engine;
  std::unique_ptr<LoadedObject> loaded;
  void (*entry)(void **) = nullptr;
  std::unique_ptr<BackgroundCompile> optimized;
  /// Each compile phase (as the progress line names it) and its seconds.
  std::vector<std::pair<std::string, double>> phaseSeconds;
};

/// Lowers `module`'s function `funcName` and what it calls (the other
/// functions are erased) and compiles it, or loads it from the cache.
llvm::Expected<CompiledStep> compileStep(mlir::ModuleOp module,
                                         llvm::StringRef funcName,
                                         const CompileOptions &options);

/// Runs `pm` on `module`; on failure, the errors the passes emitted, or (if
/// none) an error naming `what` and the first pass that failed with its op:
/// "<what> failed in pass '...' on '...'".
llvm::Error runPipeline(mlir::PassManager &pm, mlir::ModuleOp module,
                        const llvm::Twine &what);

} // namespace mpt

#endif // MPT_TOOLS_MPT_RUN_COMPILESTEP_H
