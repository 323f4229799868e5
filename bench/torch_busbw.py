#!/usr/bin/env python3
"""PyTorch torch.distributed busbw for the same collectives and sizes as `distdoctor bench`.

One process per GPU (torch.multiprocessing), NCCL backend, CUDA-event timing of `iters` back-to-back
calls after `warmup`; busbw with nccl-tests' factors. Prints one JSON document on stdout.
Usage: torch_busbw.py [--sizes 1G,2G,4G,8G] [--collectives all_reduce,...] [--warmup 5] [--iters 20]
"""
import argparse
import json
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

FACTORS = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "alltoall": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "reduce": lambda n: 1.0,
    "sendrecv": lambda n: 1.0,
}


def parse_size(s):
    mul = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(s[:-1]) * mul[s[-1].upper()]) if s[-1].upper() in mul else int(s)


def make_op(name, nbytes, world, rank):
    """Returns (reported bytes, callable) following nccl-tests' size convention."""
    elems = nbytes // 4
    if name == "all_reduce":
        t = torch.ones(elems, device="cuda")
        return elems * 4, lambda: dist.all_reduce(t)
    if name == "all_gather":
        chunk = elems // world
        inp, out = torch.ones(chunk, device="cuda"), torch.empty(chunk * world, device="cuda")
        return chunk * world * 4, lambda: dist.all_gather_into_tensor(out, inp)
    if name == "reduce_scatter":
        chunk = elems // world
        inp, out = torch.ones(chunk * world, device="cuda"), torch.empty(chunk, device="cuda")
        return chunk * world * 4, lambda: dist.reduce_scatter_tensor(out, inp)
    if name == "broadcast":
        t = torch.ones(elems, device="cuda")
        return elems * 4, lambda: dist.broadcast(t, 0)
    if name == "reduce":
        t = torch.ones(elems, device="cuda")
        return elems * 4, lambda: dist.reduce(t, 0)
    if name == "alltoall":
        chunk = elems // world
        inp, out = torch.ones(chunk * world, device="cuda"), torch.empty(chunk * world, device="cuda")
        return chunk * world * 4, lambda: dist.all_to_all_single(out, inp)
    if name == "sendrecv":
        s, r = torch.ones(elems, device="cuda"), torch.empty(elems, device="cuda")
        nxt, prv = (rank + 1) % world, (rank - 1 + world) % world

        def run():
            for w in dist.batch_isend_irecv([dist.P2POp(dist.isend, s, nxt), dist.P2POp(dist.irecv, r, prv)]):
                w.wait()

        return elems * 4, run
    raise ValueError(name)


def worker(rank, world, args, queue):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ.setdefault("MASTER_PORT", "29533")
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world, device_id=torch.device("cuda", rank))
    results = []
    for name in args.collectives.split(","):
        for size in args.sizes.split(","):
            nbytes, op = make_op(name, parse_size(size), world, rank)
            for _ in range(args.warmup):
                op()
            torch.cuda.synchronize()
            dist.barrier()
            torch.cuda.synchronize()
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(args.iters):
                op()
            stop.record()
            torch.cuda.synchronize()
            t_us = start.elapsed_time(stop) * 1000 / args.iters
            tt = torch.tensor([t_us], device="cuda")
            dist.all_reduce(tt, op=dist.ReduceOp.MAX)
            t_us = tt.item()
            algbw = nbytes / (t_us * 1e-6) / 1e9
            results.append({"collective": name, "bytes": nbytes, "time_us": t_us, "algbw_gbps": algbw,
                            "busbw_gbps": algbw * FACTORS[name](world)})
            del op
            torch.cuda.empty_cache()
    if rank == 0:
        queue.put(results)
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", default="1G,2G,4G,8G")
    p.add_argument("--collectives", default="all_reduce,all_gather,reduce_scatter,broadcast,reduce,alltoall,sendrecv")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--nproc", type=int, default=torch.cuda.device_count())
    args = p.parse_args()
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    ctx = mp.get_context("spawn")
    q = ctx.SimpleQueue()
    mp.spawn(worker, args=(args.nproc, args, q), nprocs=args.nproc, join=True)
    res = q.get()
    nccl = ".".join(map(str, torch.cuda.nccl.version()))
    json.dump({"torch": torch.__version__, "nccl": nccl, "world": args.nproc, "results": res}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
