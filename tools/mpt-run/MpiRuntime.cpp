//===- MpiRuntime.cpp - mpt-run's MPI job (data-parallel steps) -----------===//
#include "MpiRuntime.h"
#include "RunError.h"

#include "mpt/IR/MPTOps.h"
#include "mpt/IR/TrainingContract.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <thread>
#include <type_traits>
#include <utility>

using namespace mlir;
using namespace mpt;

//===----------------------------------------------------------------------===//
// The MPI library, loaded at run time
//===----------------------------------------------------------------------===//

// MPICH's ABI (also Intel MPI's and MVAPICH's): handles are ints. These are
// the values MLIR's MPIToLLVM lowering compiles into the step for MPICH, so
// the step and mpt-run must load an MPICH-ABI library.
namespace {
using MpiComm = int;
using MpiDatatype = int;
using MpiOp = int;
constexpr MpiComm kCommWorld = 0x44000000;
constexpr MpiDatatype kChar = 0x4c000101;
constexpr MpiDatatype kInt = 0x4c000405;
constexpr MpiDatatype kUint64 = 0x4c00083e;
constexpr MpiOp kMax = 0x58000001;
constexpr MpiOp kMin = 0x58000002;

struct MpiFunctions {
  int (*init)(int *, char ***) = nullptr;
  int (*initialized)(int *) = nullptr;
  int (*finalize)() = nullptr;
  int (*commRank)(MpiComm, int *) = nullptr;
  int (*commSize)(MpiComm, int *) = nullptr;
  int (*allreduce)(const void *, void *, int, MpiDatatype, MpiOp,
                   MpiComm) = nullptr;
  int (*bcast)(void *, int, MpiDatatype, int, MpiComm) = nullptr;
  int (*send)(const void *, int, MpiDatatype, int, int, MpiComm) = nullptr;
  // The status is MPI_STATUS_IGNORE (MPICH: (MPI_Status *)1).
  int (*recv)(void *, int, MpiDatatype, int, int, MpiComm, void *) = nullptr;
};
MpiFunctions mpi;
} // namespace

static int getEnvInt(const char *name, int fallback) {
  const char *text = std::getenv(name);
  int value;
  if (!text || llvm::StringRef(text).getAsInteger(10, value))
    return fallback;
  return value;
}

// Hydra (MPICH's mpiexec) sets PMI_*, Open MPI's launcher OMPI_COMM_WORLD_*.
int mpt::getLauncherWorldSize() {
  return getEnvInt("PMI_SIZE", getEnvInt("OMPI_COMM_WORLD_SIZE", 1));
}
int mpt::getLauncherRank() {
  return getEnvInt("PMI_RANK", getEnvInt("OMPI_COMM_WORLD_RANK", 0));
}

void mpt::reportInJob(const llvm::Twine &message, bool onAllRanks) {
  if (MpiJob *job = MpiJob::getInSetup()) {
    job->failSetup(message);
    return;
  }
  int size = getLauncherWorldSize();
  int rank = getLauncherRank();
  if (onAllRanks) {
    if (rank == 0) {
      llvm::errs() << "mpt-run: error: " << message << "\n";
      llvm::errs().flush();
    }
    // Every rank is here after the same collectives: each ends MPI and
    // exits with 1 itself. A rank that exits without MPI_Finalize makes
    // MPICH's hydra kill the others, and the job then sometimes exits with
    // their signal's status (9) instead of 1.
    if (MpiJob::finishIfStarted())
      return;
    // Not started: rank 0 exits with the same error; the launcher then ends
    // this process.
    if (rank != 0)
      std::this_thread::sleep_for(std::chrono::seconds(10));
    return;
  }
  if (size > 1 && rank != 0) {
    // If rank 0 meets the same error it exits first and the launcher ends
    // this process during the wait: the error is reported once.
    std::this_thread::sleep_for(std::chrono::seconds(2));
    llvm::errs() << ("mpt-run: error: rank " + llvm::Twine(rank) + " of " +
                     llvm::Twine(size) + ": " + message + "\n")
                        .str();
  } else {
    llvm::errs() << "mpt-run: error: " << message << "\n";
  }
  llvm::errs().flush();
}

bool mpt::isDataParallel(ModuleOp module, func::FuncOp func) {
  if (func->hasAttr(mpt::kDataParallelAttrName))
    return true;
  WalkResult found = module.walk([](Operation *op) {
    if (isa<AllReduceOp>(op) ||
        op->getName().getDialectNamespace() == "mpi")
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

MpiJob &MpiJob::instance() {
  static MpiJob job;
  return job;
}

MpiJob *MpiJob::getInSetup() {
  return instance().inSetup ? &instance() : nullptr;
}

llvm::Error MpiJob::finishSetup() {
  // Another rank failed: rank 0 has reported it.
  if (agreeOnSetup(/*failed=*/false, ""))
    return alreadyReported();
  return llvm::Error::success();
}

void MpiJob::failSetup(const llvm::Twine &message) {
  agreeOnSetup(/*failed=*/true, message);
}

bool MpiJob::agreeOnSetup(bool failed, const llvm::Twine &message) {
  inSetup = false;
  // The lowest rank that failed (size: none). Every rank is here, in this
  // collective, before the step's first all-reduce.
  int mine = failed ? rank : size, first = size;
  if (mpi.allreduce(&mine, &first, 1, kInt, kMin, kCommWorld) != 0)
    first = failed ? rank : size;
  if (first == size)
    return false;
  // Rank 0 reports for the job: the failed rank sends it its message.
  constexpr int kMaxMessage = 4096;
  char text[kMaxMessage] = {0};
  if (rank == first) {
    std::string own = message.str();
    std::strncpy(text, own.c_str(), kMaxMessage - 1);
    if (rank != 0)
      mpi.send(text, kMaxMessage, kChar, /*dest=*/0, /*tag=*/0, kCommWorld);
  }
  if (rank == 0) {
    if (first != 0)
      mpi.recv(text, kMaxMessage, kChar, first, /*tag=*/0, kCommWorld,
               reinterpret_cast<void *>(1));
    // Empty: rank 0 already printed its diagnostics.
    if (text[0] != 0) {
      llvm::errs() << "mpt-run: error: ";
      if (first != 0)
        llvm::errs() << "rank " << first << " of " << size << ": ";
      llvm::errs() << text << "\n";
      llvm::errs().flush();
    }
  }
  finish();
  return true;
}

llvm::Expected<MpiJob *> MpiJob::start() {
  MpiJob &job = instance();
  if (mpi.init)
    return &job;
  SmallVector<std::string> candidates;
  if (const char *path = std::getenv("MPT_MPI_LIBRARY"))
    candidates.push_back(path);
  else
    candidates = {"libmpich.so.12", "libmpi.so.12"};
  void *library = nullptr;
  for (const std::string &name : candidates) {
    // Global: the JIT-compiled step resolves MPI_Allreduce in it.
    library = dlopen(name.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (library) {
      job.libraryPath = name;
      break;
    }
  }
  if (!library)
    return runErrorOnAllRanks(
        "the step is data-parallel but no MPI library with MPICH's ABI could "
        "be loaded (tried " +
        llvm::join(candidates, ", ") +
        "; install MPICH: apt-get install mpich, or set MPT_MPI_LIBRARY)");
  // The first function the library lacks ends the setup.
  const char *missing = nullptr;
  auto bind = [&](const char *name, auto &function) {
    if (missing)
      return;
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(
        dlsym(library, name));
    if (!function)
      missing = name;
  };
  bind("MPI_Init", mpi.init);
  bind("MPI_Initialized", mpi.initialized);
  bind("MPI_Finalize", mpi.finalize);
  bind("MPI_Comm_rank", mpi.commRank);
  bind("MPI_Comm_size", mpi.commSize);
  bind("MPI_Allreduce", mpi.allreduce);
  bind("MPI_Bcast", mpi.bcast);
  bind("MPI_Send", mpi.send);
  bind("MPI_Recv", mpi.recv);
  if (missing)
    return runError(llvm::Twine("the MPI library has no '") + missing + "'");
  // The JIT links the step against the library by path: the file that
  // dlopen found (a bare soname would be read relative to the directory).
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(mpi.init), &info) && info.dli_fname)
    job.libraryPath = info.dli_fname;
  if (mpi.init(nullptr, nullptr) != 0 ||
      mpi.commRank(kCommWorld, &job.rank) != 0 ||
      mpi.commSize(kCommWorld, &job.size) != 0)
    return runError("MPI_Init failed");
  job.inSetup = true;
  return &job;
}

llvm::Expected<HostArray> MpiJob::takeShard(const HostArray &batches,
                                            int64_t perRank,
                                            const llvm::Twine &source,
                                            const llvm::Twine &argument) {
  if (batches.shape.size() < 2)
    return runErrorOnAllRanks(source + " is " + batches.describe() +
                   ": a data-parallel run splits every batch along its first "
                   "axis, but " + argument + " has no batch axis");
  int64_t batch = batches.shape[1];
  if (batch % size != 0)
    return runErrorOnAllRanks(source + " has batches of " + llvm::Twine(batch) +
                   " samples, which do not divide among " +
                   llvm::Twine(size) + " ranks");
  if (batch / size != perRank)
    return runErrorOnAllRanks(source + " has batches of " + llvm::Twine(batch) +
                   " samples, " + llvm::Twine(batch / size) +
                   " per rank on " + llvm::Twine(size) + " ranks, but " +
                   argument + " takes " + llvm::Twine(perRank) +
                   "; compile the step for the per-rank batch (" +
                   llvm::Twine(perRank * size) + " samples per file batch)");
  HostArray shard;
  shard.kind = batches.kind;
  shard.shape.assign(batches.shape.begin(), batches.shape.end());
  shard.shape[1] = perRank;
  size_t sampleBytes = getElementSize(batches.kind);
  for (size_t d = 2; d < batches.shape.size(); ++d)
    sampleBytes *= batches.shape[d];
  size_t rowBytes = sampleBytes * perRank;
  shard.data.resize(rowBytes * batches.shape[0]);
  for (int64_t i = 0; rowBytes && i < batches.shape[0]; ++i)
    std::memcpy(shard.data.data() + i * rowBytes,
                batches.data.data() + (i * batch + rank * perRank) * sampleBytes,
                rowBytes);
  return shard;
}

llvm::Error
MpiJob::broadcastFromRankZero(llvm::ArrayRef<HostArray *> arrays) {
  for (HostArray *array : arrays) {
    uint8_t *bytes = array->data.data();
    // MPI counts are ints: at most 1 GiB a call.
    for (size_t left = array->data.size(); left;) {
      int count = static_cast<int>(std::min<size_t>(left, size_t(1) << 30));
      if (mpi.bcast(bytes, count, kChar, /*root=*/0, kCommWorld) != 0)
        return runError("MPI_Bcast of rank 0's parameters failed");
      bytes += count;
      left -= count;
    }
  }
  return llvm::Error::success();
}

llvm::Expected<bool> MpiJob::checkLockstep(llvm::ArrayRef<const HostArray *> arrays) {
  // FNV-1a over every byte: a difference anywhere changes it (up to a
  // 2^-64 collision).
  uint64_t hash = 0xcbf29ce484222325ull;
  for (const HostArray *array : arrays)
    for (uint8_t byte : array->data)
      hash = (hash ^ byte) * 0x100000001b3ull;
  uint64_t rankZeroHash = hash;
  if (mpi.bcast(&rankZeroHash, 1, kUint64, /*root=*/0, kCommWorld) != 0)
    return runError("MPI_Bcast of rank 0's parameter checksum failed");
  bool same = hash == rankZeroHash;
  // Each rank says it, in one write: the launcher merges the ranks'
  // stderr, and pieces of lines would interleave.
  std::string line;
  llvm::raw_string_ostream os(line);
  if (same)
    os << "mpt-run: rank " << rank << " of " << size
       << ": parameters and optimizer state bit-identical to rank 0's "
          "(checksum "
       << llvm::format_hex(hash, 18) << ")\n";
  else
    os << "mpt-run: error: rank " << rank << " of " << size
       << ": parameters or optimizer state differ from rank 0's (checksum "
       << llvm::format_hex(hash, 18) << ", rank 0 "
       << llvm::format_hex(rankZeroHash, 18)
       << "): the replicas are out of lockstep\n";
  llvm::errs() << line;
  llvm::errs().flush();
  return same;
}

void MpiJob::finish() {
  // Once: MPI_Finalize twice is an error.
  if (auto finalize = std::exchange(mpi.finalize, nullptr))
    finalize();
}

bool MpiJob::finishIfStarted() {
  if (!mpi.finalize)
    return false;
  instance().finish();
  return true;
}
