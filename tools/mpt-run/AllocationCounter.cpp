//===- AllocationCounter.cpp - the heap bytes a compiled step uses --------===//
//
// The counting allocation functions the JIT-compiled step calls, and the
// bookkeeping behind mpt-run --memory.
//
//===----------------------------------------------------------------------===//
#include "AllocationCounter.h"
#include "StepChecks.h"

#include "mpt/Analysis/TrainingGraph.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

using namespace mlir;
using namespace mpt;

// A step frees and allocates the same large buffers every step. glibc maps
// each block over its mmap threshold (at most 32 MiB) separately and unmaps
// it when freed, so every step paid page faults, page zeroing and TLB
// flushes for those buffers: a tenth of the GPT d=256 step's time, and more
// than half of AlexNet's and VGG-11's, whose classifier weights and their
// gradients and momenta are 64-400 MiB each (VGG-11 batch 4: 793 -> 354 ms a
// step, peak RSS unchanged). So no block is mapped on its own: all come from
// the heap, whose top stays mapped up to the trim threshold. The heap still
// falls back to mmap when it cannot grow.
#if defined(__GLIBC__)
[[maybe_unused]] static const bool keepBuffersMapped = [] {
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  return true;
}();
#endif

static unsigned slot(BufferOwner owner) {
  return owner == BufferOwner::Caller ? 0 : 1;
}

void *AllocationCounter::allocate(uint64_t size, uint64_t alignment,
                                  BufferOwner owner) {
  // Never a null pointer for an empty buffer: it is a live allocation too.
  size_t bytes = std::max<uint64_t>(size, 1);
  bool aligned = alignment > alignof(std::max_align_t);
  uint64_t key = aligned ? alignment : 0;
  std::unique_lock<std::mutex> lock(mutex);
  void *buffer = nullptr;
  if (owner == BufferOwner::Step) {
    auto it = cached.find({bytes, key});
    if (it != cached.end() && !it->second.empty()) {
      buffer = it->second.pop_back_val();
      cachedBytes -= bytes;
    }
  }
  if (!buffer) {
    lock.unlock();
    if (aligned) {
      if (posix_memalign(&buffer, alignment, bytes) != 0)
        buffer = nullptr;
    } else {
      buffer = std::malloc(bytes);
    }
    if (!buffer)
      return nullptr;
    lock.lock();
  }
  live[buffer] = {size, key, owner};
  liveBytes[slot(owner)] += size;
  if (owner == BufferOwner::Step) {
    ++stepAllocations;
    stepPeak = std::max(stepPeak, liveBytes[1]);
  }
  totalPeak = std::max(totalPeak, liveBytes[0] + liveBytes[1]);
  return buffer;
}

void AllocationCounter::release(void *buffer) {
  if (!buffer)
    return;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = live.find(buffer);
    if (it != live.end()) {
      Record record = it->second;
      liveBytes[slot(record.owner)] -= record.size;
      live.erase(it);
      if (record.owner == BufferOwner::Step) {
        ++stepFrees;
        uint64_t bytes = std::max<uint64_t>(record.size, 1);
        if (bytes <= kCachedBlockBytes && cachedBytes + bytes <= kCacheBytes) {
          cached[{bytes, record.alignment}].push_back(buffer);
          cachedBytes += bytes;
          return;
        }
      }
    }
  }
  std::free(buffer);
}

void AllocationCounter::startWindow() {
  std::lock_guard<std::mutex> lock(mutex);
  stepPeak = liveBytes[1];
  totalPeak = liveBytes[0] + liveBytes[1];
  backwardStart.reset();
  stepAllocations = stepFrees = 0;
}

void AllocationCounter::markBackwardStart() {
  std::lock_guard<std::mutex> lock(mutex);
  backwardStart = liveBytes[1];
}

uint64_t AllocationCounter::getLiveBytes(BufferOwner owner) const {
  std::lock_guard<std::mutex> lock(mutex);
  return liveBytes[slot(owner)];
}

uint64_t AllocationCounter::getStepPeakBytes() const {
  std::lock_guard<std::mutex> lock(mutex);
  return stepPeak;
}

uint64_t AllocationCounter::getTotalPeakBytes() const {
  std::lock_guard<std::mutex> lock(mutex);
  return totalPeak;
}

std::optional<uint64_t> AllocationCounter::getBackwardStartBytes() const {
  std::lock_guard<std::mutex> lock(mutex);
  return backwardStart;
}

uint64_t AllocationCounter::getStepAllocations() const {
  std::lock_guard<std::mutex> lock(mutex);
  return stepAllocations;
}

uint64_t AllocationCounter::getStepFrees() const {
  std::lock_guard<std::mutex> lock(mutex);
  return stepFrees;
}

std::optional<uint64_t>
AllocationCounter::getStepBufferSize(void *buffer) const {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = live.find(buffer);
  if (it == live.end() || it->second.owner != BufferOwner::Step)
    return std::nullopt;
  return it->second.size;
}

AllocationCounter &mpt::getAllocationCounter() {
  static AllocationCounter counter;
  return counter;
}

//===----------------------------------------------------------------------===//
// The functions the compiled step calls
//===----------------------------------------------------------------------===//

// The signatures finalize-memref-to-llvm{use-generic-functions} declares:
// sizes and alignments are index (64-bit here).
static void *countedAlloc(uint64_t size) {
  return getAllocationCounter().allocate(size, 0, BufferOwner::Step);
}
static void *countedAlignedAlloc(uint64_t alignment, uint64_t size) {
  return getAllocationCounter().allocate(size, alignment, BufferOwner::Step);
}
static void countedFree(void *buffer) {
  getAllocationCounter().release(buffer);
}
static void backwardStarts() { getAllocationCounter().markBackwardStart(); }

/// The function the backward mark calls.
static constexpr llvm::StringLiteral kBackwardMark = "mpt_run_backward_starts";

llvm::orc::SymbolMap
mpt::getCountingAllocatorSymbols(llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap symbols;
  auto bind = [&](llvm::StringRef name, auto *function) {
    symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                               llvm::JITSymbolFlags::Exported};
  };
  bind("_mlir_memref_to_llvm_alloc", &countedAlloc);
  bind("_mlir_memref_to_llvm_aligned_alloc", &countedAlignedAlloc);
  bind("_mlir_memref_to_llvm_free", &countedFree);
  bind(kBackwardMark, &backwardStarts);
  // --mpt-lower-to-cpu gives declarations a C interface too: the call goes
  // to the wrapper's name (no arguments, the same function).
  bind((llvm::Twine("_mlir_ciface_") + kBackwardMark).str(), &backwardStarts);
  // Not an allocation, but the one symbol map the loaders take.
  addFailedCheckSymbols(symbols, interner);
  return symbols;
}

bool mpt::insertBackwardStartMark(func::FuncOp func,
                                  const TrainingGraph &graph) {
  if (func.isExternal())
    return false;
  // After the forward's last op, not before the backward's first: importers
  // place backward ops that read only parameters (a weight's transpose)
  // early in the forward, and the activations are all live only once the
  // forward is done.
  Operation *lastForward = nullptr;
  bool hasBackward = false;
  for (Operation &op : func.getBody().front()) {
    TrainingRegion region = graph.getRegion(&op);
    if (region == TrainingRegion::Forward)
      lastForward = &op;
    hasBackward |= region == TrainingRegion::Backward;
  }
  if (!lastForward || !hasBackward)
    return false;
  auto module = func->getParentOfType<ModuleOp>();
  MLIRContext *context = func.getContext();
  auto type = FunctionType::get(context, {}, {});
  if (!module.lookupSymbol(kBackwardMark)) {
    OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
    auto decl = func::FuncOp::create(builder, func.getLoc(), kBackwardMark,
                                     type);
    decl.setPrivate();
  }
  OpBuilder builder(lastForward->getContext());
  builder.setInsertionPointAfter(lastForward);
  func::CallOp::create(builder, lastForward->getLoc(), kBackwardMark,
                       TypeRange());
  return true;
}

//===----------------------------------------------------------------------===//
// The --memory block
//===----------------------------------------------------------------------===//

/// "12345 B (12.1 KiB)": exact bytes for tests and scripts, a readable size
/// for people.
static std::string formatBytes(uint64_t bytes) {
  std::string s = std::to_string(bytes) + " B";
  const char *units[] = {"KiB", "MiB", "GiB"};
  double value = static_cast<double>(bytes);
  int unit = -1;
  while (value >= 1024 && unit < 2) {
    value /= 1024;
    ++unit;
  }
  if (unit >= 0) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), " (%.1f %s)", value, units[unit]);
    s += buffer;
  }
  return s;
}

void mpt::printMemoryReport(
    llvm::raw_ostream &os, llvm::StringRef funcName,
    llvm::ArrayRef<StepMemory> steps,
    llvm::ArrayRef<std::pair<std::string, uint64_t>> callerByRole,
    const MemoryEstimate *estimate) {
  auto line = [&](llvm::StringRef what, uint64_t bytes,
                  const llvm::Twine &note) {
    os << "  " << what;
    for (size_t n = what.size(); n < 26; ++n)
      os << ' ';
    std::string value = formatBytes(bytes);
    for (size_t n = value.size(); n < 22; ++n)
      os << ' ';
    os << value << "  " << note << "\n";
  };
  os << "mpt-run: memory of @" << funcName << ", measured over "
     << steps.size() << (steps.size() == 1 ? " step" : " steps")
     << " (heap bytes the compiled step allocated and freed, counted)\n";
  if (!steps.empty()) {
    size_t top = 0;
    for (size_t i = 1; i < steps.size(); ++i)
      if (steps[i].peakBytes > steps[top].peakBytes)
        top = i;
    const StepMemory &m = steps[top];
    std::string roles;
    for (const auto &[role, bytes] : callerByRole)
      roles += (roles.empty() ? "" : ", ") + role + " " +
               std::to_string(bytes);
    line("caller-owned arguments", m.callerBytes, roles);
    line("step allocations, peak", m.stepPeakBytes,
         "step " + llvm::Twine(top) + ": " + llvm::Twine(m.allocations) +
             " allocations, " + llvm::Twine(m.frees) + " frees");
    line("  returned as results", m.returnedBytes,
         "new buffers handed to the caller (updated arguments, loss); " +
             llvm::Twine(m.inPlaceResults) + " results written in place");
    if (m.backwardStartBytes)
      line("  live at backward start", *m.backwardStartBytes,
           "kept by the forward for the backward (activations, weight "
           "copies)");
    if (m.leakedBytes)
      line("  not freed, not returned", m.leakedBytes,
           "a leak in the compiled step");
    line("peak during a step", m.peakBytes,
         "caller-owned + the step's allocations at their peak");
    uint64_t runPeak = 0;
    for (const StepMemory &s : steps)
      runPeak = std::max(runPeak, s.peakBytes);
    line("peak over the run", runPeak, "the largest step peak");
  }
  if (!estimate) {
    os << "  static estimate: none (--passes lowered the training markers; "
          "--mpt-precision-report gives it)\n";
  } else {
    os << "  static estimate (TrainingGraph): params "
       << estimate->params.total() << ", gradients "
       << estimate->gradients.total() << ", optimizer state "
       << estimate->optimizerState.total() << ", activations "
       << estimate->activations.total() << ", weight copies "
       << estimate->paramCopies.total() << ", total " << estimate->total()
       << " B\n";
  }
}
