//===- CPUPath.cpp - which CPU path mpt-run compiles for ------------------===//
#include "CPUPath.h"

#include "llvm/ADT/StringSwitch.h"
#include "Options.h"

#include "mpt/Pipelines/LowerToCPU.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#if defined(__linux__) && defined(__x86_64__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#include <cstdlib>
#include <optional>

using namespace llvm;

namespace {
enum class CPUPath { Auto, Generic, AVX2, AVX512, AMX };
} // namespace

static cl::opt<CPUPath> cpuPath(
    "cpu-path",
    cl::desc("Code path for the host CPU (default: the environment's "
             "MPT_CPU_PATH, else auto)"),
    cl::values(clEnumValN(CPUPath::Auto, "auto",
                          "the best path this CPU runs (default)"),
               clEnumValN(CPUPath::AMX, "amx",
                          "bf16 contractions on AMX tiles, f32/f16 ones on "
                          "AVX-512"),
               clEnumValN(CPUPath::AVX512, "avx512",
                          "contractions on AVX-512 (no AMX)"),
               clEnumValN(CPUPath::AVX2, "avx2",
                          "contractions on AVX2 and FMA (no AVX-512)"),
               clEnumValN(CPUPath::Generic, "generic",
                          "no ISA-specific kernels: runs on any x86-64")),
    cl::init(CPUPath::Auto), cl::cat(mpt::getCPUCategory()));
static cl::opt<std::string> kernelReport(
    "cpu-kernel-report",
    cl::desc("Write which contractions got a CPU kernel, and why the others "
             "did not, to this file ('-': stderr)"),
    cl::value_desc("file"), cl::cat(mpt::getCPUCategory()));

static cl::opt<bool> excessPrecision(
    "excess-precision",
    cl::desc("Inside a fused loop body, keep an f32 value where autocast "
             "rounded it to bf16 or f16 and the next op widened it back "
             "(--mpt-lower-to-cpu's excess-precision): what is stored keeps "
             "its type and rounding"),
    cl::init(true), cl::cat(mpt::getCPUCategory()));

// --threads is read by takeThreadsOption before the command line is parsed:
// libLLVM registers an option named "threads" of its own.
static unsigned requestedThreads = 0;
static bool threadsGiven = false;
static cl::extrahelp threadsHelp(
    "\nmpt-run threads:\n\n"
    "  --threads=<N>           - Threads that run the step (default: one per "
    "CPU the process may run on, as its affinity mask allows). With more than "
    "one, the kernels' row blocks and the outer loops "
    "of large vectorized ops run on an OpenMP runtime (libomp); results are "
    "those of one thread, bit for bit. The generic path runs on one\n");

static cl::opt<unsigned> compileThreads(
    "compile-threads",
    cl::desc("Threads that generate the step's machine code, each for a "
             "partition of its functions (default: --threads; 1: one module "
             "on one thread). The code is the same, bit for bit"),
    cl::value_desc("N"), cl::init(0), cl::cat(mpt::getCPUCategory()));

/// One thread per CPU this process may run on: the cores its affinity mask
/// allows (`taskset -c 1` gives 1), not all of the machine's, whose extra
/// OpenMP threads would take turns on the allowed cores (a step 30x slower).
static unsigned defaultThreads() {
  return std::max(1u, llvm::hardware_concurrency().compute_thread_count());
}

unsigned mpt::getCompileThreads() {
  if (compileThreads)
    return compileThreads;
  return requestedThreads ? requestedThreads : defaultThreads();
}

bool mpt::takeThreadsOption(SmallVectorImpl<const char *> &args,
                            std::string &error) {
  SmallVector<const char *> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    StringRef arg = args[i];
    if (arg == "--") {
      rest.append(args.begin() + i, args.end());
      break;
    }
    StringRef value;
    if (arg.consume_front("--threads") || arg.consume_front("-threads")) {
      if (arg.consume_front("=")) {
        value = arg;
      } else if (arg.empty() && i + 1 < args.size()) {
        value = args[++i];
      } else {
        rest.push_back(args[i]);
        continue;
      }
      if (value.getAsInteger(10, requestedThreads)) {
        error = "--threads=" + value.str() +
                ": expected a number of threads (0: one per core)";
        return false;
      }
      threadsGiven = true;
      continue;
    }
    rest.push_back(args[i]);
  }
  args.assign(rest.begin(), rest.end());
  return true;
}

/// Asks Linux for the AMX tile data state (XFEATURE_XTILEDATA): a process
/// that executes AMX instructions without it is killed with SIGILL.
static bool requestAMXTileState(std::string &why) {
#if defined(__linux__) && defined(__x86_64__)
  constexpr long archReqXcompPerm = 0x1023, xfeatureXtiledata = 18;
  if (syscall(SYS_arch_prctl, archReqXcompPerm, xfeatureXtiledata) == 0)
    return true;
  why = "Linux refused the AMX tile state (arch_prctl ARCH_REQ_XCOMP_PERM)";
  return false;
#else
  why = "requesting the AMX tile state is only implemented for Linux x86-64";
  return false;
#endif
}

bool mpt::isExcessPrecisionRequested() { return excessPrecision; }

bool mpt::selectCPUPath(LowerToCPUOptions &options,
                        std::string &openmpRuntime, std::string &error) {
  // LLVM's detection checks CPUID and that the OS saves the state (XCR0).
  StringMap<bool> features = sys::getHostCPUFeatures();
  auto has = [&](StringRef name) { return features.lookup(name); };
  bool amx = has("amx-tile") && has("amx-bf16");
  bool avx512 = has("avx512f");
  // The AVX2 kernel's FMA, and F16C for f16 <-> f32 on vectors.
  bool avx2 = has("avx2") && has("fma") && has("f16c");

  // Without --cpu-path, MPT_CPU_PATH chooses (so that a whole test suite
  // can run on the generic path: `lit --param cpu_path=generic`).
  CPUPath path = cpuPath;
  std::string pathSource = "--cpu-path";
  if (const char *fromEnv = std::getenv("MPT_CPU_PATH");
      fromEnv && !cpuPath.getNumOccurrences()) {
    std::optional<CPUPath> parsed =
        llvm::StringSwitch<std::optional<CPUPath>>(fromEnv)
            .Case("auto", CPUPath::Auto)
            .Case("amx", CPUPath::AMX)
            .Case("avx512", CPUPath::AVX512)
            .Case("avx2", CPUPath::AVX2)
            .Case("generic", CPUPath::Generic)
            .Default(std::nullopt);
    if (!parsed) {
      error = std::string("MPT_CPU_PATH=") + fromEnv +
              ": expected auto, amx, avx512, avx2 or generic";
      return false;
    }
    path = *parsed;
    pathSource = "MPT_CPU_PATH";
  }

  std::string amxUnavailable;
  if (!amx)
    amxUnavailable = "the CPU has no AMX (amx-tile, amx-bf16)";
  else if (path == CPUPath::Auto || path == CPUPath::AMX)
    amx = requestAMXTileState(amxUnavailable);

  if (path == CPUPath::AMX && !amx) {
    error = pathSource + "=amx: " + amxUnavailable;
    return false;
  }
  if (path == CPUPath::AVX512 && !avx512) {
    error = pathSource + "=avx512: the CPU has no AVX-512 (avx512f)";
    return false;
  }
  if (path == CPUPath::AVX2 && !avx2) {
    error = pathSource + "=avx2: the CPU has no AVX2, FMA and F16C";
    return false;
  }
  bool automatic = path == CPUPath::Auto;
  if (automatic)
    path = amx      ? CPUPath::AMX
           : avx512 ? CPUPath::AVX512
           : avx2   ? CPUPath::AVX2
                    : CPUPath::Generic;

  options.amx = path == CPUPath::AMX;
  options.avx512 = (path == CPUPath::AMX || path == CPUPath::AVX512) && avx512;
  // --cpu-path=avx2 on an AVX-512 CPU takes the AVX2 kernels (to test them).
  options.avx2 = path == CPUPath::AVX2;
  // vdpbf16ps for bf16 contractions where AMX does not take them.
  options.avx512bf16 = options.avx512 && has("avx512bf16");
  // Vectorized loops give the scalar loops' results; the generic path stays
  // the plain loops, the reference the other paths are checked against.
  options.vectorize = path != CPUPath::Generic;
  // exp, erf and tanh within a few ulp of libm, like PyTorch's vectorized
  // (Sleef) functions.
  options.approximateMath = options.vectorize;
  // With AVX512-BF16, LLVM lowers f32 -> bf16 truncation to vcvtneps2bf16
  // (round to nearest even, like the integer expansion; f32 denormals
  // become zero, NaNs stay NaNs): one instruction where the expansion
  // takes eight vector integer ops, and autocast's steps truncate after
  // every op.
  options.expandBF16 = !(options.vectorize && has("avx512bf16"));
  options.kernelReport = kernelReport;
  options.excessPrecision = excessPrecision;

  // Threads: one per allowed CPU unless asked; the generic path, the reference,
  // stays on one.
  unsigned numThreads = requestedThreads ? requestedThreads : defaultThreads();
#ifdef MPT_OPENMP_RUNTIME
  openmpRuntime = MPT_OPENMP_RUNTIME;
#else
  openmpRuntime.clear();
#endif
  if (numThreads > 1 && openmpRuntime.empty()) {
    if (threadsGiven) {
      error = "--threads=" + std::to_string(numThreads) +
              ": mpt-run was built without an OpenMP runtime (libomp; "
              "Debian: libomp-dev)";
      return false;
    }
    numThreads = 1;
  }
  if (path == CPUPath::Generic)
    numThreads = 1;
  options.parallel = numThreads > 1;
  if (options.parallel) {
    // Read by libomp when the step first forks; the user's own setting is
    // overridden, --threads decides.
    setenv("OMP_NUM_THREADS", std::to_string(numThreads).c_str(), 1);
  } else {
    openmpRuntime.clear();
  }
  // Like the progress line: on a terminal, or when the path was asked for
  // (stderr stays empty for scripts that do not ask).
  if (!cpuPath.getNumOccurrences() && !sys::Process::StandardErrIsDisplayed())
    return true;
  errs() << "mpt-run: CPU path: ";
  switch (path) {
  case CPUPath::AMX:
    errs() << "amx (bf16 contractions on AMX tiles"
           << (avx512 ? ", f32/f16 on AVX-512" : "") << ")";
    break;
  case CPUPath::AVX512:
    errs() << "avx512 (contractions on AVX-512"
           << (options.avx512bf16 ? ", bf16 with AVX512-BF16" : "")
           << ", no AMX"
           << (automatic ? ": " + amxUnavailable : "") << ")";
    break;
  case CPUPath::AVX2:
    errs() << "avx2 (contractions on AVX2 and FMA"
           << (automatic ? ": the CPU has no AVX-512 (avx512f)" : "") << ")";
    break;
  default:
    errs() << "generic (no ISA-specific kernels"
           << (automatic ? ": no AMX, AVX-512 or AVX2" : "") << ")";
    break;
  }
  errs() << ", " << numThreads
         << (numThreads == 1 ? " thread\n" : " threads\n");
  return true;
}
