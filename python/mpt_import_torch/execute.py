"""Run an imported step on the CPU with torch-mlir's bundled MLIR
(ExecutionEngine): a numerical check of the importer, independent of mpt.

The markers are stripped first ("mpt.grad_seed"(l) -> ones, "mpt.gradient"(g)
-> g), a wrapper @mpt_run_wrapper writes every result into a caller-provided
buffer (bufferization.materialize_in_destination), and the module is lowered
with the upstream pipeline of docs/torch-import.md.
"""

import ctypes
import os

import numpy as np
from torch_mlir import ir, passmanager
from torch_mlir.execution_engine import ExecutionEngine
from torch_mlir.runtime import np_to_memref

BUFFERIZE = "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map%s}"
LOWER_TO_LLVM = ("func.func(convert-linalg-to-loops), convert-scf-to-cf, expand-strided-metadata, "
                 "lower-affine, convert-math-to-llvm, convert-math-to-libm, convert-arith-to-llvm, "
                 "convert-index-to-llvm, convert-cf-to-llvm, finalize-memref-to-llvm, "
                 "convert-func-to-llvm, reconcile-unrealized-casts")


# memref.copy of strided views lowers to a call to memrefCopy (C runner utils).
# torch-mlir's wheel ships no runner library; the system MLIR's C ABI is stable.
RUNNER_LIBS = [p for p in (os.environ.get("MPT_C_RUNNER_UTILS"),
                           "/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so") if p and os.path.exists(p)][:1]


def _strip_markers(func):
    block = func.regions[0].blocks[0]
    for op in list(block.operations):
        name = op.operation.name
        if name == "mpt.gradient":
            op.results[0].replace_all_uses_with(op.operands[0])
            op.operation.erase()
        elif name == "mpt.grad_seed":
            t = op.results[0].type
            one = ir.DenseElementsAttr.get_splat(t, ir.FloatAttr.get(ir.RankedTensorType(t).element_type, 1.0))
            c = ir.Operation.create("arith.constant", results=[t], attributes={"value": one},
                                    ip=ir.InsertionPoint(op))
            op.results[0].replace_all_uses_with(c.result)
            op.operation.erase()


# Steps whose arguments hold fewer elements than this are compiled by LLVM at
# -O0: the test models' steps run in milliseconds, and -O2 cost 0.3-3.5 s of
# CPU per import (the LSTM: 4.7 s at -O2, 1.2 s at -O0), most of a
# --run-check. Bigger steps, whose loops dominate, get -O2. Without fast-math
# flags LLVM neither reassociates nor contracts float ops at any level: the
# results were bit-identical at -O0 and -O2 for the decomposition test models
# (LSTM, encoder, grouped, strided convolutions, adaptive pool).
O0_MAX_ELEMENTS = 1 << 20
# Steps of more lines than this are compiled at -O0 whatever their size: the
# upstream pipeline below makes the step one function of loop nests, on which
# LLVM's -O2 loop passes are far from linear (docs/CompileTime.md): DeepLabV3
# (MobileNetV3 backbone, 24590 lines) did not finish its --run-check in 15
# minutes at -O2 and took about 2 minutes, import included, at -O0.
O0_MIN_LINES = 3000


# Steps of more lines than this are bufferized without one-shot-bufferize's
# analysis (copy-before-write: every op that writes a tensor writes a copy).
# The analysis is far from linear in the step: 1.6 s on ResNeXt-50's step
# (19k lines), 8 s on Inception v3's (34k), more than 20 minutes on
# EfficientNet-V2-S's (69k lines; without it 0.6 s). The copies cost memory
# and time only when the step runs, once. MPT_IMPORT_BUFFERIZE_ANALYSIS_MAX_LINES
# overrides it (a test forces copies on a small step).
BUFFERIZE_ANALYSIS_MAX_LINES = int(os.environ.get("MPT_IMPORT_BUFFERIZE_ANALYSIS_MAX_LINES", 40000))


def _pipeline(text):
    copies = " copy-before-write" if text.count("\n") > BUFFERIZE_ANALYSIS_MAX_LINES else ""
    return f"builtin.module({BUFFERIZE % copies}, {LOWER_TO_LLVM})"


def _opt_level(inputs, text):
    small = sum(int(np.asarray(a).size) for a in inputs) < O0_MAX_ELEMENTS
    return 0 if small or text.count("\n") > O0_MIN_LINES else 2


def run_step(text, inputs, func_name="step"):
    """Runs @func_name of the MLIR `text` on numpy `inputs`; returns its results."""
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    with ctx, ir.Location.unknown():
        mod = ir.Module.parse(text)
        func = next(op for op in mod.body.operations
                    if op.operation.name == "func.func" and
                    ir.StringAttr(op.attributes["sym_name"]).value == func_name)
        _strip_markers(func)
        ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
        in_types, out_types = list(ftype.inputs), list(ftype.results)
        n_in = len(in_types)
        # Wrapper in text: results go into output memrefs.
        def mem(t):
            return str(t).replace("tensor<", "memref<", 1)
        args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(in_types))
        outs = ", ".join(f"%o{i}: {mem(t)}" for i, t in enumerate(out_types))
        body = [f"  %r:{len(out_types)} = func.call @{func_name}({', '.join(f'%a{i}' for i in range(n_in))}) : "
                f"({', '.join(map(str, in_types))}) -> ({', '.join(map(str, out_types))})"]
        for i, t in enumerate(out_types):
            body.append(f"  bufferization.materialize_in_destination %r#{i} in restrict writable %o{i} : "
                        f"({t}, {mem(t)}) -> ()")
        wrapper = (f"func.func @mpt_run_wrapper({args}, {outs}) attributes {{llvm.emit_c_interface}} {{\n"
                   + "\n".join(body) + "\n  return\n}")
        decl = (f"func.func private @{func_name}({', '.join(map(str, in_types))}) -> "
                f"({', '.join(map(str, out_types))})\n")
        wmod = ir.Module.parse(decl + wrapper)
        mod.body.append(list(wmod.body.operations)[1].operation)
        passmanager.PassManager.parse(_pipeline(text)).run(mod.operation)
        engine = ExecutionEngine(mod, opt_level=_opt_level(inputs, text), shared_libs=RUNNER_LIBS)
    keep, ptrs = [], []
    for a in inputs:
        a = np.ascontiguousarray(a)
        keep.append(a)
        ptrs.append(ctypes.pointer(ctypes.pointer(np_to_memref.get_ranked_memref_descriptor(a))))
    results = []
    for t in out_types:
        rt = ir.RankedTensorType(t)
        dtype = {"f32": np.float32, "f64": np.float64, "i64": np.int64, "f16": np.float16,
                 "i32": np.int32, "i1": np.bool_}[str(rt.element_type)]
        r = np.zeros(rt.shape, dtype=dtype)
        results.append(r)
        ptrs.append(ctypes.pointer(ctypes.pointer(np_to_memref.get_ranked_memref_descriptor(r))))
    engine.invoke("mpt_run_wrapper", *ptrs)
    return results
