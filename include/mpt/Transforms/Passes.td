//===- Passes.td - mpt transformation passes ---------------*- tablegen -*-===//
#ifndef MPT_TRANSFORMS_PASSES_TD
#define MPT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"
include "mpt/Support/ReportOptions.td"

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
    ReportFormatOption,
    ReportOutputOption<"\"-\"">,
    Option<"allFunctions", "all-functions", "bool", /*default=*/"false",
           "Report every function, not only the training steps (functions "
           "with mpt.role / mpt.updates or training markers; a module "
           "without any has all its functions reported)">,
  ];
  let dependentDialects = ["mpt::MPTDialect"];
}

def RangeReport : Pass<"mpt-range-report", "mlir::ModuleOp"> {
  let summary = "Report the value range of every float value of each function";
  let description = [{
    Runs the floating-point range analysis (`FloatRanges`,
    include/mpt/Analysis/FloatRange.h) on every function and prints, for
    each float argument and op result in program order (linalg bodies
    belong to their op): its interval, what it reaches because of bounded
    sources (constants, masks, `mpt.range` arguments, the loss scale) when
    that differs, whether it may be inf or NaN, and the source of the
    reach. Data arguments are unbounded unless they carry `mpt.range`.
    The IR is not changed.

    The report goes to stderr, or to the file named by `output`. With
    `solver`, every function runs the dataflow solver, also one that the
    analysis otherwise covers with a single forward sweep (one block, no
    control flow): the two must report the same.
  }];
  let options = [
    ReportFormatOption,
    ReportOutputOption<"\"-\"">,
    Option<"solver", "solver", "bool", /*default=*/"false",
           "Run the dataflow solver on every function (testing the sweep "
           "against it)">,
  ];
}

def Verify : Pass<"mpt-verify"> {
  let summary = "Verify the IR the pipeline produced; fail the pipeline if it "
                "is invalid";
  let description = [{
    Runs MLIR's verifier on the op the pass is anchored on and everything
    nested in it. `mpt-opt` appends it to the pipeline it runs unless
    `--verify-each` is given: one verification of the result instead of one
    after every pass that changed the IR (each costs about a quarter of
    parsing and printing the step: docs/CompileTime.md), so that invalid IR
    still ends the run with an error instead of being printed. Embedders that
    run their pass managers with the verifier off can append it the same way.
  }];
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

// The loss scale's parameters, declared once for --mpt-insert-loss-scaling
// and --mpt-mixed-precision (which spells the mode `loss-scale`, with a
// default that depends on the dtype).
defvar lossScalingOptions = [
  Option<"initScale", "init-scale", "double", /*default=*/"65536.0",
         "The (initial) loss scale: finite, > 0 and representable in FP32">,
  Option<"growthFactor", "growth-factor", "double", /*default=*/"2.0",
         "Dynamic mode: factor applied after growth-interval clean steps (> 1)">,
  Option<"backoffFactor", "backoff-factor", "double", /*default=*/"0.5",
         "Dynamic mode: factor applied on overflow, in (0, 1)">,
  Option<"growthInterval", "growth-interval", "int64_t", /*default=*/"2000",
         "Dynamic mode: clean steps before the scale grows (1 to 2^31-1)">,
  Option<"minScale", "min-scale", "double", /*default=*/"0.0",
         "Dynamic mode: floor of the scale on backoff (0: none, as "
         "GradScaler; Keras uses 1)">,
];

def InsertLossScaling : Pass<"mpt-insert-loss-scaling", "mlir::ModuleOp"> {
  let summary = "Scale the backward seed, unscale and check the gradients, skip overflowing steps";
  let description = [{
    Loss scaling inside the compiled training step (docs/LossScaling.md),
    with the semantics of PyTorch's GradScaler:

    * the backward seed (`mpt.grad_seed`, or the `loss_grad` argument) is
      multiplied by the loss scale (`mpt.scale`); the backward pass is linear
      in its seed, so this is "multiply the loss before backpropagation";
    * all `mpt.gradient` values go through one `mpt.unscale_and_check`
      (multiplied by 1/scale in FP32, one found-inf flag for all of them)
      before any optimizer op reads them;
    * every result carrying `mpt.updates` is guarded by `mpt.guard_update`:
      when found-inf is set it is its input argument, bit for bit;
    * `mode=dynamic` appends two arguments, `tensor<f32> {mpt.role =
      "loss_scale", mpt.initial_value = <init-scale>}` and `tensor<i32>
      {mpt.role = "loss_scale_growth_tracker", mpt.initial_value = 0}`, and
      two results (`mpt.updates` pointing at them) computed by
      `mpt.update_scale`. `mode=static` uses the constant `init-scale` and
      adds no state; `mode=none` leaves the step unchanged.

    Functions without any part of the training-graph contract (no marker,
    no loss or `mpt.updates` result) are left alone. The pass runs on the
    module because dynamic mode changes a step's signature: a call of the
    step with its old signature is an error at the call (calls are not
    rewritten). Run
    `--mpt-lower-loss-scaling` afterwards to lower the inserted ops.
  }];
  let options = !listconcat([
    Option<"mode", "mode", "mpt::LossScaleMode",
           /*default=*/"mpt::LossScaleMode::Dynamic",
           "Loss scaling: none, static (constant init-scale) or dynamic "
           "(GradScaler's growth and backoff)",
           [{::llvm::cl::values(
             clEnumValN(mpt::LossScaleMode::None, "none", "no loss scaling"),
             clEnumValN(mpt::LossScaleMode::Static, "static",
                        "the constant init-scale"),
             clEnumValN(mpt::LossScaleMode::Dynamic, "dynamic",
                        "GradScaler's growth and backoff"))}]>,
  ], lossScalingOptions);
  let dependentDialects = ["mpt::MPTDialect", "mlir::arith::ArithDialect"];
}

def LossScalingReport : Pass<"mpt-loss-scaling-report", "mlir::ModuleOp"> {
  let summary = "Report what loss scaling inserted in each training step";
  let description = [{
    Prints, for every function of the module, the loss-scaling mode (dynamic
    with the state arguments and their initial values, static with the
    constant scale, or none), the update parameters, how the backward seed
    is scaled, the number of gradients unscaled and checked, and the results
    guarded against overflowing steps. Reads the `mpt` loss-scaling ops, so
    run it after `--mpt-insert-loss-scaling` and before
    `--mpt-lower-loss-scaling`. The IR is not changed.

    The report goes to stderr, or to the file named by `output`.
  }];
  let options = [
    ReportFormatOption,
    ReportOutputOption<"\"-\"">,
    Option<"allFunctions", "all-functions", "bool", /*default=*/"false",
           "Report every function, not only the training steps (functions "
           "with mpt.role / mpt.updates or training markers; a module "
           "without any has all its functions reported)">,
  ];
  let dependentDialects = ["mpt::MPTDialect"];
}

def StripContractAttributes : Pass<"mpt-strip-contract-attributes", "mlir::func::FuncOp"> {
  let summary = "Remove the training-contract attributes (mpt.role, mpt.updates, ...) from a step";
  let description = [{
    Removes every `mpt.*` argument and result attribute of the function
    (`mpt.role`, `mpt.updates`, `mpt.initial_value`), and the `mpt.*`
    attributes of the function and its ops (`mpt.loss_scaling`,
    `mpt.recomputed`). Lowering pipelines run
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

def MergeAccumulatedMatmuls
    : Pass<"mpt-merge-accumulated-matmuls", "mlir::func::FuncOp"> {
  let summary = "Merge a sum of small-K matmuls into one matmul over the "
                "concatenated operands";
  let description = [{
    On tensors. A weight used many times in a step (an RNN's recurrent
    weight at every time step, a tied embedding, a layer applied twice)
    gets its gradient as a sum of products, one per use: `sum_i A_i B_i`,
    each a `linalg.matmul` of small K (an LSTM's batch) into a zero fill,
    added up by elementwise `linalg.generic` adds. Such a sum becomes one
    `linalg.matmul` of `tensor.concat` of the A_i along K by `tensor.concat`
    of the B_i along K, so that the CPU kernel keeps the sums in registers
    over the whole K instead of writing, re-reading and adding one
    weight-sized partial product per use.

    The sum is a tree of adds (identity maps, each read only by the next
    add; an autocast add in bf16 or f16 that widens its inputs and rounds
    its result counts) whose leaves are matmul results read only by the
    sum, in f32 or rounded by a lone `arith.truncf` generic. A leaf joins
    when its operands are smaller than its product (K (M + N) <= M N; with
    a larger K the kernel already amortises C); a merged matmul takes
    leaves with the same operand types while their operands, which stay
    live until it runs, total at most two products; the other leaves stay
    and are added to its result in the order of the sum.

    Summation order changes: the merged matmul sums all products in f32 in
    K order, where the sum added rounded partial products. Under autocast
    the gradient is then rounded to bf16 or f16 once, not after every add.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def FuseElementwise : Pass<"mpt-fuse-elementwise", "mlir::func::FuncOp"> {
  let summary = "Fuse chains of elementwise linalg ops and give each reader of a fill its own fill";
  let description = [{
    Runs before bufferization in `--mpt-lower-to-cpu`, so that a step
    allocates fewer and shorter-lived temporaries:

    - an elementwise `linalg.generic` whose result only one op reads is fused
      into that reader (upstream `populateElementwiseOpsFusionPatterns`), so
      a decomposed GELU's backward or autocast's cast into its user becomes
      one loop nest with no intermediate buffer. A producer that other ops
      read too, none of them a linalg op and all after its linalg reader
      (an optimizer's new momentum, which the step returns and the
      parameter update reads), is fused into that reader, which then
      yields the producer's result as well: computed once, one pass over
      memory instead of two (upstream's pattern would keep the producer and
      compute it again in the fused op). Unlike upstream
      `linalg-fuse-elementwise-ops` it does not propagate reshapes through
      the ops, which would turn named contractions into generics that the
      CPU kernels (`--mpt-matmul-to-cpu-kernels`) no longer recognise;
    - a `tensor.empty` or tensor `linalg.fill` that several ops of its block
      use (the zeros a forward and a backward contraction both start from)
      is cloned right before each of them, and one with a single user is
      moved right before it: its buffer is then allocated where it is used
      and dies with its user, instead of being allocated in the forward,
      copied for the other users and kept until the last one. One linear
      sweep per block.

    Every scalar op of the fused bodies still rounds as before, so results
    are unchanged (the execution tests run with it), unless:

    - `excess-precision` (`--mpt-lower-to-cpu` sets it by default): where
      fusion put an op that rounds its f32 result to bf16 or f16 in front
      of an op that widens that input back to f32 (autocast's op-by-op
      rounding), the reader takes the f32 value. The rounded value is never
      stored; it only made the next op read a less exact input, at the
      cost of a conversion each way. What a fused op yields (what is
      stored) keeps its rounding; so does a cast op's (autocast's cast of
      an f32 value into a low op, any explicit cast of an input: the reader
      sees the value it was meant to see) and a round trip written inside
      one op (a quantize-dequantize, a reference rounded on purpose): only
      the rounding of a computed result, wired by fusion to a widening of
      another op's input, is dropped. XLA does the same by default (`xla_allow_excess_precision`)
      and so does PyTorch Inductor's code for fused bf16 ops; autocast's
      eager kernels round after every op. Results then differ from the
      op-by-op ones (closer to FP32: a decomposed GELU's backward rounds
      once instead of after each of its ops, a depthwise filter gradient
      sums unrounded products), and which roundings go depends on what was
      fused.
  }];
  let options = [
    Option<"excessPrecision", "excess-precision", "bool", /*default=*/"false",
           "A widening of a fused producer's bf16 or f16 rounding reads the "
           "unrounded f32 value (stored results keep their rounding)">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def RecomputeInBackward : Pass<"mpt-recompute-in-backward", "mlir::func::FuncOp"> {
  let summary = "Recompute cheap elementwise forward values in the backward instead of keeping them";
  let description = [{
    A training step keeps every forward value its backward reads alive from
    the forward to the backward. Many of them are cheap to compute again
    from values the backward keeps anyway: a layer norm's or batch norm's
    output `x_hat * gamma + beta` and its 16-bit copy (from `x_hat`, which
    the gamma gradient reads), a ReLU or residual sum after a batch norm, a
    GELU's output (from its input, which the GELU's gradient reads), a
    normalised value (from the step's input batch and the small mean and
    1/std). This pass gives each such backward reader a copy of the forward
    ops that compute the value, placed before its first backward reader, so
    that the forward value dies in the forward (selective activation
    recomputation, as in Megatron-LM and XLA's rematerialisation, here
    restricted to elementwise work).

    A forward value read by the backward is recomputed when the ops that
    compute it, followed back through its operands, are elementwise
    (`linalg.generic` with parallel loops and no read of its init,
    elementwise `arith`/`math` ops on tensors) or reshapes, at most
    `max-ops` of them, and every value they start from is available in the
    backward anyway: a function argument (parameters, the input batch), a
    constant, a forward value the backward reads and that is not itself
    recomputed, or a value at most 1/16 of the recomputed value's size
    (a normalisation's statistics, a per-channel parameter broadcast),
    which is then kept instead. Values are decided in program order, so a
    chain may run through a value recomputed before: the budget bounds the
    work, and the pass is linear in the size of the step.

    The copies compute the same scalar ops on the same inputs, so the
    backward reads the same values (up to the floating-point contraction the
    CPU compiler may choose differently for a fused loop). They carry
    `mpt.recomputed`, which keeps CSE from merging them back into the
    forward ops; `mpt-strip-contract-attributes` removes it. Runs on steps
    with training markers (`mpt.grad_seed`), before they are stripped:
    `--mpt-mixed-precision` runs it after cast cleanup (`recompute=0` turns
    it off).
  }];
  let options = [
    Option<"maxOps", "max-ops", "unsigned", /*default=*/"8",
           "Most ops (reshapes not counted) recomputed for one kept value">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def UpdateInPlace : Pass<"mpt-update-in-place", "mlir::func::FuncOp"> {
  let summary = "Compute each updated argument's new value into the argument (destination-passing style)";
  let description = [{
    For every result marked `mpt.updates = i` that an elementwise
    `linalg.generic` computes, and whose init that op does not read (a
    `tensor.empty`, or a tensor its body ignores), makes argument `i` the
    op's init. One-Shot Bufferize then writes the new parameters and
    optimizer state into the argument buffers instead of new ones, where its
    analysis proves it safe (no later reader of the old value; otherwise it
    allocates as before): the step no longer holds old and new parameters and
    optimizer state at once at its end, as PyTorch's in-place optimizers
    do not. Results the pass cannot make in place are left as they are.

    A step lowered this way returns argument buffers as results (see
    `mpt-return-argument-buffers`), so `--mpt-lower-to-cpu` runs it only
    with `update-in-place=1`; `mpt-run` does.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def ReturnArgumentBuffers : Pass<"mpt-return-argument-buffers", "mlir::func::FuncOp"> {
  let summary = "Return an argument buffer a step updated in place instead of a clone of it";
  let description = [{
    Runs after the buffer deallocation pipeline, which returns only buffers
    the function owns and so clones an argument buffer that is returned
    (`bufferization.clone %arg`). Where the returned value is an argument
    updated in place (`mpt-update-in-place`), the clone would cost the
    buffer's size again; this pass returns the argument itself. The caller
    must then expect a result to be one of its argument buffers (and free it
    once): `mpt-run` does.
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect"];
}

def DumpGPUBinaries : Pass<"mpt-dump-gpu-binaries", "mlir::ModuleOp"> {
  let summary = "Write the PTX or cubin of every gpu.binary to a file";
  let description = [{
    After `gpu-module-to-binary` (or `--mpt-gpu-codegen`), writes each object
    of each `gpu.binary` to `<dir>/<binary>.<chip>.<ptx|cubin|fatbin|llvm>`
    (PTX for format=isa, cubin for format=bin). The IR is unchanged.
  }];
  let options = [
    Option<"dir", "dir", "std::string", /*default=*/"\".\"",
           "Directory the files are written to (must exist)">,
  ];
}

// The options of autocast, declared once: --mpt-autocast and
// --mpt-precision-report take them all, and --mpt-mixed-precision gets them
// from here too (include/mpt/Pipelines/MixedPrecision.h includes the
// pipeline declarations that cmake/mpt-pipeline-options.py generates from
// this list). The passes turn them into a policy and FP8/MX recipes in one
// function, mpt::AutocastConfig::initialize (mpt/Transforms/Autocast.h).
defvar autocastOptions = [
  Option<"dtype", "dtype", "mpt::AutocastDtype",
         /*default=*/"mpt::AutocastDtype::F16",
         "Low-precision type: f16, bf16, fp8 (bf16 painting, FP8 "
         "contractions with delayed scaling), mxfp8 or mxfp4 (bf16 "
         "painting, MX block-scaled contractions)",
         [{::llvm::cl::values(
           clEnumValN(mpt::AutocastDtype::F16, "f16", "IEEE half"),
           clEnumValN(mpt::AutocastDtype::BF16, "bf16", "bfloat16"),
           clEnumValN(mpt::AutocastDtype::FP8, "fp8",
                      "bf16 painting, FP8 contractions (docs/FP8.md)"),
           clEnumValN(mpt::AutocastDtype::MXFP8, "mxfp8",
                      "bf16 painting, MXFP8 contractions (docs/MX.md)"),
           clEnumValN(mpt::AutocastDtype::MXFP4, "mxfp4",
                      "bf16 painting, MXFP4 forward contractions"))}]>,
  Option<"policy", "policy", "std::string", /*default=*/"\"\"",
         "JSON policy file with \"allow\", \"deny\", \"infer\", "
         "\"clear\" and \"remove\" lists of op names">,
  ListOption<"allow", "allow", "std::string",
             "Op names to put on the allow list (low-precision inputs, "
             "f32 accumulator)">,
  ListOption<"deny", "deny", "std::string",
             "Op names to put on the deny list (f32)">,
  ListOption<"infer", "infer", "std::string",
             "Op names to put on the infer list (low between allow ops)">,
  ListOption<"clear", "clear", "std::string",
             "Op names to put on the clear list (follow neighbours)">,
  Option<"policyLevel", "policy-level", "mpt::PolicyLevel",
         /*default=*/"mpt::PolicyLevel::Promote",
         "How infer/clear ops get their precision: conservative (low only "
         "between allow ops) or promote (follow the precision of their "
         "inputs, f32 statistics; the backward reads 16-bit copies)",
         [{::llvm::cl::values(
           clEnumValN(mpt::PolicyLevel::Conservative, "conservative",
                      "low only between allow ops (grappler)"),
           clEnumValN(mpt::PolicyLevel::Promote, "promote",
                      "follow the inputs' precision (PyTorch promotion)"))}]>,
  Option<"masterWeights", "master-weights", "bool", /*default=*/"false",
         "Keep a low-precision working copy of each parameter as optimizer "
         "state, next to the f32 master weight (Apex O2)">,
  Option<"lossRegion", "loss-region", "bool", /*default=*/"true",
         "Keep the loss region in f32: the ops after the last forward "
         "contraction and from the backward seed to the first backward "
         "contraction (PyTorch's fp32 list keeps losses)">,
  Option<"fp8Format", "fp8-format", "mpt::Fp8Format",
         /*default=*/"mpt::Fp8Format::Hybrid",
         "dtype=fp8: hybrid (E4M3 forward, E5M2 gradients, Transformer "
         "Engine's HYBRID) or e4m3 (E4M3 everywhere)",
         [{::llvm::cl::values(
           clEnumValN(mpt::Fp8Format::Hybrid, "hybrid",
                      "E4M3 forward, E5M2 gradients"),
           clEnumValN(mpt::Fp8Format::E4M3, "e4m3", "E4M3 everywhere"))}]>,
  Option<"amaxHistoryLen", "amax-history-len", "int64_t",
         /*default=*/"1024",
         "dtype=fp8: steps of amax history per FP8 tensor (>= 1)">,
  Option<"margin", "margin", "int64_t", /*default=*/"0",
         "dtype=fp8: scale = (fp8_max / amax) / 2^margin (0 to 64)">,
  Option<"amaxCompute", "amax-compute", "mpt::AmaxCompute",
         /*default=*/"mpt::AmaxCompute::Max",
         "dtype=fp8: the amax a scale is computed from: max (of the "
         "history) or most_recent",
         [{::llvm::cl::values(
           clEnumValN(mpt::AmaxCompute::Max, "max", "the history's maximum"),
           clEnumValN(mpt::AmaxCompute::MostRecent, "most_recent",
                      "the last step's amax"))}]>,
  Option<"fp8Scaling", "fp8-scaling", "mpt::Fp8Scaling",
         /*default=*/"mpt::Fp8Scaling::Delayed",
         "dtype=fp8: delayed (scales from the amax history, state carried "
         "by the step) or current (each scale from this step's amax of "
         "its tensor, no state)",
         [{::llvm::cl::values(
           clEnumValN(mpt::Fp8Scaling::Delayed, "delayed",
                      "scales from the amax history"),
           clEnumValN(mpt::Fp8Scaling::Current, "current",
                      "scales from this step's amaxes"))}]>,
  Option<"mxBackward", "mx-backward", "mpt::MxBackward",
         /*default=*/"mpt::MxBackward::MXFP8",
         "dtype=mxfp8/mxfp4: the operands of the backward contractions: "
         "mxfp8 or bf16 (mxfp4 is an error at the first backward "
         "contraction: gradients are not MXFP4)",
         [{::llvm::cl::values(
           clEnumValN(mpt::MxBackward::MXFP8, "mxfp8", "MXFP8 operands"),
           clEnumValN(mpt::MxBackward::BF16, "bf16", "bf16 operands"),
           clEnumValN(mpt::MxBackward::MXFP4, "mxfp4",
                      "an error on a step with a backward"))}]>,
  Option<"mxPad", "mx-pad", "bool", /*default=*/"true",
         "dtype=mxfp8/mxfp4: a reduction dimension that is not a multiple "
         "of 32 ends in a shorter block, as if padded with zeros (true), "
         "or is an error (false)">,
  Option<"mxScale", "mx-scale", "mpt::MxScale",
         /*default=*/"mpt::MxScale::Floor",
         "dtype=mxfp8/mxfp4: the shared exponent: floor (OCP MX: "
         "floor(log2(amax)) - emax, which saturates elements above the "
         "largest element value) or ceil (the smallest power of two that "
         "does not saturate)",
         [{::llvm::cl::values(
           clEnumValN(mpt::MxScale::Floor, "floor", "OCP MX"),
           clEnumValN(mpt::MxScale::Ceil, "ceil", "no saturation"))}]>,
];

def Autocast : Pass<"mpt-autocast", "mlir::func::FuncOp"> {
  let summary = "Paint each op low precision or f32 and insert the casts";
  // Counts for --mlir-pass-statistics; --mpt-precision-report says why.
  let statistics = [
    Statistic<"numLowOps", "low-precision-ops",
              "Ops given the low-precision type">,
    Statistic<"numF32Ops", "f32-ops", "Float ops kept in f32">,
    Statistic<"numCastsInserted", "casts-inserted",
              "Tensor casts added (after minus before)">,
  ];
  let description = [{
    Decides per op what runs in f16/bf16 (allow / deny / infer / clear
    painting, as TensorFlow grappler's auto_mixed_precision, on lists
    modelled on PyTorch autocast), keeps reductions, training markers, the
    update region, the loss and the function signature in f32, keeps ops
    that would read or write a value the low type cannot hold (a -1e9 mask
    in f16) in f32, then inserts `arith.truncf` / `arith.extf` casts, one
    per value and type, next to the producer. Allow ops (matmul, conv) get
    low-precision inputs and keep an f32 accumulator and result. With
    `master-weights`, parameters get low-precision working copies carried
    across steps as optimizer state. See docs/Autocast.md;
    `--mpt-precision-report` prints the decisions.

    `dtype=fp8` paints as bf16 and then gives the contractions painted bf16
    FP8 operands (f8E4M3FN; f8E5M2 for gradients in the backward with
    `fp8-format=hybrid`) with per-tensor delayed scaling: each operand is
    multiplied by its scale and saturated before the cast, the f32 result
    is divided by the product of the scales, and the scales come from an
    amax history carried across steps as two appended arguments and
    results (`mpt.role = "fp8_amax_history"` and `"fp8_scale"`). With
    `fp8-scaling=current` each scale comes from this step's amax of its
    tensor instead, and the step carries no scaling state. See
    docs/FP8.md.

    `dtype=mxfp8` / `dtype=mxfp4` paint as bf16 and then give the
    contractions painted bf16 MX block-scaled operands (OCP MX v1.0): blocks
    of 32 elements along the reduction dimension share an E8M0 scale
    2^(floor(log2(amax)) - emax); the elements are f8E4M3FN (mxfp8) or, for
    the forward contractions of mxfp4, f4E2M1FN, cast with
    `arith.scaling_truncf` and read back with `arith.scaling_extf`; the
    contraction accumulates in f32. No state: the scales are computed per
    block from the values being cast. See docs/MX.md.
  }];
  let options = autocastOptions;
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::linalg::LinalgDialect"];
}

def CastCleanup : Pass<"mpt-cast-cleanup", "mlir::func::FuncOp"> {
  let summary = "Remove cast round trips, merge duplicate casts, drop dead casts";
  let description = [{
    Replaces `arith.truncf(arith.extf(x))` by `x` when the types match
    (exact), keeps one cast per value and result type (moved right after the
    value's producer, or to the start of its block for block arguments) and
    erases casts whose result is unused. Only `arith.extf` and
    `arith.truncf` are touched; the pass is idempotent.
  }];
}

def PrecisionReport : Pass<"mpt-precision-report", "mlir::ModuleOp"> {
  let summary = "Report the precision autocast gives every op, and why";
  let description = [{
    Runs autocast, with the same options, on a copy of every function and
    reports what it did: each op with its precision (low, f32 or unchanged),
    the reason (list, painting step, training region, range fact), its
    training region and source location; totals of ops per precision, casts
    inserted, and the memory estimate before and after. The IR is not
    changed. Run it on the f32 input, with the options given to
    `--mpt-autocast`.
  }];
  let options = !listconcat(autocastOptions, [
    ReportFormatOption,
    ReportOutputOption<"\"-\"">,
    Option<"allFunctions", "all-functions", "bool", /*default=*/"false",
           "Report every function, not only the training steps (functions "
           "with mpt.role / mpt.updates or training markers; a module "
           "without any has all its functions reported) and the other "
           "functions autocast changes (helpers a step calls)">,
  ]);
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::linalg::LinalgDialect"];
}

// How --mpt-data-parallel reduces, declared once for the pass and
// --mpt-mixed-precision="data-parallel=true".
defvar dataParallelOptions = [
  Option<"reduceDtype", "reduce-dtype", "mpt::ReduceDtype",
         /*default=*/"mpt::ReduceDtype::F32",
         "Type the gradient buckets travel in: f32, bf16 or f16",
         [{::llvm::cl::values(
             clEnumValN(mpt::ReduceDtype::F32, "f32", "full precision"),
             clEnumValN(mpt::ReduceDtype::BF16, "bf16",
                        "2-byte bf16 wire, f32 sums"),
             clEnumValN(mpt::ReduceDtype::F16, "f16",
                        "2-byte f16 wire, f32 sums"))}]>,
  Option<"bucketBytes", "bucket-bytes", "int64_t", /*default=*/"26214400",
         "Largest bucket of gradients reduced by one all-reduce, in bytes "
         "of f32 (default 25 MiB, as PyTorch DDP)">,
];

def DataParallel : Pass<"mpt-data-parallel", "mlir::func::FuncOp"> {
  let summary = "Make a training step data-parallel: all-reduce gradients, loss and found-inf";
  let description = [{
    Every rank runs the same step on its shard of the batch (docs/Distributed.md).
    On a step written to the contract, the pass

    * packs the `mpt.gradient` values, flattened, into buckets of at most
      `bucket-bytes` bytes (a gradient larger than that has a bucket of its
      own) and all-reduces each bucket once (`mpt.all_reduce`), right after
      the last marker and before the first op that reads a gradient; each
      marker moves onto its reduced gradient, so every reader sees that;
    * averages (`average=true`, `mean`: the sum divided by the number of
      ranks) or sums them;
    * all-reduces the loss result (mean), so that the loss every rank
      returns and logs is the loss of the whole batch;
    * where loss scaling is present (`mpt.unscale_and_check`), all-reduces
      its found-inf flag with `max` before anything reads it, so that every
      rank skips the same steps and keeps the same scale and tracker;
    * on an FP8 step with delayed scaling (`--mpt-autocast="dtype=fp8"`),
      all-reduces this step's amax vector with `max` before the step
      records it in its `fp8_amax_history` argument, so that every rank
      keeps the same history and scales (docs/FP8.md).

    `reduce-dtype=bf16|f16` sends the gradient buckets in that type
    (`wire` on their `mpt.all_reduce`: a ring of 2-byte messages that adds
    in f32, docs/Distributed.md). The step gets the function
    attribute `mpt.data_parallel = "<reduce-dtype>"`; running the pass on a
    step that has it, or that has an `mpt.all_reduce`, is an error. Run it
    after `--mpt-insert-loss-scaling` and before `--mpt-lower-loss-scaling`
    and `--mpt-strip-training-markers`; `--mpt-mixed-precision="data-parallel=true"`
    places it there. `--mpt-lower-all-reduce` lowers the all-reduces to the
    `mpi` dialect.
  }];
  let options = !listconcat([
    Option<"average", "average", "bool", /*default=*/"true",
           "Divide the summed gradients by the number of ranks">,
  ], dataParallelOptions);
  let dependentDialects = ["mpt::MPTDialect", "mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect"];
}

#endif // MPT_TRANSFORMS_PASSES_TD
