//===- TieredCompile.cpp - the first steps on quick code, then -O2 --------===//
#include "TieredCompile.h"
#include "CompileProgress.h"
#include "Options.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

using namespace llvm;
using namespace mpt;

static cl::opt<TieredCompileMode> tieredCompile(
    "tiered-compile",
    cl::desc("Run the first steps with quick code (the matmul kernels and "
             "the functions that do most of the step's work optimised, the "
             "rest as at -O0) while the -O level's code is "
             "generated on another thread, then switch to it (the same "
             "results, bit for bit; docs/CompileTime.md)"),
    cl::values(clEnumValN(TieredCompileMode::Auto, "auto",
                          "on a large step (default) that is not in the "
                          "cache, at -O1 and above"),
               clEnumValN(TieredCompileMode::On, "on",
                          "on every step that is not in the cache, at -O1 "
                          "and above"),
               clEnumValN(TieredCompileMode::Off, "off",
                          "compile once, at the -O level")),
    cl::init(TieredCompileMode::Auto), cl::cat(getRunCategory()));

// For tests: the switch at a known step, so that a run is known to have
// run both codes.
static cl::opt<unsigned> tieredSwitchStep(
    "tiered-compile-switch-step",
    cl::desc("Wait for the optimised code before this step (tests)"),
    cl::init(~0u), cl::Hidden);

static cl::opt<unsigned> quickTierOptimizedWork(
    "quick-code-optimized-work",
    cl::desc("The quick code optimises the outlined ops that do this "
             "percentage of the step's estimated arithmetic (with the matmul "
             "kernels)"),
    cl::init(90), cl::Hidden);

TieredCompileMode mpt::getTieredCompileMode() { return tieredCompile; }

double mpt::getQuickCodeOptimizedWork() {
  return std::min(100u, unsigned(quickTierOptimizedWork)) / 100.0;
}

bool mpt::isTieredSwitchForcedAt(unsigned step) {
  return step == tieredSwitchStep;
}

static std::atomic<bool> abandonedWork{false};

BackgroundCompile::BackgroundCompile(
    Generate generate, Link link,
    std::function<void(const ObjectList &)> store)
    : link(std::move(link)), store(std::move(store)) {
  std::packaged_task<Expected<ObjectList>()> task(std::move(generate));
  objects = task.get_future();
  thread = std::thread(std::move(task));
}

BackgroundCompile::~BackgroundCompile() {
  if (thread.joinable())
    thread.join();
  // A result nobody took (the run ended first, with the cache off) is
  // dropped; an error in it is not news to anyone.
  if (!finished && objects.valid())
    if (Expected<ObjectList> result = objects.get(); !result)
      consumeError(result.takeError());
}

bool BackgroundCompile::isRunning() const {
  return !finished && objects.valid() &&
         objects.wait_for(std::chrono::seconds(0)) !=
             std::future_status::ready;
}

void (*BackgroundCompile::takeEntry(bool wait))(void **) {
  if (finished)
    return loaded ? loaded->entry : nullptr;
  if (!wait && isRunning())
    return nullptr;
  finished = true;
  Expected<ObjectList> result = objects.get();
  thread.join();
  auto warn = [](Error err) {
    errs() << "mpt-run: warning: the optimised code of the step did not "
              "compile ("
           << toString(std::move(err)) << "); the quick code runs every step\n";
  };
  if (!result) {
    warn(result.takeError());
    return nullptr;
  }
  // Cached before linking, which consumes the buffers.
  if (store)
    store(*result);
  auto linked = link(std::move(*result));
  if (!linked) {
    warn(linked.takeError());
    return nullptr;
  }
  loaded = std::move(*linked);
  return loaded->entry;
}

void BackgroundCompile::finishForCache(bool progress) {
  if (!store) {
    abandon();
    return;
  }
  // The next run of the same step then starts from the cache at once. (A
  // line only while there is something to wait for.)
  CompileProgress line(progress && isRunning() &&
                       llvm::sys::Process::StandardErrIsDisplayed());
  line.setPhase("caching the optimised code (--no-cache: not)");
  (void)takeEntry(/*wait=*/true);
  line.markReady("optimised code cached");
}

void BackgroundCompile::abandon() {
  if (!thread.joinable())
    return;
  thread.detach();
  abandonedWork = true;
  // The future's shared state outlives this object: the detached task
  // still holds it.
  finished = true;
}

bool mpt::hasAbandonedBackgroundWork() { return abandonedWork; }

void mpt::exitAbandoningBackgroundWork(int code) {
  outs().flush();
  errs().flush();
  std::fflush(nullptr);
  std::_Exit(code);
}
