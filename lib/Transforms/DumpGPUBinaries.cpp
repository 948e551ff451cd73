//===- DumpGPUBinaries.cpp - write gpu.binary objects to files ------------===//
//
// A utility of --mpt-gpu-codegen (and of anyone inspecting its output): it
// converts nothing, so it lives with the transforms, not the conversions.
//
//===----------------------------------------------------------------------===//
#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mpt {
#define GEN_PASS_DEF_DUMPGPUBINARIES
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {
struct DumpGPUBinariesPass
    : mpt::impl::DumpGPUBinariesBase<DumpGPUBinariesPass> {
  using Base::Base;

  static StringRef extension(gpu::CompilationTarget format) {
    switch (format) {
    case gpu::CompilationTarget::Offload:
      return "llvm";
    case gpu::CompilationTarget::Assembly:
      return "ptx";
    case gpu::CompilationTarget::Binary:
      return "cubin";
    case gpu::CompilationTarget::Fatbin:
      return "fatbin";
    }
    return "bin";
  }

  void runOnOperation() override {
    if (!llvm::sys::fs::is_directory(dir)) {
      emitError(getOperation().getLoc())
          << "mpt-dump-gpu-binaries: '" << dir << "' is not a directory";
      return signalPassFailure();
    }
    WalkResult result = getOperation().walk([&](gpu::BinaryOp binary) {
      for (Attribute attr : binary.getObjects()) {
        auto object = cast<gpu::ObjectAttr>(attr);
        std::string chip = "gpu";
        if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget()))
          chip = nvvm.getChip().str();
        SmallString<256> path(dir);
        llvm::sys::path::append(path, (binary.getSymName() + "." + chip +
                                       "." + extension(object.getFormat()))
                                          .str());
        std::string error;
        auto file = mlir::openOutputFile(path, &error);
        if (!file) {
          binary.emitError("mpt-dump-gpu-binaries: ") << error;
          return WalkResult::interrupt();
        }
        file->os() << object.getObject().getValue();
        file->keep();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
