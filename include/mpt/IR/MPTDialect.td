//===- MPTDialect.td - the mpt dialect ---------------------*- tablegen -*-===//
#ifndef MPT_IR_MPTDIALECT_TD
#define MPT_IR_MPTDIALECT_TD

include "mlir/IR/OpBase.td"

def MPT_Dialect : Dialect {
  let name = "mpt";
  let cppNamespace = "::mpt";
  let summary = "Training-graph markers and loss-scaling operations of mpt";
  let description = [{
    The `mpt` dialect carries what upstream MLIR cannot say about a training
    step:

    * markers that delimit the backward pass (`mpt.grad_seed`, the seed dL/dL)
      and the optimizer (`mpt.gradient`, a parameter's complete gradient);
    * the loss-scaling operations that mixed-precision training inserts
      (`mpt.scale`, `mpt.unscale_and_check`, `mpt.update_scale`,
      `mpt.guard_update`), kept high level so that a compiler with a fused
      kernel for "unscale and check" can lower them its own way;
    * the attributes of the training-graph contract on function arguments
      (`mpt.role`, `mpt.initial_value`) and results (`mpt.role`,
      `mpt.updates`), verified by the dialect.

    See docs/TrainingGraphContract.md.
  }];
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    // Names of the attributes of the training-graph contract.
    static constexpr ::llvm::StringLiteral kRoleAttrName = "mpt.role";
    static constexpr ::llvm::StringLiteral kUpdatesAttrName = "mpt.updates";
    static constexpr ::llvm::StringLiteral kInitialValueAttrName =
        "mpt.initial_value";
    static constexpr ::llvm::StringLiteral kRangeAttrName = "mpt.range";
    /// On a master-weights working copy: the index of its f32 parameter.
    static constexpr ::llvm::StringLiteral kWorkingCopyOfAttrName =
        "mpt.working_copy_of";

  private:
    /// For each argument, the first result whose `mpt.updates` names it,
    /// per result attribute list (uniqued, so its pointer names its
    /// contents). verifyRegionResultAttribute checks every result against
    /// the earlier ones: scanning them each time is quadratic in the results
    /// of a step, and the verifier runs after every pass. Verifiers run in
    /// parallel, hence the lock.
    /// The first result of `func` that updates `argIndex`, if any.
    std::optional<unsigned>
    getFirstResultUpdating(::mlir::FunctionOpInterface func, int64_t argIndex);
    std::mutex firstResultUpdatingMutex;
    ::llvm::DenseMap<::mlir::Attribute,
                     std::unique_ptr<::llvm::DenseMap<int64_t, unsigned>>>
        firstResultUpdating;
  public:
    /// Whether the warning (`loc`, `message`) has not been given yet in this
    /// context (the training graph's findings: the analysis runs in every
    /// pass that reads the contract and on the copies that report passes
    /// make, and the user needs each warning once). Per context, so that a
    /// later context never sees an earlier one's locations.
    bool isFirstWarning(::mlir::Location loc, ::llvm::StringRef message);
  private:
    std::mutex givenWarningsMutex;
    ::llvm::DenseSet<std::pair<::mlir::Location, ::llvm::StringRef>>
        givenWarnings;
    ::llvm::StringSet<> givenWarningTexts;
  public:
  }];
}

class MPT_Op<string mnemonic, list<Trait> traits = []>
    : Op<MPT_Dialect, mnemonic, traits>;

#endif // MPT_IR_MPTDIALECT_TD
