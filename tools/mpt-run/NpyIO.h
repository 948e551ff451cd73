//===- NpyIO.h - strict .npy / .npz reading and writing --------*- C++ -*-===//
//
// The array files mpt-run reads and writes: NumPy's .npy format (versions
// 1.0-3.0, C order, little-endian) and .npz archives (zip files of .npy
// entries, stored as np.savez writes them or deflated as np.savez_compressed
// does). Only the dtypes a training step can take are accepted.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_TOOLS_MPTRUN_NPYIO_H
#define MPT_TOOLS_MPTRUN_NPYIO_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mpt {

/// The element types of step arguments and results.
enum class ElementKind { F32, F16, BF16, F64, I32, I64, I1 };

/// Bytes per element (i1 is stored as one byte, as NumPy's bool and as
/// MLIR's memref<...xi1> on the host).
unsigned getElementSize(ElementKind kind);
/// The MLIR spelling ("f32", "bf16", "i1", ...).
llvm::StringRef getElementName(ElementKind kind);
/// The NumPy dtype name ("float32", "bfloat16", "bool", ...).
llvm::StringRef getNumpyName(ElementKind kind);

/// Bytes of a dense array of `shape`, or nothing when that does not fit in
/// an int64 (a crafted shape must not wrap to a small size).
std::optional<int64_t> getByteSize(ElementKind kind,
                                   llvm::ArrayRef<int64_t> shape);

/// A dense C-order array in host memory.
struct HostArray {
  ElementKind kind = ElementKind::F32;
  llvm::SmallVector<int64_t> shape;
  std::vector<uint8_t> data;

  int64_t getNumElements() const;
  /// "(8, 16) float32".
  std::string describe() const;
  /// Element `i` converted to double (f16/bf16 widened exactly).
  double getAsDouble(int64_t i) const;
  /// Sets element `i` from a double, rounding to nearest even.
  void setFromDouble(int64_t i, double value);
  /// A zero-filled array.
  static HostArray zeros(ElementKind kind, llvm::ArrayRef<int64_t> shape);
};

/// Reads one .npy file's bytes. `what` names it in errors.
llvm::Expected<HostArray> parseNpy(llvm::StringRef bytes,
                                   llvm::StringRef what);
/// Reads a .npy file.
llvm::Expected<HostArray> readNpyFile(llvm::StringRef path);
/// Reads every entry of a .npz file, keyed by entry name without ".npy".
llvm::Expected<std::map<std::string, HostArray>>
readNpzFile(llvm::StringRef path);

/// Serialises an array as .npy (version 1.0).
std::string serializeNpy(const HostArray &array);
/// Writes arrays as an uncompressed .npz (what np.savez writes), entries in
/// the given order. The file is replaced atomically: written to a temporary
/// file next to it, flushed to disk, then renamed over it, so an existing
/// checkpoint survives a failed write (a full disk) intact.
llvm::Error
writeNpzFile(llvm::StringRef path,
             llvm::ArrayRef<std::pair<std::string, const HostArray *>> arrays);

/// IEEE half / bfloat16 <-> float, round to nearest even.
float halfToFloat(uint16_t bits);
uint16_t floatToHalf(float value);
float bf16ToFloat(uint16_t bits);
uint16_t floatToBF16(float value);

} // namespace mpt

#endif // MPT_TOOLS_MPTRUN_NPYIO_H
