#!/usr/bin/env python3
"""mpt's CPU backend against PyTorch on this machine, in one run, with the
same number of threads: matmul kernels (GFLOP/s) and whole training steps
(ms/step and compile time).

  kernels  C = A @ B for A, B in f32 / bf16 / f16 (mpt: f32 accumulator and
           result; torch.matmul: result in the input type), shapes MxNxK.
           mpt: --mpt-lower-to-cpu with the targets this CPU has (amx, avx512,
           avx512-bf16, as mpt-run picks them) run by mlir-runner -O3;
           PyTorch: torch.matmul (oneDNN). Best of --trials timed runs, in
           each of --rounds rounds that alternate mpt and PyTorch, so that a
           change of load during the run reaches both (the best is kept).
           On each of --kernel-threads: above one thread mpt's parallel
           kernels (the OpenMP build mpt-run --threads uses) and PyTorch on
           as many threads.
  steps    the bundled PyTorch examples (examples/torch), the GPT block
           at d=256, T=128, batch 8, and ResNet-18, MobileNetV3-small and
           EfficientNet-B0 at 3x64x64, batch 16 (imported into --workdir)
           under mpt-run
           --timing in FP32 and with --mpt-mixed-precision dtype=bf16 / f16,
           on the path mpt-run picks (auto) and, for FP32, on the generic
           path (the scalar loops every machine runs; bundled examples only);
           PyTorch eager FP32 and
           torch.autocast("cpu", bfloat16) on the same model, batch and
           threads. Best and median ms/step; compile time is mpt-run's.

The machine is described in the output (CPU, flags, load average): on a
shared machine the best-of figures are the ones to compare. With --write,
the tables replace the generated part of docs/CPUBackend.md.

Usage: bench/cpu/bench.py [--threads 1,2] [--kernel-threads 1,2] [--models ...] [--trials 10] [--rounds 3]
                          [--steps 20] [--write]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))
from mpt_setup.venv import ensure_venv  # noqa: E402

if __name__ == "__main__":
    ensure_venv(__file__, "bench/cpu/bench.py")

import torch  # noqa: E402

SHAPES = [(1024, 1024, 1024), (256, 512, 512), (64, 768, 3072)]  # M, N, K
DTYPES = ["f32", "bf16", "f16"]
TORCH_DTYPE = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}
MODELS = [  # name, importer flags (as examples/torch/regenerate.sh), bundled example?
    ("mlp_sgd", ["--model", "mlp", "--loss", "cross-entropy", "--optimizer", "sgd",
                 "--lr", "0.05", "--momentum", "0.9"], True),
    ("gpt_block_adamw", ["--model", "gpt-block", "--loss", "cross-entropy",
                         "--optimizer", "adamw", "--lr", "1e-3", "--weight-decay", "0.01"], True),
    # The larger configuration (bench/memory/models.py: d=256, 4 heads,
    # T=128, 256 classes), batch 8: imported into --workdir on first use.
    ("gpt_block_d256_b8", ["--model", os.path.join(REPO, "bench", "memory", "models.py") + ":gpt_block",
                           "--input-shape", "8,128,256", "--loss", "cross-entropy",
                           "--optimizer", "adamw", "--lr", "1e-3", "--weight-decay", "0.01"], False),
    # torchvision ResNet-18 at 3x64x64, batch 16 (bench/memory/models.py).
    ("resnet18_b16", ["--model", os.path.join(REPO, "bench", "memory", "models.py") + ":resnet18",
                      "--input-shape", "16,3,64,64", "--optimizer", "sgd", "--lr", "0.01",
                      "--momentum", "0.9"], False),
    # Depthwise convolutions, squeeze-excitation, SiLU / hard-swish
    # (bench/zoo/models.py's torchvision models) at 3x64x64, batch 16.
    ("mobilenet_v3_small_b16", ["--model", os.path.join(REPO, "bench", "zoo", "models.py") + ":mobilenet_v3_small",
                                "--input-shape", "16,3,64,64", "--optimizer", "sgd", "--lr", "0.01",
                                "--momentum", "0.9"], False),
    ("efficientnet_b0_b16", ["--model", os.path.join(REPO, "bench", "zoo", "models.py") + ":efficientnet_b0",
                             "--input-shape", "16,3,64,64", "--optimizer", "sgd", "--lr", "0.01",
                             "--momentum", "0.9"], False),
]
MPT_MODES = [("FP32", None), ("bf16", "mpt-mixed-precision{dtype=bf16}"),
             ("f16", "mpt-mixed-precision{dtype=f16}")]
BEGIN, END = "<!-- bench/cpu/bench.py: begin -->", "<!-- bench/cpu/bench.py: end -->"


def machine():
    info = open("/proc/cpuinfo").read()
    name = re.search(r"model name\s*:\s*(.*)", info)
    flags = set(re.search(r"flags\s*:\s*(.*)", info).group(1).split())
    wanted = ["avx2", "avx512f", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16"]
    return {"cpu": name.group(1).strip() if name else "unknown",
            "cores": os.cpu_count(),
            "flags": " ".join(f for f in wanted if f in flags),
            "load": " ".join(f"{x:.1f}" for x in os.getloadavg()),
            "torch": torch.__version__}


def kernel_module(trials):
    """One MLIR module: per shape and type, a function printing GFLOP/s."""
    out = ["func.func private @rtclock() -> f64"]
    calls = []
    for m, n, k in SHAPES:
        reps = max(1, int(round(2e9 / (2.0 * m * n * k))))
        for dt in DTYPES:
            name = f"@bench_{dt}_{m}x{n}x{k}"
            calls.append(name)
            out.append(f"""func.func {name}() {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %reps = arith.constant {reps} : index
  %trials = arith.constant {trials} : index
  %A = memref.alloc() : memref<{m}x{k}x{dt}>
  %B = memref.alloc() : memref<{k}x{n}x{dt}>
  %C = memref.alloc() : memref<{m}x{n}xf32>
  %a = arith.constant 0.5 : {dt}
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%a : {dt}) outs(%A : memref<{m}x{k}x{dt}>)
  linalg.fill ins(%a : {dt}) outs(%B : memref<{k}x{n}x{dt}>)
  linalg.fill ins(%z : f32) outs(%C : memref<{m}x{n}xf32>)
  linalg.matmul ins(%A, %B : memref<{m}x{k}x{dt}>, memref<{k}x{n}x{dt}>) outs(%C : memref<{m}x{n}xf32>)
  %inf = arith.constant 1.0e30 : f64
  %best = scf.for %t = %c0 to %trials step %c1 iter_args(%b = %inf) -> f64 {{
    %t0 = func.call @rtclock() : () -> f64
    scf.for %r = %c0 to %reps step %c1 {{
      linalg.matmul ins(%A, %B : memref<{m}x{k}x{dt}>, memref<{k}x{n}x{dt}>) outs(%C : memref<{m}x{n}xf32>)
    }}
    %t1 = func.call @rtclock() : () -> f64
    %d = arith.subf %t1, %t0 : f64
    %nb = arith.minimumf %b, %d : f64
    scf.yield %nb : f64
  }}
  %flop = arith.constant {2.0 * m * n * k * reps / 1e9:.6e} : f64
  %g = arith.divf %flop, %best : f64
  vector.print %g : f64
  return
}}""")
    out.append("func.func @main() {\n" + "".join(f"  func.call {c}() : () -> ()\n" for c in calls)
               + "  return\n}")
    return "\n".join(out), [(m, n, k, dt) for m, n, k in SHAPES for dt in DTYPES]


def kernel_targets():
    """The --mpt-lower-to-cpu target options of this CPU (what mpt-run picks)."""
    flags = set(re.search(r"flags\s*:\s*(.*)", open("/proc/cpuinfo").read()).group(1).split())
    amx = {"amx_tile", "amx_bf16"} <= flags
    avx512 = "avx512f" in flags
    avx2 = {"avx2", "fma", "f16c"} <= flags and not avx512
    return " ".join([f"amx={int(amx)}", f"avx512={int(avx512)}",
                     f"avx512-bf16={int('avx512_bf16' in flags and not amx)}", f"avx2={int(avx2)}"])


def openmp_runtime():
    """The OpenMP runtime the build found (MPT_OPENMP_RUNTIME), as mpt-run links it."""
    cache = os.path.join(REPO, "build", "CMakeCache.txt")
    if os.path.exists(cache):
        m = re.search(r"^MPT_OPENMP_RUNTIME:\w+=(.+)$", open(cache).read(), re.M)
        if m and os.path.exists(m.group(1)):
            return m.group(1)
    sys.exit("bench.py: --kernel-threads above 1 needs the OpenMP runtime the build found "
             "(MPT_OPENMP_RUNTIME in build/CMakeCache.txt; Debian: libomp-dev)")


def mpt_kernels(args, threads=1):
    """GFLOP/s of mpt's kernels; above one thread the parallel kernels (as mpt-run --threads)."""
    text, cases = kernel_module(args.trials)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "kernels.mlir")
        low = os.path.join(tmp, "kernels.ll.mlir")
        open(src, "w").write(text)
        parallel = " parallel" if threads > 1 else ""
        subprocess.run([args.mpt_opt, src, "--mpt-lower-to-cpu=" + kernel_targets() + parallel + " c-interface=0",
                        "-o", low], check=True)
        libs = [os.path.join(REPO, "build", "lib", "libmpt_amx_runtime.so"),
                os.path.join(args.mlir_lib, "libmlir_runner_utils.so"),
                os.path.join(args.mlir_lib, "libmlir_c_runner_utils.so")]
        if threads > 1:
            libs.append(openmp_runtime())
        out = subprocess.run([args.mlir_runner, low, "-O3", "-e", "main", "-entry-point-result=void",
                              "-shared-libs=" + ",".join(libs)],
                             check=True, capture_output=True, text=True,
                             env=dict(os.environ, OMP_NUM_THREADS=str(threads))).stdout
    values = [float(x) for x in out.split()]
    return {case: v for case, v in zip(cases, values)}


def torch_kernels(args):
    res = {}
    for m, n, k in SHAPES:
        reps = max(1, int(round(2e9 / (2.0 * m * n * k))))
        for dt in DTYPES:
            a = torch.full((m, k), 0.5, dtype=TORCH_DTYPE[dt])
            b = torch.full((k, n), 0.5, dtype=TORCH_DTYPE[dt])
            torch.matmul(a, b)
            best = float("inf")
            for _ in range(args.trials):
                t0 = time.perf_counter()
                for _ in range(reps):
                    torch.matmul(a, b)
                best = min(best, time.perf_counter() - t0)
            res[(m, n, k, dt)] = 2.0 * m * n * k * reps / best / 1e9
    return res


def step_files(args, name, flags, bundled):
    """The step's .mlir and .npz: the bundled example, or an import into --workdir."""
    if bundled:
        base = os.path.join(REPO, "examples", "torch", name)
    else:
        base = os.path.join(args.workdir, name)
        if not os.path.exists(base + ".mlir"):
            os.makedirs(args.workdir, exist_ok=True)
            subprocess.run([sys.executable, os.path.join(REPO, "tools", "mpt-import-torch", "mpt-import-torch")]
                           + flags + ["-o", base + ".mlir"], check=True, stdout=subprocess.DEVNULL)
    return base + ".mlir", base + ".npz"


def mpt_step(args, files, passes, path, steps, threads):
    cmd = [args.mpt_run, files[0], "--inputs", files[1],
           "--steps", str(steps + 1), "--timing", "--no-progress", "--no-cache", "--log", os.devnull,
           "--cpu-path=" + path, "--threads=" + str(threads),
           # Every timed step on the -O2 code, and the compile to it.
           "--tiered-compile=off"]
    if passes:
        cmd.insert(2, "--passes=" + passes)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None
    m = re.search(r"compile ([0-9.]+) s, step best ([0-9.]+) ms, median ([0-9.]+) ms", r.stderr)
    return float(m.group(2)), float(m.group(3)), float(m.group(1))


def torch_step(args, flags, mode, steps):
    from mpt_import_torch import cli, losses, optim, step
    spec, _ = cli.build(cli.make_parser().parse_args(flags))
    loss_fn = losses.get(spec.loss_name)
    model = spec.model
    opt = optim.torch_optimizer(spec.opt, model.parameters())
    x, y = spec.args[spec.n_params].value, spec.args[spec.n_params + 1].value
    times = []
    for _ in range(steps + 1):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=mode == "bf16"):
            # The loss the imported step computes, on what it reads of the
            # output (GoogLeNet's namedtuple, an HF ModelOutput's logits).
            loss = loss_fn(step.output_tensor(model(x)), y)
        loss.backward()
        opt.step()
        times.append(time.perf_counter() - t0)
    steps = sorted(times[1:])
    return steps[0] * 1e3, steps[len(steps) // 2] * 1e3


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", default="1",
                   help="thread counts of the step table, comma-separated, each for both "
                        "mpt-run (--threads) and PyTorch (the kernel table is one thread)")
    p.add_argument("--kernel-threads", default="1",
                   help="comma-separated thread counts for the kernel table, the same for mpt (its parallel "
                        "kernels, as mpt-run --threads) and PyTorch")
    p.add_argument("--trials", type=int, default=10, help="timed runs per kernel; the best is kept")
    p.add_argument("--rounds", type=int, default=3,
                   help="kernel rounds alternating mpt and PyTorch; the best of all is kept")
    p.add_argument("--steps", type=int, default=20, help="timed steps per model and mode")
    p.add_argument("--mpt-opt", default=os.path.join(REPO, "build", "bin", "mpt-opt"))
    p.add_argument("--mpt-run", default=os.path.join(REPO, "build", "bin", "mpt-run"))
    p.add_argument("--mlir-runner", default="/usr/lib/llvm-22/bin/mlir-runner")
    p.add_argument("--mlir-lib", default="/usr/lib/llvm-22/lib")
    p.add_argument("--parts", default="kernels,steps", help="what to measure: kernels,steps")
    p.add_argument("--models", default=",".join(m[0] for m in MODELS),
                   help="the models of the step table (comma-separated)")
    p.add_argument("--write", action="store_true", help="update docs/CPUBackend.md")
    p.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "mpt-bench-cpu"),
                   help="where the larger configurations are imported (kept between runs)")
    args = p.parse_args()

    mach = machine()
    parts = args.parts.split(",")
    lines = [f"Machine: {mach['cpu']}, {mach['cores']} cores ({mach['flags']}); "
             f"PyTorch {mach['torch']}; kernels on {args.kernel_threads} threads, steps on {args.threads} "
             f"for mpt and PyTorch; "
             f"load average at start {mach['load']}."]
    if "kernels" in parts:
        lines += ["", "Kernels, GFLOP/s (best of %d rounds of %d, alternating mpt and PyTorch; mpt's "
                  "result is f32, PyTorch's the input type):" % (args.rounds, args.trials), "",
                  "| M x N x K | type | threads | mpt | PyTorch | mpt / PyTorch |", "|---|---|---|---|---|---|"]
        kernel_threads = [int(t) for t in args.kernel_threads.split(",")]
        mk, tk = {}, {}
        for _ in range(args.rounds):
            for threads in kernel_threads:
                torch.set_num_threads(threads)
                for best, new in [(mk, mpt_kernels(args, threads)), (tk, torch_kernels(args))]:
                    for case, value in new.items():
                        best[case + (threads,)] = max(best.get(case + (threads,), 0.0), value)
        for m, n, k in SHAPES:
            for dt in DTYPES:
                for threads in kernel_threads:
                    a, b = mk[(m, n, k, dt, threads)], tk[(m, n, k, dt, threads)]
                    lines.append(f"| {m}x{n}x{k} | {dt} | {threads} | {a:.0f} | {b:.0f} | {a / b:.2f} |")
    if "steps" in parts:
        lines += steps_table(args)
    lines += ["", f"Load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}."]
    text = "\n".join(lines)
    print(text)
    if args.write:
        doc = os.path.join(REPO, "docs", "CPUBackend.md")
        src = open(doc).read()
        a, b = src.index(BEGIN) + len(BEGIN), src.index(END)
        open(doc, "w").write(src[:a] + "\n" + text + "\n" + src[b:])
    return 0


def steps_table(args):
    lines = ["", "Training steps, ms/step (best / median of the steps in each row; mpt compile time in s):", "",
              "| model | threads (mpt / PyTorch) | mpt FP32 generic | mpt FP32 | mpt bf16 | mpt f16 | PyTorch FP32 | PyTorch bf16 autocast "
              "| mpt bf16 / PyTorch bf16 | mpt bf16 / mpt FP32 |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for (name, flags, bundled), threads in [(m, int(t)) for m in MODELS for t in args.threads.split(",")]:
        if name not in args.models.split(","):
            continue
        torch.set_num_threads(threads)
        files = step_files(args, name, flags, bundled)
        # The imported configurations: fewer steps, and no generic-path run
        # (scalar loops for every matmul: minutes a step).
        steps = args.steps if bundled else max(3, args.steps // 4)
        cells, best = [f"{threads} / {threads}"], {}
        runs = ([("generic", None, "generic")] if bundled else []) + [(l, ps, "auto") for l, ps in MPT_MODES]
        if not bundled:
            cells.append("-")
        for label, passes, path in runs:
            r = mpt_step(args, files, passes, path, steps, threads)
            best[label] = r[0] if r else None
            cells.append(f"{r[0]:.2f} / {r[1]:.2f} ({r[2]:.1f} s)" if r else "failed")
        t32, tbf = torch_step(args, flags, "fp32", steps), torch_step(args, flags, "bf16", steps)
        cells += [f"{t32[0]:.2f} / {t32[1]:.2f}", f"{tbf[0]:.2f} / {tbf[1]:.2f}"]
        ratio = lambda x, y: f"{x / y:.2f}" if x and y else "-"  # noqa: E731
        cells += [ratio(best["bf16"], tbf[0]), ratio(best["bf16"], best["FP32"])]
        lines.append(f"| {name} ({steps} steps) | " + " | ".join(cells) + " |")
    return lines


if __name__ == "__main__":
    sys.exit(main())
