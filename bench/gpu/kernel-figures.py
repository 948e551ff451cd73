#!/usr/bin/env python3
"""Static figures of mpt's Tensor Core kernels, measured without a GPU.

For each chip (sm_80, sm_90a) and input type (f16, bf16; on sm_90a also
FP8 e4m3 x e4m3 and e5m2 x e4m3, with B transposed as FP8 wgmma needs) this
compiles a 4096x4096x4096 linalg.matmul with `mpt-opt --mpt-gpu-codegen`
(default options), assembles the PTX with `ptxas -v`, and prints a Markdown
table of: registers per thread, shared memory per block (static + dynamic),
spill bytes, and the static instruction counts of one K-loop iteration (one
k-tile: 32 deep on sm_80, 64 on sm_90a, 128 for FP8), found as the PTX loop
(a backward `bra`) that contains the mma/wgmma instructions.

usage: bench/gpu/kernel-figures.py [--build DIR] [--ptxas PATH]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SIZE = 4096
CONFIGS = [("sm_80", "f16"), ("sm_80", "bf16"), ("sm_90a", "f16"), ("sm_90a", "bf16"),
           ("sm_90a", "e4m3"), ("sm_90a", "e5m2 x e4m3")]
# FP8 inputs: MLIR element types of A and B.
FP8 = {"e4m3": ("f8E4M3FN", "f8E4M3FN"), "e5m2 x e4m3": ("f8E5M2", "f8E4M3FN")}
# Instruction classes counted in the K loop (prefix match on the opcode).
CLASSES = [
    ("mma", ("mma.sync", "wgmma.mma_async")),
    ("ldmatrix", ("ldmatrix",)),
    ("cp.async", ("cp.async.cg", "cp.async.ca")),
    ("TMA", ("cp.async.bulk.tensor",)),
    ("mbarrier", ("mbarrier.",)),
    ("barrier", ("bar.sync", "barrier.sync")),
]


def kernel_source(chip, ty):
    c = f"memref<{SIZE}x{SIZE}xf32>"
    name = f"{chip.replace('_', '')}_{ty.replace(' x ', '_')}"
    ta, tb = FP8.get(ty, (ty, ty))
    a, b = f"memref<{SIZE}x{SIZE}x{ta}>", f"memref<{SIZE}x{SIZE}x{tb}>"
    # FP8 wgmma reads B K-major: B[n][k].
    maps = ("indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, "
            "affine_map<(m, n, k) -> (m, n)>] " if ty in FP8 else "")
    return name, (f"func.func @{name}(%a: {a}, %b: {b}, %c: {c}) {{\n"
                  f"  linalg.matmul {maps}ins(%a, %b : {a}, {b}) outs(%c : {c})\n"
                  "  return\n}\n")


def k_loop(lines):
    """The [start, end) line span of the outermost loop holding mma ops."""
    labels = {}
    loops = []
    for i, line in enumerate(lines):
        m = re.match(r"^(\$L__\w+):", line.strip())
        if m:
            labels[m.group(1)] = i
        m = re.search(r"\bbra(?:\.uni)?\s+(\$L__\w+);", line)
        if m and m.group(1) in labels and labels[m.group(1)] < i:
            loops.append((labels[m.group(1)], i + 1))
    best = None
    for start, end in loops:
        body = lines[start:end]
        if any("mma.sync" in l or "wgmma.mma_async" in l for l in body):
            if best is None or (end - start) > (best[1] - best[0]):
                best = (start, end)
    return best


def instructions(lines):
    """Opcodes of the PTX statements in `lines` (statements span lines)."""
    text = "\n".join(re.sub(r"//.*", "", l) for l in lines)
    text = re.sub(r"^\s*[$\w]+:", "", text, flags=re.M)  # labels
    for stmt in text.split(";"):
        s = stmt.strip().lstrip("{}").strip()
        if not s or s.startswith("."):
            continue
        s = re.sub(r"^@!?%\w+\s+", "", s)  # predicate guard
        yield s.split()[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.environ.get("MPT_BUILD_DIR", os.path.join(REPO, "build")))
    ap.add_argument("--ptxas", default="/usr/local/cuda/bin/ptxas")
    args = ap.parse_args()
    mpt_opt = os.path.join(args.build, "bin", "mpt-opt")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for chip, ty in CONFIGS:
            name, src = kernel_source(chip, ty)
            path = os.path.join(tmp, name + ".mlir")
            with open(path, "w") as f:
                f.write(src)
            out = subprocess.run(
                [mpt_opt, path, f"--mpt-gpu-codegen=chip={chip} format=isa dump-dir={tmp}",
                 "-o", os.path.join(tmp, name + ".out.mlir")],
                capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit(f"mpt-opt failed for {chip} {ty}:\n{out.stderr}")
            ir = open(os.path.join(tmp, name + ".out.mlir")).read()
            dyn = re.search(r"dynamic_shared_memory_size %\w+", ir)
            dyn_bytes = 0
            if dyn:
                const = re.search(r"llvm.mlir.constant\((\d+) : i32\) : i32", ir)
                m = re.search(r"dynamic_shared_memory_size (%\w+)", ir)
                dm = re.search(re.escape(m.group(1)) + r" = llvm.mlir.constant\((\d+) : i32\)", ir)
                dyn_bytes = int(dm.group(1)) if dm else (int(const.group(1)) if const else 0)
            ptx_path = os.path.join(tmp, f"{name}_tensorcore_kernel.{chip}.ptx")
            ptx = open(ptx_path).read().splitlines()
            res = subprocess.run([args.ptxas, f"-arch={chip}", "-v", ptx_path, "-o",
                                  os.path.join(tmp, name + ".cubin")],
                                 capture_output=True, text=True)
            if res.returncode != 0:
                sys.exit(f"ptxas failed for {chip} {ty}:\n{res.stderr}")
            info = res.stdout + res.stderr
            regs = int(re.search(r"Used (\d+) registers", info).group(1))
            smem = re.search(r"(\d+) bytes smem", info)
            smem = int(smem.group(1)) if smem else 0
            spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", info)
            span = k_loop(ptx)
            if span is None:
                sys.exit(f"no K loop found in {ptx_path}")
            ops = list(instructions(ptx[span[0]:span[1]]))
            counts = {cls: sum(1 for op in ops if op.startswith(prefixes)) for cls, prefixes in CLASSES}
            rows.append((chip, ty, regs, smem, dyn_bytes, spills.group(1), spills.group(2), counts, len(ops)))

    print(f"Kernels for a {SIZE}x{SIZE}x{SIZE} matmul, default options "
          "(bench/gpu/kernel-figures.py, ptxas -v of CUDA's toolkit).")
    print("Per k-tile = static PTX instructions of one K-loop iteration "
          "(k-tile 32 on sm_80, 64 on sm_90a, 128 for FP8 on sm_90a).\n")
    head = ["chip", "inputs", "registers", "smem static", "smem dynamic",
            "spill st/ld"] + [f"{c}/k-tile" for c, _ in CLASSES] + ["all/k-tile"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for chip, ty, regs, smem, dyn, sst, sld, counts, total in rows:
        cells = [chip, ty, str(regs), f"{smem} B", f"{dyn} B", f"{sst}/{sld} B"]
        cells += [str(counts[c]) for c, _ in CLASSES] + [str(total)]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
