//===- TensorCoreSchedules.h - the embedded Tensor Core schedules ---------===//
//
// The transform schedules and kernel templates of mpt-matmul-to-tensorcore
// are .mlir files in lib/Conversion/TensorCore/, embedded into the library at
// build time (mpt_embed_files, cmake/EmbedFile.cmake): nothing is read from
// disk at run time. A file's parameters are written ${NAME} and substituted
// by instantiateSchedule from the kernel configuration; the result parses as
// MLIR (its line numbers are the file's). --mpt-test-tensorcore-schedules
// prints every instantiation the configuration table gives, so that a lit
// test parses and verifies each (test/Conversion/tensorcore-schedules.mlir).
//
//===----------------------------------------------------------------------===//
#ifndef MPT_CONVERSION_TENSORCORESCHEDULES_H
#define MPT_CONVERSION_TENSORCORESCHEDULES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mpt::tensorcore {

/// The embedded files (lib/Conversion/TensorCore/<name>).
enum class ScheduleFile {
  Sm80MmaSync,  // sm80-mma-sync.mlir: the sm_80 transform sequences
  Simt,         // simt.mlir: the general path's transform sequences
  Wgmma16Bit,   // wgmma-16bit.mlir: the sm_90a f16/bf16 kernel
  WgmmaFp8,     // wgmma-fp8.mlir: the sm_90a FP8 kernel
  Fp8Transpose, // fp8-transpose.mlir: the FP8 K-major copy kernel
};

/// Parameter name (without ${ }) and value, in the order they are listed.
using ScheduleParams = llvm::SmallVector<std::pair<std::string, std::string>>;

/// The file's name, e.g. "sm80-mma-sync.mlir".
llvm::StringRef getScheduleFileName(ScheduleFile file);
/// The file's text as embedded, parameters unsubstituted.
llvm::StringRef getScheduleText(ScheduleFile file);

/// The file's text with every ${NAME} replaced by its value; an error (in
/// `error`) when the text names a parameter `params` does not give or
/// `params` gives one the text does not use.
std::optional<std::string> instantiateSchedule(ScheduleFile file,
                                               const ScheduleParams &params,
                                               std::string &error);

/// instantiateSchedule, then parsed into a module (parse errors are reported
/// at the file's lines). Null, after an error at `loc`, when either fails.
mlir::OwningOpRef<mlir::ModuleOp> parseSchedule(ScheduleFile file,
                                                const ScheduleParams &params,
                                                mlir::MLIRContext *context,
                                                mlir::Location loc);

/// One instantiation the pass makes: for the lit test that parses them all.
struct ScheduleExample {
  std::string label;
  ScheduleFile file;
  ScheduleParams params;
};
/// Every file with the parameters of each kernel configuration of
/// TensorCoreConfig.h (sm_80's default and small configurations in each
/// layout, sm_90a's f16, bf16 and FP8 kernels, the FP8 copy).
std::vector<ScheduleExample> getScheduleExamples(mlir::MLIRContext *context);

} // namespace mpt::tensorcore

#endif // MPT_CONVERSION_TENSORCORESCHEDULES_H
