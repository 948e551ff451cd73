//===- ObjectCache.h - mpt-run's on-disk cache of compiled steps -*- C++ -*-===//
//
// A compiled step (the JIT's object file, or one object per partition when
// its code was generated on several threads, PartitionedCodegen.h) is kept
// in a directory
// (--cache-dir, default $XDG_CACHE_HOME/mpt or ~/.cache/mpt; --no-cache
// disables it), under a key that hashes everything the object depends on:
// the step before lowering, the lowering options, the JIT's optimisation
// level, the host CPU and its features, and the mpt-run binary. A second
// run of the same step loads the object instead of lowering and compiling.
//
// Entries are written to a temporary file and renamed into place, so
// concurrent runs never see a partial entry; each carries its size and a
// BLAKE3 checksum, so a truncated or corrupted one is detected, reported
// once as a warning, and compiled again.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_TOOLS_MPT_RUN_OBJECTCACHE_H
#define MPT_TOOLS_MPT_RUN_OBJECTCACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <functional>
#include <memory>
#include <string>

namespace mpt {

/// The cache directory the options name, or "" when caching is off.
std::string getObjectCacheDirectory();

/// A hex key for `parts` plus what every key includes (mpt-run's binary,
/// the host CPU and its features, LLVM's version).
std::string computeObjectCacheKey(llvm::ArrayRef<std::string> parts);

/// The objects of a compiled step (one, or one per partition).
using ObjectList = llvm::SmallVector<std::unique_ptr<llvm::MemoryBuffer>>;

/// The objects of entry `key`, or none when there is no entry. A damaged
/// entry is removed with a warning on stderr (and none is returned).
ObjectList readObjectCacheEntry(llvm::StringRef dir, llvm::StringRef key);

/// Stores `objects` (one or more, in order) as entry `key` (atomically); a
/// failure is a warning.
void writeObjectCacheEntry(llvm::StringRef dir, llvm::StringRef key,
                           llvm::ArrayRef<llvm::StringRef> objects);

/// A step loaded from compiled objects (from the cache, or generated in
/// partitions by PartitionedCodegen.h): its packed entry point, valid while
/// this object lives.
class LoadedObject {
public:
  using SymbolsFn =
      std::function<llvm::orc::SymbolMap(llvm::orc::MangleAndInterner)>;
  /// Links `objects` (together: a partition's references to the others'
  /// symbols resolve) against `sharedLibs`, the process and `symbols`, and
  /// looks up `packedName`.
  static llvm::Expected<std::unique_ptr<LoadedObject>>
  load(ObjectList objects, llvm::ArrayRef<llvm::StringRef> sharedLibs,
       const SymbolsFn &symbols, llvm::StringRef packedName);

  void (*entry)(void **) = nullptr;

private:
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

} // namespace mpt

#endif // MPT_TOOLS_MPT_RUN_OBJECTCACHE_H
