//===- CPUPath.h - which CPU path mpt-run compiles for ---------*- C++ -*-===//
//
// mpt-run compiles the step for the CPU it runs on: AMX tile kernels for bf16
// contractions when the CPU has AMX and Linux grants the tile state, else
// the generic lowering. --cpu-path forces a path (the suite forces
// `generic` to test the fallback); a forced path the CPU cannot run is an
// error, never a SIGILL.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_TOOLS_MPT_RUN_CPUPATH_H
#define MPT_TOOLS_MPT_RUN_CPUPATH_H

#include "llvm/ADT/SmallVector.h"
#include <string>

namespace mpt {

struct LowerToCPUOptions;

/// Detects the host's features, picks the path --cpu-path asks for (auto:
/// the best the host runs), requests the AMX tile state when the path uses
/// AMX, prints one line on stderr naming the path (on a terminal, or when
/// --cpu-path is given) and sets the target options of `options` (and its
/// kernel report, --cpu-kernel-report). With more than one thread
/// (--threads, default one per core) it sets `options.parallel` and
/// `openmpRuntime` to the OpenMP runtime the step must be linked with (else
/// empty). On failure returns false and sets `error`.
bool selectCPUPath(LowerToCPUOptions &options, std::string &openmpRuntime,
                   std::string &error);

/// --excess-precision (the lowering's option of that name).
bool isExcessPrecisionRequested();

/// Removes --threads=N (or --threads N) from `args` and keeps N for
/// selectCPUPath; false, with `error`, if N is not a number.
bool takeThreadsOption(llvm::SmallVectorImpl<const char *> &args,
                       std::string &error);

/// The threads that generate the step's code (--compile-threads; default
/// the --threads the user asked for, else one per core, whichever CPU path
/// runs the step).
unsigned getCompileThreads();

} // namespace mpt

#endif // MPT_TOOLS_MPT_RUN_CPUPATH_H
