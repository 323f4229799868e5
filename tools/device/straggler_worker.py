# A PyTorch training-like loop for issue 39 (stragglers): each step a matmul on the GPU, then an all_reduce of
# 4 MiB and a small one. CASE picks what slows rank SLOW_RANK (default 1):
#   healthy     nobody
#   cpu_sleep   it sleeps SLOW_S (0.25) before each step's all_reduce (a slow data loader / CPU work)
#   late_slow   the same, only from step SLOW_AFTER (20) on, or after SLOW_AFTER_S seconds (fail-slow); it
#               prints "slow from EPOCH" when it begins
#   cpu_busy    a busy loop of BUSY_PROCS processes pinned to its cores competes with it
#   gpu_hog     a second process on its GPU runs large matmuls the whole time
#   loader      every rank takes each step's batch from a DataLoader (2 workers); its dataset takes LOADER_S
#               (0.03) a sample to make, 8 samples a batch, the others' 0.5 ms: it waits for its data
# STEPS (60), or DURATION_S (run steps until that many seconds passed); MATMULS (8) 4096x4096 matmuls a step.
# BACKEND=gloo: the same loop on the CPU (1024x1024 matmuls, no GPU cases), for a machine with fewer GPUs than
# ranks. Rank 0 prints each step's time. Run under `distdoctor launch` or torchrun.
import os, time, multiprocessing as mp
import torch
import torch.distributed as dist

case = os.environ.get("CASE", "healthy")
slow_rank = int(os.environ.get("SLOW_RANK", "1"))
slow_s = float(os.environ.get("SLOW_S", "0.25"))
slow_after = int(os.environ.get("SLOW_AFTER", "20"))
slow_after_s = float(os.environ.get("SLOW_AFTER_S", "0"))  # late_slow: from this many seconds on instead
steps = int(os.environ.get("STEPS", "60"))
duration = float(os.environ.get("DURATION_S", "0"))
matmuls = int(os.environ.get("MATMULS", "8"))
backend = os.environ.get("BACKEND", "nccl")
dev = "cuda" if backend == "nccl" else "cpu"
size = 4096 if dev == "cuda" else 1024


def sync():
    if dev == "cuda":
        torch.cuda.synchronize()

def busy(cpu):
    try:
        os.sched_setaffinity(0, {cpu})
    except Exception:
        pass
    while True:
        pass

def hog(dev, ready):
    torch.cuda.set_device(dev)
    a = torch.randn(8192, 8192, device="cuda")
    a = (a @ a).clamp_(-1, 1)
    torch.cuda.synchronize()
    ready.set()
    while True:
        a = (a @ a).clamp_(-1, 1)

class Samples(torch.utils.data.Dataset):  # decoding and augmenting one sample takes `delay` seconds
    def __init__(self, delay):
        self.delay = delay

    def __len__(self):
        return 1 << 30

    def __getitem__(self, i):
        time.sleep(self.delay)
        return torch.full((64,), float(i % 7))


def main():
    dist.init_process_group(backend)
    rank, world = dist.get_rank(), dist.get_world_size()
    local = int(os.environ.get("LOCAL_RANK", rank))
    if dev == "cuda":
        torch.cuda.set_device(local)
    helpers = []
    if rank == slow_rank and case == "cpu_busy":
        cpus = sorted(os.sched_getaffinity(0))[: int(os.environ.get("BUSY_PROCS", "2"))]
        os.sched_setaffinity(0, set(cpus))
        helpers = [mp.get_context("fork").Process(target=busy, args=(c,), daemon=True) for c in cpus]
    ready = None
    if rank == slow_rank and case == "gpu_hog":
        ctx = mp.get_context("spawn")
        ready = ctx.Event()
        helpers = [ctx.Process(target=hog, args=(local, ready), daemon=True)]
    for h in helpers:
        h.start()
    if ready is not None:
        ready.wait(120)  # the hog computes before the steps start
    batches = None
    if case == "loader":
        delay = float(os.environ.get("LOADER_S", "0.03")) if rank == slow_rank else 0.0005
        batches = iter(torch.utils.data.DataLoader(Samples(delay), batch_size=8, num_workers=2))
    if rank == slow_rank and case in ("gpu_hog", "loader"):
        print(f"slow from {time.time():.3f}", flush=True)
    x = torch.randn(size, size, device=dev)
    g = torch.ones(1 << 20, device=dev)
    small = torch.ones(16, device=dev)
    dist.all_reduce(g)
    sync()
    start = time.time()
    step = 0
    said = False
    while (time.time() - start < duration) if duration > 0 else step < steps:
        t0 = time.time()
        y = x
        for _ in range(matmuls):
            y = (x @ y).clamp_(-1, 1)
        late = step >= slow_after if slow_after_s <= 0 else time.time() - start >= slow_after_s
        if rank == slow_rank and (case == "cpu_sleep" or (case == "late_slow" and late)):
            if case == "late_slow" and not said:
                print(f"slow from {time.time():.3f}", flush=True)
                said = True
            time.sleep(slow_s)
        if rank == slow_rank and case == "cpu_busy":
            s = 0
            for i in range(300000):  # python work that the busy processes slow down
                s += i
        if batches is not None:
            y[0, :64] += next(batches)[0].to(dev, non_blocking=True)
        g.copy_(y.flatten()[: g.numel()])
        dist.all_reduce(g)
        dist.all_reduce(small)
        sync()
        if rank == 0:
            print(f"step {step} {1000 * (time.time() - t0):.1f} ms at {time.time():.3f}", flush=True)
        step += 1
    for h in helpers:
        h.terminate()
    dist.destroy_process_group()


if __name__ == "__main__":  # the hog process is spawned: it imports this file and must not run it
    main()
