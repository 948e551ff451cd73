//===- AllocationCounter.h - the heap bytes a compiled step uses -*- C++ -*-===//
//
// mpt-run lowers the step with --mpt-lower-to-cpu{use-generic-functions=1}:
// every memref.alloc / memref.dealloc of the step becomes a call to
// _mlir_memref_to_llvm_alloc / _aligned_alloc / _free, which mpt-run gives
// the JIT (ExecutionEngine::registerSymbols) as the counting functions here.
// mpt-run allocates the step's argument buffers through the same counter, as
// the caller's. So the figures are the allocations the compiled code really
// makes, not an estimate. docs/Memory.md explains what is and is not counted.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_RUN_ALLOCATIONCOUNTER_H
#define MPT_RUN_ALLOCATIONCOUNTER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace mpt {

class TrainingGraph;
struct MemoryEstimate;

/// Who owns a counted buffer: the caller (mpt-run's argument buffers:
/// parameters, optimizer state, data) or the compiled step.
enum class BufferOwner { Caller, Step };

/// Live and peak heap bytes, per owner. Every buffer's size is recorded so
/// that a free is counted exactly; thread-safe (a parallel step may allocate
/// from several threads).
class AllocationCounter {
public:
  void *allocate(uint64_t size, uint64_t alignment, BufferOwner owner);
  /// Frees `buffer` (allocated here or, for mpt-run's own buffers, by
  /// malloc); null is ignored.
  void release(void *buffer);

  /// Starts a new window: the peaks restart at the live figures and the
  /// backward mark is cleared.
  void startWindow();
  /// Records the step's live bytes now: called by the compiled step where
  /// its backward pass starts.
  void markBackwardStart();

  uint64_t getLiveBytes(BufferOwner owner) const;
  /// The most bytes the step had live in this window.
  uint64_t getStepPeakBytes() const;
  /// The most bytes live in this window, caller's and step's together.
  uint64_t getTotalPeakBytes() const;
  /// The step's live bytes at the last backward mark of this window.
  std::optional<uint64_t> getBackwardStartBytes() const;
  /// Allocations and frees by the step in this window.
  uint64_t getStepAllocations() const;
  uint64_t getStepFrees() const;
  /// The size of `buffer` if it is a live step allocation.
  std::optional<uint64_t> getStepBufferSize(void *buffer) const;

private:
  struct Record {
    uint64_t size;
    uint64_t alignment;
    BufferOwner owner;
  };
  mutable std::mutex mutex;
  llvm::DenseMap<void *, Record> live;
  /// Freed step buffers of at most kCachedBlockBytes, by (bytes, alignment),
  /// for the step's next allocation of that size: a step allocates the same
  /// buffers every step, and malloc's search for them took a third of a
  /// small step's time (the bundled GPT block). Not live: the counts above
  /// do not see them.
  /// Off under AddressSanitizer, which must see every free to find a use
  /// after it.
  static constexpr uint64_t kCachedBlockBytes = 1 << 20;
#if defined(__SANITIZE_ADDRESS__)
  static constexpr uint64_t kCacheBytes = 0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  static constexpr uint64_t kCacheBytes = 0;
#else
  static constexpr uint64_t kCacheBytes = 64 << 20;
#endif
#else
  static constexpr uint64_t kCacheBytes = 64 << 20;
#endif
  llvm::DenseMap<std::pair<uint64_t, uint64_t>, llvm::SmallVector<void *, 2>>
      cached;
  uint64_t cachedBytes = 0;
  uint64_t liveBytes[2] = {0, 0};
  uint64_t stepPeak = 0, totalPeak = 0;
  std::optional<uint64_t> backwardStart;
  uint64_t stepAllocations = 0, stepFrees = 0;
};

/// What one call of the step used, measured by the counter.
struct StepMemory {
  /// The argument buffers the caller passed (parameters, optimizer state,
  /// data, hyperparameters): live during the whole call.
  uint64_t callerBytes = 0;
  /// The most bytes the step's own allocations held at once.
  uint64_t stepPeakBytes = 0;
  /// Of those, the buffers live at return, handed to the caller as results
  /// (the new parameters and state, the loss). A result written in place
  /// into an argument buffer adds nothing.
  uint64_t returnedBytes = 0;
  /// Step allocations live at return that no result holds (a leak).
  uint64_t leakedBytes = 0;
  /// The most bytes live at once, caller's and step's together.
  uint64_t peakBytes = 0;
  /// The step's live bytes when its backward pass started: what the forward
  /// pass keeps for the backward (activations, 16-bit weight copies).
  std::optional<uint64_t> backwardStartBytes;
  uint64_t allocations = 0, frees = 0;
  /// Results that are argument buffers written in place.
  unsigned inPlaceResults = 0;
};

/// The counter the compiled step's allocation functions report to.
AllocationCounter &getAllocationCounter();

/// The symbols the lowered step calls (_mlir_memref_to_llvm_alloc,
/// _mlir_memref_to_llvm_aligned_alloc, _mlir_memref_to_llvm_free and the
/// backward mark), bound to the counter, for
/// ExecutionEngine::registerSymbols.
llvm::orc::SymbolMap
getCountingAllocatorSymbols(llvm::orc::MangleAndInterner interner);

/// Prints the --memory block: the measured figures of the steps run (the
/// step with the highest peak), the caller's bytes by argument role
/// (`callerByRole`, in order) and the static estimate when given.
void printMemoryReport(llvm::raw_ostream &os, llvm::StringRef funcName,
                       llvm::ArrayRef<StepMemory> steps,
                       llvm::ArrayRef<std::pair<std::string, uint64_t>>
                           callerByRole,
                       const MemoryEstimate *estimate);

/// Inserts, after the last top-level op of the forward pass, a call that
/// records the step's live bytes (what the forward pass keeps for the
/// backward). Returns false when the step has no forward or no backward op.
bool insertBackwardStartMark(mlir::func::FuncOp func,
                             const TrainingGraph &graph);

} // namespace mpt

#endif // MPT_RUN_ALLOCATIONCOUNTER_H
