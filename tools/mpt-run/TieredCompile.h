//===- TieredCompile.h - the first steps on quick code, then -O2 -*- C++ -*-===//
//
// On a large step, LLVM's -O2 is most of the wait before training starts
// (docs/CompileTime.md). With --tiered-compile, mpt-run first generates
// quick code: the matmul kernels (a few functions that every contraction
// calls, 5x slower unoptimised) and the functions that do most of the
// step's work by --mpt-estimate-work's static estimate (90%, taken by work
// per instruction: the loops of ResNet-18's convolutions and copies) in a
// module of their own at -O2, the rest after a few cheap IR passes at -O0
// (FastISel, the fast register allocator). The first steps run it while
// the -O2 code of the whole step is generated on a thread of its own; from
// the first step after it is ready, the -O2 code runs. The IR of both is the same: mpt's lowering puts every
// fused multiply-add and every summation order in the IR, and LLVM does not
// reassociate or contract floating point without fast-math flags, which mpt
// never sets. So the two give the same results, bit for bit
// (test/mpt-run/tiered-compile.test), and when the switch happens changes
// time only.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_TOOLS_MPT_RUN_TIEREDCOMPILE_H
#define MPT_TOOLS_MPT_RUN_TIEREDCOMPILE_H

#include "ObjectCache.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>

namespace mpt {

/// --tiered-compile.
enum class TieredCompileMode { Auto, On, Off };
TieredCompileMode getTieredCompileMode();

/// The share of the step's estimated arithmetic whose outlined ops the
/// quick code optimises (hidden --quick-code-optimized-work, a percentage).
double getQuickCodeOptimizedWork();
/// Whether the run must wait for the optimised code before `step`
/// (--tiered-compile-switch-step, hidden: for tests).
bool isTieredSwitchForcedAt(unsigned step);

/// Under --tiered-compile=auto, a step is compiled in two tiers when its
/// lowered module has at least this many operations (ResNet-18 at 64x64:
/// about 120000; the bundled GPT block: 22000, about a second at -O2, where
/// a second compile would only add work).
constexpr unsigned kTieredCompileMinOps = 50000;

/// The optimised code of a step, generated on a thread of its own
/// (`generate`) and linked, when it is done, on the thread that asks for it.
class BackgroundCompile {
public:
  using Generate = std::function<llvm::Expected<ObjectList>()>;
  using Link = std::function<llvm::Expected<std::unique_ptr<LoadedObject>>(
      ObjectList objects)>;

  /// Starts `generate` on a new thread; `link` and `store` (the cache entry,
  /// may be empty) run on the caller's thread in takeEntry.
  BackgroundCompile(Generate generate, Link link,
                    std::function<void(const ObjectList &)> store);
  /// Waits for the thread unless abandon() was called.
  ~BackgroundCompile();

  /// The optimised entry once its code is generated and linked; nullptr
  /// while it is not (or, after a failure, which is reported once as a
  /// warning: the quick code then runs every step). Blocks if `wait`.
  void (*takeEntry(bool wait))(void **);
  /// Whether the code generation is still running.
  bool isRunning() const;
  /// At the end of a run: waits for the code and caches it when there is a
  /// cache (with a progress line on a terminal if `progress`), else
  /// abandons it.
  void finishForCache(bool progress);
  /// Leaves the thread running: the process must then end with
  /// exitAbandoningBackgroundWork (LLVM's statics may not be destroyed
  /// under a thread that uses them).
  void abandon();

private:
  std::future<llvm::Expected<ObjectList>> objects;
  std::thread thread;
  Link link;
  std::function<void(const ObjectList &)> store;
  std::unique_ptr<LoadedObject> loaded;
  bool finished = false;
};

/// Whether a BackgroundCompile was abandoned in this process.
bool hasAbandonedBackgroundWork();
/// Flushes stdout and stderr and ends the process with `code` without
/// running static destructors (a background compile is still running).
[[noreturn]] void exitAbandoningBackgroundWork(int code);

} // namespace mpt

#endif // MPT_TOOLS_MPT_RUN_TIEREDCOMPILE_H
