#!/usr/bin/env python3
"""Same join + publish + barrier pattern as bench/store_scale.cc, against PyTorch's TCPStore (libuv backend).

Each client: connect (TCPStore client constructor), set facts/<rank> to 2 KiB, add("arrived", 1); the client that
brings the counter to N sets "done"; every client waits for "done". Clients are Python threads (TCPStore calls
release the GIL) spread over --procs processes (default 1); the server is the master TCPStore in this process.
The figure is the time from the start signal until the last client passed the barrier (as store_scale reports).
Prints one line per N: "torch N=4096 join+publish+barrier 1234.5 ms".
"""
import argparse
import datetime
import multiprocessing as mp
import queue
import resource
import socket
import sys
import threading
import time


def raise_nofile():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def parse_cpus(text):
    """ "0-3,8" -> {0, 1, 2, 3, 8}; None for ""."""
    if not text:
        return None
    cpus = set()
    for item in text.split(","):
        a, _, b = item.partition("-")
        cpus.update(range(int(a), int(b or a) + 1))
    return cpus


def clients(port, n, ranks, start, out_q, ready=None, cpus=None):
    """Runs the given ranks as threads. start: a CLOCK_MONOTONIC time, or an mp.Value the parent fills in after
    every process has imported torch (ready: an mp.Barrier). cpus: the client CPUs to pin this process to."""
    import os

    import torch.distributed as dist

    if cpus:
        os.sched_setaffinity(0, cpus)
    raise_nofile()
    # One descriptor table big enough for every connection of this process, grown before the start (as
    # store_scale's client processes do): growing it during the burst waits for RCU grace periods.
    base = os.open("/dev/null", os.O_RDONLY)
    top = len(ranks) + 64
    os.dup2(base, top)
    os.close(top)
    os.close(base)
    if ready is not None:
        ready.wait()
        while start.value == 0:
            time.sleep(0.001)
        start = start.value
    threading.stack_size(512 * 1024)
    released = [0.0] * len(ranks)
    errors = []
    facts = b"f" * 2048
    timeout = datetime.timedelta(seconds=120)

    def one(i, rank):
        try:
            delay = start - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            s = dist.TCPStore("127.0.0.1", port, None, False, timeout, use_libuv=True)
            s.set(f"facts/{rank}", facts)
            if s.add("arrived", 1) == n:
                s.set("done", "1")
            s.wait(["done"], timeout)
            released[i] = time.monotonic() - start
            # Keep the connection until everyone is through, as store_scale's clients do.
            s.wait(["finished"], timeout)
        except Exception as e:  # noqa: BLE001 - report any failure
            errors.append(f"rank {rank}: {e}")

    threads = [threading.Thread(target=one, args=(i, r)) for i, r in enumerate(ranks)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out_q.put((max(released) if released else 0.0, errors))


def run(n, procs, start_delay, server_cpus=None, client_cpus=None, round_timeout=60.0):
    import os

    import torch.distributed as dist

    if server_cpus:
        os.sched_setaffinity(0, server_cpus)  # the master store's libuv thread is created below, in this process

    with socket.socket() as sk:
        sk.bind(("127.0.0.1", 0))
        port = sk.getsockname()[1]
    master = dist.TCPStore("127.0.0.1", port, None, True, datetime.timedelta(seconds=120),
                           wait_for_workers=False, use_libuv=True)
    if procs == 1:
        q = queue.Queue()
        start = time.monotonic() + start_delay  # time to create every client thread
        workers = [threading.Thread(target=clients, args=(port, n, list(range(n)), start, q))]
    else:
        ctx = mp.get_context("spawn")  # not fork: the master store's threads live in this process
        q = ctx.Queue()
        ready = ctx.Barrier(procs + 1)
        start = ctx.Value("d", 0.0)
        workers = [ctx.Process(target=clients, args=(port, n, list(range(p, n, procs)), start, q, ready,
                                                     client_cpus))
                   for p in range(procs)]
    for w in workers:
        w.start()
    if procs > 1:
        ready.wait()  # every process has imported torch
        start.value = time.monotonic() + start_delay
    give_up = time.monotonic() + start_delay + round_timeout
    while not master.check(["done"]):
        if time.monotonic() > give_up:  # a round that does not finish must not eat the device's time
            for w in workers:
                if hasattr(w, "terminate"):
                    w.terminate()
            return None, [f"did not finish within --round-timeout {round_timeout:.0f} s"]
        time.sleep(0.001)
    master.set("finished", "1")
    results = [q.get() for _ in workers]
    for w in workers:
        w.join()
    return max(r[0] for r in results) * 1000, [e for r in results for e in r[1]]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ns", nargs="*", type=int, default=[256, 1024, 4096])
    ap.add_argument("--procs", type=int, default=1, help="client processes (threads are split over them)")
    ap.add_argument("--server-cpus", default="", help="CPUs for the master store (e.g. 0-1)")
    ap.add_argument("--client-cpus", default="", help="CPUs for the client processes (e.g. 2-15)")
    ap.add_argument("--rounds", type=int, default=1, help="rounds per N; the median is printed")
    ap.add_argument("--round-timeout", type=float, default=60.0,
                    help="seconds a round may take after the start; a slower round is stopped and counted failed")
    ap.add_argument("--start-delay", type=float, default=2.0,
                    help="seconds between the go signal and the start, to create every client thread (not timed)")
    args = ap.parse_args()
    import torch

    fds = raise_nofile()
    print(f"torch {torch.__version__}, TCPStore use_libuv=True, clients as threads in {args.procs} process(es), "
          f"RLIMIT_NOFILE {fds}", flush=True)
    ok = True
    server_cpus, client_cpus = parse_cpus(args.server_cpus), parse_cpus(args.client_cpus)
    for n in args.ns:
        walls = []
        for _ in range(args.rounds):
            wall, errors = run(n, args.procs, args.start_delay, server_cpus, client_cpus, args.round_timeout)
            if wall is None:
                print(f"torch N={n} join+publish+barrier: {errors[0]}", flush=True)
                ok = False
                break  # the next rounds of this N would not finish either
            print(f"torch N={n} join+publish+barrier {wall:.1f} ms  failures {len(errors)}", flush=True)
            for e in errors[:3]:
                print("  ", e)
            ok = ok and not errors
            if not errors:
                walls.append(wall)
        if walls:
            walls.sort()
            print(f"median torch N={n} procs={args.procs} join+publish+barrier {walls[len(walls) // 2]:.1f} ms "
                  f"over {len(walls)} rounds ({' '.join(str(round(w)) for w in walls)})", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
