//===- Registration.h - registering mpt's module pipelines -----*- C++ -*-===//
//
// PassPipelineRegistration for pipelines that run on builtin.module, with the
// nesting checked when a textual pipeline names them.
//
//===----------------------------------------------------------------------===//
#ifndef MPT_PIPELINES_REGISTRATION_H
#define MPT_PIPELINES_REGISTRATION_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <functional>
#include <optional>
#include <string>

namespace mpt {

/// Registers `builder` as the pipeline `arg`, as mlir::PassPipelineRegistration
/// does, for a pipeline of module passes: named inside another op's pipeline
/// (`func.func(mpt-mixed-precision)`), it is a pipeline parsing error, where
/// upstream's OpPassManager::addPass would abort the program on the first
/// module pass.
template <typename Options>
void registerModulePipeline(
    llvm::StringRef arg, llvm::StringRef description,
    std::function<void(mlir::OpPassManager &, const Options &)> builder) {
  mlir::registerPassPipeline(
      arg, description,
      [arg = arg.str(), builder](
          mlir::OpPassManager &pm, llvm::StringRef optionsText,
          llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)>
              errorHandler) -> mlir::LogicalResult {
        std::optional<llvm::StringRef> anchor = pm.getOpName();
        if (anchor && *anchor != mlir::ModuleOp::getOperationName())
          return errorHandler("'" + arg + "' runs on '" +
                              mlir::ModuleOp::getOperationName() +
                              "': it cannot be nested in '" + *anchor + "'");
        Options options;
        if (mlir::failed(options.parseFromString(optionsText)))
          return mlir::failure();
        builder(pm, options);
        return mlir::success();
      },
      [](llvm::function_ref<void(const mlir::detail::PassOptions &)> handler) {
        handler(Options());
      });
}

} // namespace mpt

#endif // MPT_PIPELINES_REGISTRATION_H
