#!/usr/bin/env python3
"""Data-parallel step time and all-reduce traffic, 1 / 2 / 4 ranks.

  bench/distributed/bench.py [--build build] [--steps 200] [--ranks 1,2,4]

For the bundled MLP (8 samples per rank), trained with
--mpt-mixed-precision{data-parallel=true} (f16, dynamic loss scaling) under
`mpiexec.mpich -n N mpt-run`, it prints per rank count and reduce-dtype:

  * bytes each rank sends per step, from the step's mpt.all_reduce ops
    (gradient buckets, found-inf flag, loss): an f32 MPI_Allreduce of P
    bytes counts 2 (N-1)/N P (a lower bound: a bandwidth-optimal algorithm);
    reduce-dtype=bf16's gradient buckets travel as 2-byte values in
    mpt-lower-all-reduce's ring, 2 (N-1) chunks of ceil(n/N) each
    (docs/Distributed.md);
  * the step time: mpt-run --timing's median step (wall clock, the compiled
    step with its all-reduces; start-up and JIT compilation excluded), the
    slowest rank's, one thread per rank; the median of --repeat runs;
  * the ratio to the 1-rank time of the same configuration (weak scaling:
    the batch per rank is fixed, so 1.0 is perfect);
  * the anchor, measured in the same run: PyTorch DDP (gloo, f16 autocast +
    GradScaler, same model and per-rank batch, one thread per rank;
    torch_ddp.py), its bytes per step (gloo's ring all-reduce of the
    gradients, 2 (N-1)/N of their bytes; bf16: DDP's bf16_compress_hook, 2
    bytes per gradient element) and mpt's step time over PyTorch's.

Ranks beyond the machine's cores share cores: on a 2-core machine the 4-rank
figures measure oversubscription as much as communication.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, **kw)


def sent_bytes(mpt_opt, step, dtype_opts, ranks):
    """Bytes one rank sends per step, from the step's mpt.all_reduce ops.

    An f32/i32 all-reduce (MPI_Allreduce) of P bytes: 2 (N-1)/N P, what a
    bandwidth-optimal algorithm sends (MPICH's ring / Rabenseifner for long
    messages; its recursive doubling for short ones sends log2(N) P, more),
    so the figure is a lower bound. A 16-bit wire (mpt-lower-all-reduce's
    ring): exactly 2 (N-1) chunks of ceil(n/N) 2-byte values, plus the
    4-byte all-reduce that counts the ranks."""
    if ranks == 1:
        return 0
    pipeline = ("builtin.module(func.func(mpt-autocast),mpt-insert-loss-scaling,"
                "func.func(mpt-data-parallel{%s}))" % dtype_opts)
    ir = run([mpt_opt, step, "--pass-pipeline=" + pipeline]).stdout
    total = 0.0
    allreduce = 2.0 * (ranks - 1) / ranks
    for m in re.finditer(r"mpt\.all_reduce (\w+) %\S+( \{wire = \w+\})? : tensor<(\d+)x(f32|i32)>", ir):
        size = int(m.group(3))
        if m.group(2):
            chunk = -(-size // ranks)
            total += 2 * (ranks - 1) * chunk * 2 + allreduce * 4
        else:
            # mean sends one more element: the rank count.
            total += allreduce * 4 * (size + (m.group(1) == "mean"))
    return int(round(total))


def median_step_ms(cmd, env):
    """The slowest rank's median step time in ms (mpt-run --timing, one line
    per rank)."""
    err = subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, env=env).stderr
    medians = [float(m) for m in re.findall(r"median ([0-9.]+) ms", err)]
    if not medians:
        sys.exit("no --timing line from mpt-run:\n" + err)
    return max(medians)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--build", default=os.path.join(REPO, "build"))
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--ranks", default="1,2,4")
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    mpt_run = os.path.join(a.build, "bin", "mpt-run")
    mpt_opt = os.path.join(a.build, "bin", "mpt-opt")
    ranks = [int(r) for r in a.ranks.split(",")]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    tmp = tempfile.mkdtemp(prefix="mpt-dist-bench-")
    mlp = os.path.join(tmp, "mlp.mlir")
    run([sys.executable, os.path.join(REPO, "test", "Distributed", "Inputs", "rebatch.py"),
         os.path.join(REPO, "examples", "mlp", "mlp_step.mlir"), "8", mlp])
    models = [("mlp", mlp)]
    venv_python = os.path.join(REPO, ".venv", "bin", "python")
    params = 16 * 32 + 32 + 32 * 4 + 4

    print("%-6s %5s %5s %10s %9s %7s %10s %9s %9s" % (
        "model", "ranks", "wire", "mpt B", "mpt ms", "vs 1", "torch B", "torch ms", "mpt/torch"))
    for name, step in models:
        for dtype in ("f32", "bf16"):
            base = None
            for n in ranks:
                nbytes = sent_bytes(mpt_opt, step, "reduce-dtype=" + dtype, n)
                data = os.path.join(tmp, "mlp-%d.npz" % n)
                run([sys.executable, os.path.join(REPO, "test", "Numerics", "Inputs", "synth.py"),
                     "blobs", data, "--batches", "16", "--batch", str(8 * n)])
                extra = ["--init=seed:1", "--hparam", "lr=0.05", "--data", data]
                cmd = ["mpiexec.mpich", "-n", str(n), mpt_run, step,
                       "--passes=mpt-mixed-precision{data-parallel=true reduce-dtype=%s}" % dtype,
                       "--log", os.devnull, "--no-progress", "--timing",
                       "--threads", "1", "--steps", str(a.steps)] + extra
                ms = statistics.median(median_step_ms(cmd, env)
                                       for _ in range(a.repeat))
                base = base or ms
                torch_ms = float(run([venv_python, os.path.join(REPO, "bench", "distributed", "torch_ddp.py"),
                                      "--ranks", str(n), "--wire", dtype,
                                      "--steps", str(a.steps)], env=env).stdout)
                torch_bytes = int(round(2.0 * (n - 1) / n * params * (2 if dtype == "bf16" else 4)))
                cores = os.cpu_count() or 1
                note = ("  (%d ranks on %d cores: oversubscribed)" % (n, cores)
                        if n > cores else "")
                print("%-6s %5d %5s %10d %9.3f %7.2f %10d %9.3f %9.3g%s" % (
                    name, n, dtype, nbytes, ms, ms / base, torch_bytes, torch_ms, ms / torch_ms,
                    note), flush=True)


if __name__ == "__main__":
    main()
