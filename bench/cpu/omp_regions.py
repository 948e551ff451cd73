#!/usr/bin/env python3
"""Where a JIT-compiled step's parallel time goes, per OpenMP region.

Runs mpt-run with an LD_PRELOAD wrapper of libomp's fork and barrier calls
(omp_regions.c, built here with cc) and prints, per outlined region function
(named from mpt-run's perf jitdump), the calls a step, the wall time a step
and each thread's time in it outside barriers; `wait` is the threads' time
in the region doing nothing (threads x wall - busy: forks, joins,
imbalance; two threads are assumed, the first one's index 0). With
--one-thread the same compiled step runs its regions on one thread: compare
the two tables to see which regions do not scale.

Usage: bench/cpu/omp_regions.py [--one-thread] [--top 25] -- STEP.mlir mpt-run options...
(mpt-run gets --threads=2 unless the options say otherwise.)
"""
import argparse
import bisect
import collections
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def jit_symbols(dump_dir):
    """(address, size, name) of every function in the jitdump files (JIT_CODE_LOAD records)."""
    syms = []
    dumps = [os.path.join(d, f) for d, _, files in os.walk(dump_dir) for f in files
             if f.startswith("jit-") and f.endswith(".dump")]
    for dump in dumps:
        data = open(dump, "rb").read()
        offset = struct.unpack_from("<I", data, 8)[0]
        while offset + 16 <= len(data):
            record, size, _ = struct.unpack_from("<IIQ", data, offset)
            if size == 0:
                break
            if record == 0:
                code_addr, code_size = struct.unpack_from("<QQ", data, offset + 32)
                end = data.index(b"\0", offset + 56)
                syms.append((code_addr, code_size, data[offset + 56:end].decode()))
            offset += size
    return sorted(syms)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--one-thread", action="store_true", help="run the parallel step's regions on one thread")
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--mpt-run", default=os.path.join(REPO, "build", "bin", "mpt-run"))
    p.add_argument("--runner-utils", default="/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so")
    p.add_argument("run", nargs=argparse.REMAINDER)
    args = p.parse_args()
    run = [a for a in args.run if a != "--"]
    if not run:
        p.error("give the step and mpt-run's options after --")
    if not any(a.startswith("--threads") for a in run):
        run.append("--threads=2")
    steps = next((int(a.split("=")[1]) for a in run if a.startswith("--steps=")), 1)
    with tempfile.TemporaryDirectory() as tmp:
        shim = os.path.join(tmp, "omp_regions.so")
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", shim, os.path.join(HERE, "omp_regions.c"), "-ldl"],
                       check=True)
        log = os.path.join(tmp, "regions.txt")
        env = dict(os.environ, LD_PRELOAD=shim, OMP_REGIONS_LOG=log, JITDUMPDIR=tmp)
        if args.one_thread:
            env["OMP_REGIONS_ONE_THREAD"] = "1"
        # The JIT resolves the runtime's symbols in the libraries it loads
        # first: the wrapper goes there too.
        cmd = [args.mpt_run] + run + ["--perf-jitdump", "--no-cache",
                                      "--shared-libs=" + shim + "," + args.runner_utils]
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        sys.stderr.write(r.stderr)
        if r.returncode != 0 or not os.path.exists(log):
            sys.exit("omp_regions.py: mpt-run failed (exit %d)" % r.returncode)
        syms = jit_symbols(tmp)
        rows = [l.split() for l in open(log)]
    addrs = [s[0] for s in syms]

    def name(addr):
        i = bisect.bisect_right(addrs, addr) - 1
        return syms[i][2] if i >= 0 and addr < syms[i][0] + syms[i][1] else hex(addr)

    # The first step (first touches, the runtime's start) is left out.
    per_step = len(rows) // max(steps, 1)
    measured = rows[per_step:] if steps > 1 else rows
    count = max(steps - 1, 1)
    table = collections.defaultdict(lambda: [0, 0.0, 0.0, 0.0])
    for fn, w, b0, b1 in measured:
        t = table[name(int(fn, 16))]
        t[0] += 1
        t[1] += float(w)
        t[2] += float(b0)
        t[3] += float(b1)
    total = [sum(t[i] for t in table.values()) for i in range(4)]
    threads = 1 if args.one_thread else 2
    print("%d regions a step, %.1f ms a step in regions, busy %.1f + %.1f thread-ms, wait %.1f thread-ms"
          % (total[0] / count, total[1] / count / 1e3, total[2] / count / 1e3, total[3] / count / 1e3,
             (threads * total[1] - total[2] - total[3]) / count / 1e3))
    print("%-48s %7s %8s %8s %8s %8s" % ("region", "calls", "wall ms", "busy 0", "busy 1", "wait"))
    for fn, t in sorted(table.items(), key=lambda x: -x[1][1])[:args.top]:
        print("%-48s %7.1f %8.2f %8.2f %8.2f %8.2f" % (fn[:48], t[0] / count, t[1] / count / 1e3,
                                                      t[2] / count / 1e3, t[3] / count / 1e3,
                                                      (threads * t[1] - t[2] - t[3]) / count / 1e3))
    return 0


if __name__ == "__main__":
    sys.exit(main())
