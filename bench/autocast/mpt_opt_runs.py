"""What one mpt-opt run measures: pass times (--mlir-timing) and op counts
(--print-op-stats). Shared by bench/autocast and bench/scale."""
import os
import re
import subprocess


def timing(mpt_opt, path, extra, summed=()):
    """Seconds per pass name. The first line for a name is kept (for a nested
    pipeline, "'func.func' Pipeline" then the pass, that is the total over its
    instances); names in `summed` add up every line instead."""
    out = subprocess.run([mpt_opt, path, "-o", os.devnull, "--mlir-timing"] + extra,
                         check=True, capture_output=True, text=True).stderr
    times = {}
    for line in out.splitlines():
        m = re.match(r"\s*([0-9.]+) \(\s*[0-9.]+%\)\s+(.*\S)\s*$", line)
        if m:
            name, seconds = m.group(2), float(m.group(1))
            times[name] = times.get(name, 0.0) + seconds if name in summed else times.get(name, seconds)
    return times


def count_ops(mpt_opt, path):
    """The number of ops in the file (mpt-opt --print-op-stats)."""
    out = subprocess.run([mpt_opt, path, "--print-op-stats", "-o", os.devnull],
                         check=True, capture_output=True, text=True).stderr
    return sum(int(m.group(1)) for m in re.finditer(r",\s*([0-9]+)\s*$", out, re.M))
