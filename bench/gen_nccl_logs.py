#!/usr/bin/env python3
"""Writes realistic NCCL 2.28 INFO logs (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,NET,COLL), one file per rank,
as NCCL_DEBUG_FILE=nccl.%h.%p would: bootstrap, network, channels, Init COMPLETE, timings, then COLL lines
(with PyTorch-style iteration prints) until each file reaches --bytes. Used by bench/logs_speed.sh and to make
the healthy fixtures. Output goes where --out says (use /tmp for benchmarks, never the repository)."""
import argparse
import os
import random

OPS = ["AllReduce", "AllReduce", "AllReduce", "AllGather", "ReduceScatter", "Broadcast"]


def header(host, pid, rank, nranks, dev, ip, net):
    t = pid + 55
    p = f"{host}:{pid}:{pid} [{dev}] NCCL INFO "
    q = f"{host}:{pid}:{t} [{dev}] NCCL INFO "
    comm = f"0x55d0c8a{rank:01x}b2c0"
    lines = [
        p + f"Bootstrap: Using eth0:{ip}<0>",
        p + "cudaDriverVersion 12080",
        p + "NCCL version 2.28.9+cuda12.9",
        p + "Comm config Blocking set to 1",
        q + "NET/Plugin: Could not find: libnccl-net.so.",
    ]
    if net == "IB":
        lines += [q + f"NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB eth0:{ip}<0>",
                  q + "Initialized NET plugin IB", q + "Assigned NET plugin IB to comm", q + "Using network IB"]
    else:
        lines += [q + "Failed to open libibverbs.so[.1]", q + f"NET/Socket : Using [0]eth0:{ip}<0>",
                  q + "Initialized NET plugin Socket", q + "Assigned NET plugin Socket to comm",
                  q + "Using network Socket"]
    lines += [
        q + f"ncclCommInitRankConfig comm {comm} rank {rank} nranks {nranks} cudaDev {dev} nvmlDev {dev} busId {18000 + dev * 0x1000:x} commId 0x8f3e2a1b4c5d6e7f - Init START",
        q + "Bootstrap timings total 0.001234 (create 0.000021, send 0.000102, recv 0.000712, ring 0.000098, delay 0.000000)",
        q + "NCCL_NVLS_ENABLE set by environment to 0.",
        q + f"comm {comm} rank {rank} nRanks {nranks} nNodes 1 localRanks {nranks} localRank {rank} MNNVL 0",
    ]
    for c in range(4):
        lines.append(q + f"Channel {c:02d}/04 : " + " ".join(str(r) for r in range(nranks)))
    lines.append(q + f"Trees [0] {(rank + 1) % nranks}/-1/-1->{rank}->-1 [1] -1/-1/-1->{rank}->{(rank + 1) % nranks}")
    lines.append(q + "P2P Chunksize set to 524288")
    for c in range(4):
        nxt = (rank + 1) % nranks
        lines.append(q + f"Channel {c:02d}/0 : {rank}[{dev}] -> {nxt}[{nxt}] via P2P/CUMEM/read")
    lines += [
        q + "Connected all rings, use ring PXN 0 GDR 0",
        q + "Connected all trees",
        q + f"ncclCommInitRankConfig comm {comm} rank {rank} nranks {nranks} cudaDev {dev} nvmlDev {dev} busId {18000 + dev * 0x1000:x} commId 0x8f3e2a1b4c5d6e7f - Init COMPLETE",
        q + f"Init timings - ncclCommInitRankConfig: rank {rank} nranks {nranks} total 0.52 (kernels 0.21, alloc 0.01, bootstrap 0.00, allgathers 0.00, topo 0.12, graphs 0.00, connections 0.17, rest 0.01)",
    ]
    return lines, p, comm


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--bytes", type=int, default=1 << 20, help="approximate size of each file")
    ap.add_argument("--net", default="Socket", choices=["Socket", "IB"])
    ap.add_argument("--host", default="gpu-node-1")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--iteration-every", type=int, default=8, help="collectives per printed iteration (0 = none)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for rank in range(a.ranks):
        rnd = random.Random(a.seed)  # same op sequence on every rank: a healthy, synchronised job
        pid = 12345 + rank * 7
        lines, p, comm = header(a.host, pid, rank, a.ranks, rank % 8, f"10.1.2.{3 + rank // 8}", a.net)
        path = os.path.join(a.out, f"nccl.{a.host}.{pid}.log")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
            size = sum(len(l) + 1 for l in lines)
            op_count = 0
            it = 0
            chunk = []
            while size < a.bytes:
                if a.iteration_every and op_count % a.iteration_every == 0:
                    it += 1
                    s = f"[rank{rank}]: iteration: {it} loss 2.{rnd.randint(1000, 9999)}"
                    chunk.append(s)
                    size += len(s) + 1
                op = OPS[rnd.randrange(len(OPS))]
                count = rnd.choice([1, 1024, 262144, 4194304])
                s = (p + f"{op}: opCount {op_count:x} sendbuff 0x7f2a4c{op_count % 4096:03x}000 recvbuff 0x7f2a4d{op_count % 4096:03x}000 "
                     f"count {count} datatype 7 op 0 root 0 comm {comm} [nranks={a.ranks}] stream 0x55d0c7f0a2b0")
                chunk.append(s)
                size += len(s) + 1
                op_count += 1
                if len(chunk) >= 4096:
                    f.write("\n".join(chunk) + "\n")
                    chunk = []
            if chunk:
                f.write("\n".join(chunk) + "\n")


if __name__ == "__main__":
    main()
