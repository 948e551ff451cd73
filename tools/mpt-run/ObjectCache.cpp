//===- ObjectCache.cpp - mpt-run's on-disk cache of compiled steps --------===//
#include "ObjectCache.h"
#include "Options.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>

using namespace llvm;

static cl::opt<std::string> cacheDir(
    "cache-dir",
    cl::desc("Keep compiled steps in this directory and reuse them (default: "
             "$XDG_CACHE_HOME/mpt or ~/.cache/mpt)"),
    cl::value_desc("dir"), cl::cat(mpt::getCacheCategory()));
static cl::opt<bool> noCache("no-cache",
                             cl::desc("Neither read nor write compiled steps"),
                             cl::cat(mpt::getCacheCategory()));

/// An entry: magic, payload size (little-endian u64), BLAKE3 of the
/// payload, payload: the number of objects, each one's size (little-endian
/// u64s), the objects in order. (MPTOBJ1 entries held one object and no
/// list; the key has the binary in it, so a new mpt-run never meets one.)
static constexpr StringLiteral kMagic("MPTOBJ2\n");
static constexpr size_t kHeaderSize = 8 + 8 + 32;

std::string mpt::getObjectCacheDirectory() {
  if (noCache)
    return "";
  if (!cacheDir.empty())
    return cacheDir;
  SmallString<256> dir;
  if (!sys::path::cache_directory(dir))
    return "";
  sys::path::append(dir, "mpt");
  return std::string(dir);
}

std::string mpt::computeObjectCacheKey(ArrayRef<std::string> parts) {
  BLAKE3 hasher;
  auto add = [&](StringRef part) {
    // Length-prefixed, so that no two lists of parts hash alike.
    uint64_t size = part.size();
    hasher.update(ArrayRef(reinterpret_cast<const uint8_t *>(&size), 8));
    hasher.update(part);
  };
  for (const std::string &part : parts)
    add(part);
  // The binary (a rebuilt mpt-run may lower differently), by path, size
  // and modification time.
  std::string exe = sys::fs::getMainExecutable(nullptr, nullptr);
  sys::fs::file_status status;
  std::string identity = exe;
  if (!sys::fs::status(exe, status))
    identity += " " + std::to_string(status.getSize()) + " " +
                std::to_string(status.getLastModificationTime()
                                   .time_since_epoch()
                                   .count());
  add(identity);
  add(sys::getHostCPUName());
  SmallVector<std::string> features;
  for (auto &feature : sys::getHostCPUFeatures())
    features.push_back((feature.second ? "+" : "-") + feature.first().str());
  llvm::sort(features);
  add(join(features, ","));
  add(LLVM_VERSION_STRING);
  return toHex(hasher.final<16>(), /*LowerCase=*/true);
}

static std::string entryPath(StringRef dir, StringRef key) {
  SmallString<256> path(dir);
  sys::path::append(path, key + ".o");
  return std::string(path);
}

/// The objects `payload` lists, or none (with `why`) when the list does not
/// add up to the payload.
static mpt::ObjectList splitPayload(StringRef payload, StringRef path,
                                    std::string &why) {
  auto readSize = [&](uint64_t &value) {
    if (payload.size() < 8)
      return false;
    value = support::endian::read64le(payload.data());
    payload = payload.drop_front(8);
    return true;
  };
  uint64_t count;
  SmallVector<uint64_t> sizes;
  if (readSize(count) && count > 0 && count <= payload.size() / 8) {
    sizes.resize(count);
    for (uint64_t &size : sizes)
      if (!readSize(size))
        break;
  }
  uint64_t total = 0;
  for (uint64_t size : sizes)
    total += std::min<uint64_t>(size, payload.size() + 1);
  if (sizes.empty() || total != payload.size()) {
    why = "bad object list";
    return {};
  }
  mpt::ObjectList objects;
  for (uint64_t size : sizes) {
    objects.push_back(MemoryBuffer::getMemBufferCopy(payload.take_front(size),
                                                     path));
    payload = payload.drop_front(size);
  }
  return objects;
}

mpt::ObjectList mpt::readObjectCacheEntry(StringRef dir, StringRef key) {
  std::string path = entryPath(dir, key);
  ErrorOr<std::unique_ptr<MemoryBuffer>> file =
      MemoryBuffer::getFile(path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!file)
    return {};
  StringRef data = (*file)->getBuffer();
  std::string why;
  if (data.size() < kHeaderSize || !data.starts_with(kMagic)) {
    why = "bad header: not an mpt-run cache entry";
  } else {
    uint64_t size = support::endian::read64le(data.data() + 8);
    StringRef payload = data.drop_front(kHeaderSize);
    if (payload.size() != size) {
      why = "truncated (" + std::to_string(payload.size()) + " of " +
            std::to_string(size) + " bytes)";
    } else {
      auto sum = BLAKE3::hash<32>(arrayRefFromStringRef(payload));
      if (StringRef(reinterpret_cast<const char *>(sum.data()), 32) !=
          data.substr(16, 32))
        why = "checksum mismatch";
      else if (ObjectList objects = splitPayload(payload, path, why);
               !objects.empty())
        return objects;
    }
  }
  errs() << "mpt-run: warning: cache entry " << path << " is damaged (" << why
         << "); compiling again\n";
  sys::fs::remove(path);
  return {};
}

void mpt::writeObjectCacheEntry(StringRef dir, StringRef key,
                                ArrayRef<StringRef> objects) {
  auto warn = [&](const Twine &what, std::error_code ec) {
    errs() << "mpt-run: warning: cannot write the cache entry in " << dir
           << ": " << what << ": " << ec.message() << "\n";
  };
  if (std::error_code ec = sys::fs::create_directories(dir))
    return warn("creating the directory", ec);
  // A temporary of its own per writer, renamed into place (atomic on POSIX):
  // a concurrent reader sees the old entry, none, or the whole new one.
  SmallString<256> model(dir);
  sys::path::append(model, key + "-%%%%%%%%.tmp");
  int fd;
  SmallString<256> temp;
  if (std::error_code ec = sys::fs::createUniqueFile(model, fd, temp))
    return warn("creating a temporary file", ec);
  {
    std::string payload;
    auto addSize = [&](uint64_t value) {
      char bytes[8];
      support::endian::write64le(bytes, value);
      payload.append(bytes, 8);
    };
    addSize(objects.size());
    for (StringRef object : objects)
      addSize(object.size());
    for (StringRef object : objects)
      payload += object;
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << kMagic;
    char size[8];
    support::endian::write64le(size, payload.size());
    os.write(size, 8);
    auto sum = BLAKE3::hash<32>(arrayRefFromStringRef(payload));
    os.write(reinterpret_cast<const char *>(sum.data()), 32);
    os << payload;
    os.close();
    if (os.has_error()) {
      std::error_code ec = os.error();
      os.clear_error();
      sys::fs::remove(temp);
      return warn("writing " + temp, ec);
    }
  }
  if (std::error_code ec = sys::fs::rename(temp, entryPath(dir, key))) {
    sys::fs::remove(temp);
    return warn("renaming " + temp, ec);
  }
}

Expected<std::unique_ptr<mpt::LoadedObject>>
mpt::LoadedObject::load(ObjectList objects, ArrayRef<StringRef> sharedLibs,
                        const SymbolsFn &symbols, StringRef packedName) {
  using namespace llvm::orc;
  // LLJIT's default linking layer, JITLink's: it places each object's
  // sections in one allocation and reaches other objects and libraries
  // through stubs, checking every 32-bit relocation, so that the quick
  // code can use the small code model (RuntimeDyld, MLIR's ExecutionEngine
  // layer, places sections apart unchecked; docs/CompileTime.md).
  auto jit = LLJITBuilder().create();
  if (!jit)
    return jit.takeError();
  JITDylib &dylib = (*jit)->getMainJITDylib();
  char prefix = (*jit)->getDataLayout().getGlobalPrefix();
  for (StringRef lib : sharedLibs) {
    auto generator =
        DynamicLibrarySearchGenerator::Load(lib.str().c_str(), prefix);
    if (!generator)
      return generator.takeError();
    dylib.addGenerator(std::move(*generator));
  }
  auto process = DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
  if (!process)
    return process.takeError();
  dylib.addGenerator(std::move(*process));
  MangleAndInterner interner((*jit)->getExecutionSession(),
                             (*jit)->getDataLayout());
  if (Error err = dylib.define(absoluteSymbols(symbols(interner))))
    return std::move(err);
  for (std::unique_ptr<MemoryBuffer> &object : objects)
    if (Error err = (*jit)->addObjectFile(std::move(object)))
      return std::move(err);
  auto address = (*jit)->lookup(packedName);
  if (!address)
    return address.takeError();
  auto loaded = std::unique_ptr<LoadedObject>(new LoadedObject());
  loaded->entry = address->toPtr<void (*)(void **)>();
  loaded->jit = std::move(*jit);
  return loaded;
}
