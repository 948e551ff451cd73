//===- MPTOps.td - mpt operations --------------------------*- tablegen -*-===//
#ifndef MPT_IR_MPTOPS_TD
#define MPT_IR_MPTOPS_TD

include "mpt/IR/MPTDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/EnumAttr.td"

def MPT_FloatTensor : RankedTensorOf<[AnyFloat]>;

// The loss scale, its growth tracker and the overflow flag are 0-d tensors so
// that they travel through tensor-level IR (function arguments, scf.for
// iter_args) like every other value of the step.
def MPT_ScaleTensor : Type<And<[TensorOf<[F32]>.predicate, HasAnyRankOfPred<[0]>]>,
                           "0-d tensor of f32">,
                      BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getF32Type())">;
def MPT_TrackerTensor : Type<And<[TensorOf<[I32]>.predicate, HasAnyRankOfPred<[0]>]>,
                             "0-d tensor of i32">,
                        BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getI32Type())">;
def MPT_FlagTensor : Type<And<[TensorOf<[I1]>.predicate, HasAnyRankOfPred<[0]>]>,
                          "0-d tensor of i1">,
                     BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getI1Type())">;

//===----------------------------------------------------------------------===//
// Training-graph markers
//===----------------------------------------------------------------------===//

def MPT_GradSeedOp : MPT_Op<"grad_seed", [Pure, SameOperandsAndResultType]> {
  let summary = "The backward seed dL/dL: ones shaped like the loss";
  let description = [{
    `mpt.grad_seed` takes the loss and yields the seed of the backward pass,
    a tensor of ones of the loss's type. Every op that depends on it and
    contributes to an `mpt.gradient` belongs to the backward pass. A training
    step has at most one; loss scaling multiplies it by the loss scale, which
    is exactly "multiply the loss before backpropagation" because the
    backward pass is linear in its seed.

    ```mlir
    %seed = mpt.grad_seed %loss : tensor<f32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$loss);
  let results = (outs MPT_FloatTensor:$seed);
  let assemblyFormat = "$loss attr-dict `:` type($loss)";
}

def MPT_GradientOp : MPT_Op<"gradient", [Pure, SameOperandsAndResultType]> {
  let summary = "Marks a parameter's complete gradient";
  let description = [{
    An identity that marks the complete gradient of a parameter: the boundary
    between the backward pass and the optimizer update. Loss scaling unscales
    and checks the values that pass through these markers.

    ```mlir
    %gw = mpt.gradient %dw : tensor<128x10xf32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$input);
  let results = (outs MPT_FloatTensor:$gradient);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

def MPT_ScaleOp : MPT_Op<"scale", [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "Multiplies a tensor by the loss scale, in FP32";
  let description = [{
    `result = input * scale`, computed in FP32 (or wider when the input is)
    and rounded to the input's element type. Used on the backward seed.

    ```mlir
    %scaled = mpt.scale %seed by %scale : tensor<f32>
    ```
  }];
  let arguments = (ins MPT_FloatTensor:$input, MPT_ScaleTensor:$scale);
  let results = (outs MPT_FloatTensor:$result);
  let assemblyFormat = "$input `by` $scale attr-dict `:` type($input)";
}

def MPT_UnscaleAndCheckOp : MPT_Op<"unscale_and_check", [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "Unscales gradients in FP32 and checks them for inf/NaN";
  let description = [{
    Multiplies every gradient by `1 / scale` (the reciprocal is computed in
    FP64, as PyTorch's GradScaler does, then rounded to FP32; the products in
    FP32) and sets `found_inf` when any unscaled element is infinite or NaN.
    The semantics of `torch._amp_foreach_non_finite_check_and_unscale_`, as
    one op so that a compiler can map it onto one fused kernel.

    ```mlir
    %gw, %gb, %found_inf = mpt.unscale_and_check %dw, %db by %scale
        : tensor<4x3xf32>, tensor<3xf32>
    ```
  }];
  let arguments = (ins Variadic<MPT_FloatTensor>:$gradients,
                       MPT_ScaleTensor:$scale);
  let results = (outs Variadic<MPT_FloatTensor>:$unscaled,
                      MPT_FlagTensor:$found_inf);
  let assemblyFormat = [{
    $gradients `by` $scale attr-dict `:` type($gradients)
  }];
  let hasVerifier = 1;
}

def MPT_UpdateScaleOp : MPT_Op<"update_scale", [Pure]> {
  let summary = "Dynamic loss-scale update (GradScaler semantics)";
  let description = [{
    On overflow (`found_inf` set): `scale = max(scale * backoff_factor,
    min_scale)`, `tracker = 0`. Otherwise `tracker += 1`, and when it reaches
    `growth_interval`: `scale *= growth_factor` unless that overflows FP32,
    `tracker = 0`. This is `torch._amp_update_scale_` plus an optional floor
    (`min_scale`, 0 means none; Keras floors at 1).

    ```mlir
    %scale2, %tracker2 = mpt.update_scale %scale, %tracker, %found_inf
        {growth_factor = 2.0 : f32, backoff_factor = 0.5 : f32,
         growth_interval = 2000 : i32}
    ```
  }];
  let arguments = (ins MPT_ScaleTensor:$scale, MPT_TrackerTensor:$tracker,
                       MPT_FlagTensor:$found_inf,
                       DefaultValuedAttr<F32Attr, "2.0">:$growth_factor,
                       DefaultValuedAttr<F32Attr, "0.5">:$backoff_factor,
                       DefaultValuedAttr<I32Attr, "2000">:$growth_interval,
                       DefaultValuedAttr<F32Attr, "0.0">:$min_scale);
  let results = (outs MPT_ScaleTensor:$new_scale,
                      MPT_TrackerTensor:$new_tracker);
  let assemblyFormat = "$scale `,` $tracker `,` $found_inf attr-dict";
  let hasVerifier = 1;
}

def MPT_GuardUpdateOp : MPT_Op<"guard_update", [Pure,
    AllTypesMatch<["updated", "original", "result"]>]> {
  let summary = "Keeps the old value of a state tensor when the step overflowed";
  let description = [{
    `result = found_inf ? original : updated`: the step-skipping guard on a
    result that carries `mpt.updates`. With `found_inf` set the result is the
    original argument bit for bit.

    ```mlir
    %w2 = mpt.guard_update %w_new, %w if %found_inf : tensor<4x3xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$updated, AnyRankedTensor:$original,
                       MPT_FlagTensor:$found_inf);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $updated `,` $original `if` $found_inf attr-dict `:` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Data parallelism
//===----------------------------------------------------------------------===//

def MPT_ReduceKind : I32EnumAttr<"ReduceKind", "how an all-reduce combines the ranks' values", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Mean", 1, "mean">,
    I32EnumAttrCase<"Max", 2, "max">]> {
  let cppNamespace = "::mpt";
}

def MPT_AllReduceOp : MPT_Op<"all_reduce", [AllTypesMatch<["input", "result"]>]> {
  let summary = "Combines a 1-D tensor across all ranks of the job";
  let description = [{
    Every rank passes its value and receives the element-wise combination of
    all ranks' values: `sum`, `mean` (the sum divided by the number of ranks,
    in the element type) or `max`. All ranks must execute the same sequence
    of all-reduces with the same shapes. The op is on tensors so that it sits
    in the training step next to the ops it synchronises;
    `--mpt-lower-all-reduce` turns it into an `mpi.allreduce` on buffers
    (MPI_COMM_WORLD), and a compiler with its own collective library lowers
    it its own way. It is not `Pure`: it communicates.

    With `wire = bf16` or `wire = f16` (f32 input, `sum` or `mean`) the
    values travel in that type: `--mpt-lower-all-reduce` makes it a ring of
    16-bit messages that adds in f32 on arrival and rounds each partial sum
    it passes on, and the complete sum, to the wire type (PyTorch DDP's
    compression hooks: compress, reduce, decompress). Every rank gets the
    same bits.

    ```mlir
    %g = mpt.all_reduce mean %bucket : tensor<4096xf32>
    %f = mpt.all_reduce max %flag : tensor<1xi32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32, F64, I32, I64]>:$input,
                       MPT_ReduceKind:$kind,
                       OptionalAttr<TypeAttr>:$wire);
  let results = (outs RankedTensorOf<[F32, F64, I32, I64]>:$result);
  let assemblyFormat = "$kind $input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

#endif // MPT_IR_MPTOPS_TD
