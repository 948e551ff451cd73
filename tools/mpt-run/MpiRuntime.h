//===- MpiRuntime.h - mpt-run's MPI job (data-parallel steps) --*- C++ -*-===//
//
// A data-parallel step (--mpt-data-parallel) calls MPI from its compiled
// code. mpt-run then joins the MPI job: it loads the MPI library at run time
// (so that single-process runs need no MPI), initialises it, gives each rank
// its shard of every data batch, and checks at the end that all ranks hold
// bit-identical parameters. docs/Distributed.md is the user documentation.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_TOOLS_MPT_RUN_MPIRUNTIME_H
#define MPT_TOOLS_MPT_RUN_MPIRUNTIME_H

#include "NpyIO.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir {
class ModuleOp;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace mpt {

/// The number of ranks and this process's rank as the launcher (mpiexec)
/// announces them in the environment, before MPI is initialised; 1 and 0
/// outside a launcher.
int getLauncherWorldSize();
int getLauncherRank();

/// Reports the error that ends the run (main then exits with 1). During the
/// setup, through MpiJob::failSetup. Otherwise, under a launcher with several
/// ranks, rank 0 reports at once; another rank waits a moment first, so that
/// an error every rank meets is reported once (the launcher ends the job
/// when rank 0 exits) and one only this rank meets still is, with its rank.
/// `onAllRanks`: every rank meets it the same way, only rank 0 reports it.
void reportInJob(const llvm::Twine &message, bool onAllRanks);

/// Whether `func` (in `module`) communicates: it was made data-parallel or
/// holds all-reduces or mpi ops.
bool isDataParallel(mlir::ModuleOp module, mlir::func::FuncOp func);

/// The MPI job of a data-parallel run.
class MpiJob {
public:
  /// Loads the MPI library (MPICH ABI: libmpich.so.12, or $MPT_MPI_LIBRARY)
  /// and initialises MPI; an error (RunError.h) when it cannot.
  static llvm::Expected<MpiJob *> start();

  int getRank() const { return rank; }
  int getSize() const { return size; }
  /// The library the compiled step must be linked against.
  const std::string &getLibraryPath() const { return libraryPath; }

  /// This rank's rows of a stack of batches, shape (N, B, ...): rows
  /// [rank * B / size, (rank + 1) * B / size) of every batch, shape
  /// (N, B / size, ...). `perRank` is the batch the step takes; an error
  /// every rank meets (reported once, by rank 0) when B does not divide among
  /// the ranks or its share is not `perRank`.
  llvm::Expected<HostArray> takeShard(const HostArray &batches, int64_t perRank,
                      const llvm::Twine &source, const llvm::Twine &argument);

  /// Ends the setup (from MPI_Init to the data read and sharded): a
  /// collective that every rank reaches before the step's first all-reduce,
  /// unless it failed (failSetup, the same collective). When a rank failed,
  /// rank 0 reports the lowest such rank's error, once, and every rank gets
  /// AlreadyReported (RunError.h: main exits with 1).
  llvm::Error finishSetup();
  /// Ends the setup with `message` (see finishSetup) and MPI; an empty
  /// message on rank 0: already reported. main then exits with 1.
  void failSetup(const llvm::Twine &message);
  /// The job while it is in its setup, or null.
  static MpiJob *getInSetup();

  /// Overwrites `arrays` with rank 0's (the same shapes on every rank), so
  /// that the replicas start in lockstep whatever seed or files each rank
  /// was given.
  llvm::Error broadcastFromRankZero(llvm::ArrayRef<HostArray *> arrays);

  /// Compares a checksum of `arrays` with rank 0's. Returns true when this
  /// rank holds the same bytes as rank 0; every rank says which.
  llvm::Expected<bool> checkLockstep(llvm::ArrayRef<const HostArray *> arrays);

  /// MPI_Finalize.
  void finish();
  /// MPI_Finalize if this process started MPI; whether it had.
  static bool finishIfStarted();

private:
  MpiJob() = default;
  static MpiJob &instance();
  /// Whether a rank failed (then MPI is finalised).
  bool agreeOnSetup(bool failed, const llvm::Twine &message);
  int rank = 0, size = 1;
  bool inSetup = false;
  std::string libraryPath;
};

} // namespace mpt

#endif // MPT_TOOLS_MPT_RUN_MPIRUNTIME_H
