# A 4-rank PyTorch job where one rank is *different*, not stuck (issue 37's recordings, run by
# tools/device/record_different.sh under torchrun and under `distdoctor launch`). argv[1] picks the case; the
# per-rank environment cases (another NCCL, an NCCL variable of its own) are made by tools/device/rank_env.sh,
# the worker itself runs healthy for them. Each step is one all_reduce and one all_gather; the fault is on one
# rank at step FAULT_STEP (3), its moment written to $FAULT_FILE (epoch ms). BACKEND=gloo runs the steps on
# CPU tensors (4 ranks on a 1-GPU machine); NCCL_SUB=1 then gives each rank a one-rank NCCL group on the GPU
# and all_reduces on it once, so every rank initialises NCCL and prints its INFO lines.
#   healthy    every rank runs STEPS steps and exits 0
#   exit0      rank 1 calls sys.exit(0) after step 2; the others go on into step 3's all_reduce
#   late_init  rank 1 sleeps LATE_S (60) seconds before init_process_group; the others wait in init
#   dtype      rank 1 all_reduces float16 where the others all_reduce float32 (same element count)
#   oom        rank 1 allocates BIG_GIB (16) GiB at start while another process holds its GPU (gpu_hog.py)
import datetime
import os
import sys
import time

import torch
import torch.distributed as dist

case = sys.argv[1] if len(sys.argv) > 1 else "healthy"
steps = int(os.environ.get("STEPS", "8"))
fault_step = int(os.environ.get("FAULT_STEP", "3"))
rank = int(os.environ["RANK"])
local = int(os.environ.get("LOCAL_RANK", "0"))
world = int(os.environ["WORLD_SIZE"])


def mark_fault():
    path = os.environ.get("FAULT_FILE")
    if path and not os.path.exists(path):
        with open(path, "w") as f:
            f.write(str(int(time.time() * 1000)))


backend = os.environ.get("BACKEND", "nccl")
gpu = torch.device("cuda", local % torch.cuda.device_count())
torch.cuda.set_device(gpu)
dev = gpu if backend == "nccl" else torch.device("cpu")
if case == "late_init" and rank == 1:
    mark_fault()
    time.sleep(float(os.environ.get("LATE_S", "60")))
if case == "oom" and rank == 1:
    big = torch.empty(int(os.environ.get("BIG_GIB", "16")) << 28, dtype=torch.float32, device=gpu)
timeout = datetime.timedelta(seconds=int(os.environ.get("PG_TIMEOUT", "10")))
if backend == "nccl":
    dist.init_process_group("nccl", timeout=timeout, device_id=dev)
else:
    dist.init_process_group(backend, timeout=timeout)
    if os.environ.get("NCCL_SUB") == "1":
        sub, _ = dist.new_subgroups(group_size=1, backend="nccl")
        dist.all_reduce(torch.ones(4, device=gpu), group=sub)
        torch.cuda.synchronize()
n = int(os.environ.get("ELEMS", str(1 << 20)))
x = torch.ones(n, device=dev)
t_prev = time.time()
for step in range(steps):
    fault = step == fault_step
    if case == "exit0" and rank == 1 and step == fault_step:
        mark_fault()
        print("rank 1 leaves early", flush=True)
        sys.exit(0)
    if fault and case == "dtype" and rank == 1:
        mark_fault()
        h = x.to(torch.float16)
        dist.all_reduce(h)
    else:
        dist.all_reduce(x)
    outs = [torch.empty(n, device=dev) for _ in range(world)]
    dist.all_gather(outs, torch.ones(n, device=dev))
    if backend == "nccl":
        torch.cuda.synchronize()
    x.fill_(1.0)
    now = time.time()
    print(f"step {step} done in {(now - t_prev) * 1000:.2f} ms", flush=True)
    t_prev = now
dist.destroy_process_group()
print(f"rank {rank} done", flush=True)
