//===- Passes.td - mpt transformation passes ---------------*- tablegen -*-===//
#ifndef MPT_TRANSFORMS_PASSES_TD
#define MPT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TrainingGraphReport : Pass<"mpt-training-graph-report", "mlir::ModuleOp"> {
  let summary = "Report the regions, parameters, gradients and memory of each training step";
  let description = [{
    Prints, for every function of the module, the number of ops in the
    forward, backward and update regions (from the `TrainingGraph`
    analysis), the loss, the backward seed, the parameters with their
    gradients, and the static memory estimate of the step: bytes of
    parameters, gradients, optimizer state and activations kept for the
    backward pass, by element type. Run it again after a precision change
    to see the savings. The IR is not changed; every analysis is preserved.

    The report goes to stderr, or to the file named by `output`. Nested ops
    of an op with regions that is not control flow (a `linalg.generic` body)
    count with their op; function terminators are not counted.
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"text\"",
           "Report format: text or json">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "File to write the report to ('-' for stderr)">,
  ];
  let dependentDialects = ["mpt::MPTDialect"];
}

def StripTrainingMarkers : Pass<"mpt-strip-training-markers", "mlir::func::FuncOp"> {
  let summary = "Replace mpt.grad_seed by ones and mpt.gradient by its operand";
  let description = [{
    Lowers the two training-graph markers to upstream MLIR so that a step can
    be executed: `mpt.grad_seed` becomes a tensor of ones of the loss's type
    and `mpt.gradient` is forwarded to its operand. Run it after the passes
    that need the markers (autocast, loss scaling).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::linalg::LinalgDialect"];
}

def StripContractAttributes : Pass<"mpt-strip-contract-attributes", "mlir::func::FuncOp"> {
  let summary = "Remove the training-contract attributes (mpt.role, mpt.updates, ...) from a step";
  let description = [{
    Removes every `mpt.*` argument and result attribute of the function
    (`mpt.role`, `mpt.updates`, `mpt.initial_value`). Lowering pipelines run
    it once nothing needs the contract any more, so that the LLVM dialect
    function does not carry attributes that LLVM IR translation cannot
    handle (it warns about each one).
  }];
}

def DecomposeAggregateOps : Pass<"mpt-decompose-aggregate-ops", "mlir::func::FuncOp"> {
  let summary = "Decompose aggregate ops (linalg.softmax, ...) into simpler ones";
  let description = [{
    Rewrites every op that implements `linalg::AggregatedOpInterface`
    (`linalg.softmax`, ...) into the ops its `decomposeOperation`
    produces (linalg.generic reductions and elementwise ops), which the
    upstream CPU
    lowering handles; `convert-linalg-to-loops` has no lowering for the
    aggregates themselves. Upstream has the rewrite only as a transform-dialect
    op (`transform.structured.decompose_interface`).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::linalg::LinalgDialect"];
}

#endif // MPT_TRANSFORMS_PASSES_TD
