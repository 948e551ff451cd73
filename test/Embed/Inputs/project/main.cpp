// Runs mpt passes from C++: once created directly, once from a textual
// pipeline after mpt::registerAllPasses().
#include "mpt/InitAll.h"
#include "mpt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

static const char *kStep = R"mlir(
func.func @step(%w: tensor<4xf32> {mpt.role = "param"},
                %x: tensor<4xf32> {mpt.role = "data"})
    -> (tensor<4xf32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %loss = arith.mulf %w, %x : tensor<4xf32>
  %seed = mpt.grad_seed %loss : tensor<4xf32>
  %dw = arith.mulf %seed, %x : tensor<4xf32>
  %g = mpt.gradient %dw : tensor<4xf32>
  %w2 = arith.subf %w, %g : tensor<4xf32>
  return %loss, %w2 : tensor<4xf32>, tensor<4xf32>
}
)mlir";

int main() {
  mlir::DialectRegistry registry;
  registry.insert<mlir::arith::ArithDialect, mlir::func::FuncDialect,
                  mlir::linalg::LinalgDialect, mlir::tensor::TensorDialect>();
  mpt::registerAllDialects(registry);
  mpt::registerAllPasses();
  mlir::MLIRContext context(registry);

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kStep, &context);
  if (!module)
    return 1;

  // A pass created directly, with its generated options struct.
  mlir::PassManager direct(&context);
  mpt::TrainingGraphReportOptions options;
  options.format = mpt::ReportFormat::Json;
  direct.addPass(mpt::createTrainingGraphReport(options));
  if (mlir::failed(direct.run(*module)))
    return 2;

  // The same library's passes from a textual pipeline. The text is the
  // pass list of the module-level manager, without a builtin.module()
  // wrapper (with one, the passes would nest one level too deep).
  mlir::PassManager textual(&context);
  if (mlir::failed(mlir::parsePassPipeline(
          "func.func(mpt-strip-training-markers)", textual)))
    return 3;
  if (mlir::failed(textual.run(*module)))
    return 4;
  module->print(llvm::outs());
  return 0;
}
