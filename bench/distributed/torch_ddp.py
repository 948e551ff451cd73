#!/usr/bin/env python3
"""The anchor of bench/distributed/bench.py: PyTorch DistributedDataParallel
(gloo, CPU, one thread per rank) training the same MLP as the bundled mpt
example (16 -> 32 ReLU -> 4, softmax cross-entropy, SGD lr 0.05, 8 samples
per rank), with f16 autocast and GradScaler as mpt's f16 pipeline does.

  torch_ddp.py --ranks N --wire f32|bf16 --steps S

Prints one line: the median step time in ms over the last S steps (after 10
warm-up steps). --wire bf16 installs DDP's bf16_compress_hook (gradients
travel as bf16, 2 bytes each)."""
import argparse
import os
import statistics
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))
from mpt_setup.venv import ensure_venv  # noqa: E402

if __name__ == "__main__":
    ensure_venv(__file__, "torch_ddp.py")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks  # noqa: E402
from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: E402


def worker(rank, world, wire, steps, port, out):
    torch.set_num_threads(1)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                                torch.nn.Linear(32, 4))
    ddp = DDP(model)
    if wire == "bf16":
        ddp.register_comm_hook(dist.group.WORLD, default_hooks.bf16_compress_hook)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05)
    scaler = torch.amp.GradScaler("cpu")
    x = torch.randn(8, 16)
    y = torch.randint(0, 4, (8,))
    times = []
    for i in range(10 + steps):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(ddp(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        times.append(time.perf_counter() - t0)
    if rank == 0:
        out.put(1e3 * statistics.median(times[10:]))
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ranks", type=int, default=1)
    p.add_argument("--wire", choices=["f32", "bf16"], default="f32")
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--port", type=int, default=29531)
    a = p.parse_args()
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=worker, args=(r, a.ranks, a.wire, a.steps, a.port, out))
             for r in range(a.ranks)]
    for proc in procs:
        proc.start()
    ms = out.get(timeout=600)
    for proc in procs:
        proc.join()
    print("%.4f" % ms)


if __name__ == "__main__":
    main()
