//===- CallStep.cpp - calling the compiled step ---------------------------===//
#include "CallStep.h"
#include "RunError.h"

#include <cstring>
#include <set>
#include <vector>

using namespace mlir;
using namespace mpt;

/// The 8-byte words of a memref descriptor as the C interface lays it out:
/// {allocated, aligned, offset, sizes[rank], strides[rank]}.
static size_t getDescriptorWords(size_t rank) { return 3 + 2 * rank; }

static llvm::Expected<void *> allocateCopy(const HostArray &array) {
  // Counted as the caller's; an empty tensor still gets a distinct pointer.
  void *buffer = getAllocationCounter().allocate(array.data.size(), 0,
                                                 BufferOwner::Caller);
  if (!buffer)
    return runError("out of memory");
  // An empty vector's data() may be null, which memcpy must not get even
  // for 0 bytes (UBSan under -DMPT_SANITIZE).
  if (!array.data.empty())
    std::memcpy(buffer, array.data.data(), array.data.size());
  return buffer;
}

static void fillDescriptor(int64_t *words, void *buffer,
                           ArrayRef<int64_t> shape) {
  words[0] = reinterpret_cast<int64_t>(buffer);
  words[1] = reinterpret_cast<int64_t>(buffer);
  words[2] = 0;
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    words[3 + d] = shape[d];
    words[3 + shape.size() + d] = stride;
    stride *= shape[d];
  }
}

UpdatedArguments::UpdatedArguments(const StepSignature &sig)
    : sig(sig), buffers(sig.args.size(), nullptr) {}

llvm::Expected<std::unique_ptr<UpdatedArguments>>
UpdatedArguments::create(const StepSignature &sig,
                         const SmallVector<HostArray> &initial) {
  std::unique_ptr<UpdatedArguments> updated(new UpdatedArguments(sig));
  for (auto [i, arg] : llvm::enumerate(sig.args))
    if (arg.updatedBy) {
      auto buffer = allocateCopy(initial[i]);
      if (!buffer)
        return buffer.takeError();
      updated->buffers[i] = *buffer;
    }
  return std::move(updated);
}

UpdatedArguments::~UpdatedArguments() {
  for (void *buffer : buffers)
    if (buffer)
      getAllocationCounter().release(buffer);
}

bool UpdatedArguments::isBuffer(const void *p) const {
  return llvm::is_contained(buffers, p);
}

double UpdatedArguments::getScalar(unsigned i) const {
  HostArray element = HostArray::zeros(sig.args[i].kind, {});
  std::memcpy(element.data.data(), buffers[i], element.data.size());
  return element.getAsDouble(0);
}

void UpdatedArguments::copyTo(SmallVector<HostArray> &values) const {
  for (auto [i, buffer] : llvm::enumerate(buffers))
    if (buffer && !values[i].data.empty())
      std::memcpy(values[i].data.data(), buffer, values[i].data.size());
}

/// The start of the data of a returned memref descriptor (`words`: the C
/// interface's {allocated, aligned, offset, sizes, strides}), after checking
/// that it has the result's shape and an identity layout.
static llvm::Expected<uint8_t *> getContiguousData(const int64_t *words,
                                                   const ResultInfo &r) {
  int64_t stride = 1;
  for (size_t d = r.shape.size(); d-- > 0;) {
    if (words[3 + d] != r.shape[d] ||
        (r.shape[d] != 1 && words[3 + r.shape.size() + d] != stride))
      return runError("the compiled step returned a non-contiguous or "
                      "mis-shaped buffer; mpt-run expects --mpt-lower-to-cpu's "
                      "identity layouts");
    stride *= r.shape[d];
  }
  return reinterpret_cast<uint8_t *>(words[1]) +
         words[2] * getElementSize(r.kind);
}

llvm::Expected<StepOutputs> mpt::callStep(void (*entry)(void **),
                                          const StepSignature &sig,
                                          const SmallVector<HostArray> &args,
                                          UpdatedArguments &updated) {
  // Arguments the step does not update are copied in every step: the
  // compiled step may write into its argument buffers (one-shot
  // bufferization reuses them in place), and data batches must stay intact
  // for the next cycle.
  SmallVector<void *> argBuffers, copiedArgs;
  SmallVector<SmallVector<int64_t>> argDescs;
  for (auto [i, info, array] : llvm::enumerate(sig.args, args)) {
    void *buffer = updated.getBuffer(i);
    if (!buffer) {
      auto copy = allocateCopy(array);
      if (!copy) {
        for (void *copied : copiedArgs)
          getAllocationCounter().release(copied);
        return copy.takeError();
      }
      copiedArgs.push_back(buffer = *copy);
    }
    argBuffers.push_back(buffer);
    argDescs.emplace_back(getDescriptorWords(info.shape.size()));
    fillDescriptor(argDescs.back().data(), buffer, info.shape);
  }
  size_t resultWords = 0;
  for (const ResultInfo &r : sig.results)
    resultWords += getDescriptorWords(r.shape.size());
  SmallVector<int64_t> resultStruct(resultWords, 0);

  // _mlir_ciface_<f>(results*, arg0*, arg1*, ...) through the packed
  // wrapper: every entry points at one argument of the C interface.
  SmallVector<void *> pointers;
  pointers.push_back(resultStruct.data());
  for (auto &desc : argDescs)
    pointers.push_back(desc.data());
  SmallVector<void *> packed;
  for (void *&p : pointers)
    packed.push_back(&p);
  AllocationCounter &counter = getAllocationCounter();
  counter.startWindow();
  entry(packed.data());

  StepOutputs out;
  std::set<void *> toFree;
  SmallVector<std::pair<unsigned, const uint8_t *>> newValues;
  int64_t *words = resultStruct.data();
  for (const ResultInfo &r : sig.results) {
    auto contiguous = getContiguousData(words, r);
    if (!contiguous)
      return contiguous.takeError();
    const uint8_t *data = *contiguous;
    toFree.insert(reinterpret_cast<void *>(words[0]));
    if (r.updates) {
      out.results.emplace_back();
      if (data != updated.getBuffer(*r.updates))
        newValues.emplace_back(*r.updates, data);
    } else {
      HostArray array = HostArray::zeros(r.kind, r.shape);
      if (!array.data.empty())
        std::memcpy(array.data.data(), data, array.data.size());
      out.results.push_back(std::move(array));
    }
    words += getDescriptorWords(r.shape.size());
  }
  // New values not written in place go into the arguments' buffers; one
  // that is another updated argument's old buffer is read before any is
  // overwritten.
  std::vector<std::vector<uint8_t>> snapshots;
  for (auto &[i, data] : newValues)
    if (updated.isBuffer(data)) {
      size_t bytes = args[i].data.size();
      snapshots.emplace_back(data, data + bytes);
      data = snapshots.back().data();
    }
  for (auto [i, data] : newValues)
    std::memcpy(updated.getBuffer(i), data, args[i].data.size());
  // What the step handed back: new buffers count as returned, argument
  // buffers it wrote in place add nothing; anything else still live is a
  // leak.
  StepMemory &memory = out.memory;
  memory.callerBytes = counter.getLiveBytes(BufferOwner::Caller);
  memory.stepPeakBytes = counter.getStepPeakBytes();
  memory.peakBytes = counter.getTotalPeakBytes();
  memory.backwardStartBytes = counter.getBackwardStartBytes();
  memory.allocations = counter.getStepAllocations();
  memory.frees = counter.getStepFrees();
  for (void *buffer : toFree)
    memory.returnedBytes += counter.getStepBufferSize(buffer).value_or(0);
  for (void *buffer : argBuffers)
    memory.inPlaceResults += toFree.count(buffer);
  memory.leakedBytes =
      counter.getLiveBytes(BufferOwner::Step) - memory.returnedBytes;
  // A returned buffer may be an argument buffer or returned twice: free
  // each allocation exactly once, and keep the updated arguments' buffers.
  for (void *buffer : copiedArgs)
    toFree.insert(buffer);
  for (void *buffer : toFree)
    if (!updated.isBuffer(buffer))
      counter.release(buffer);
  return out;
}
