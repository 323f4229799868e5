# A small PyTorch job with one fault, for recording real hangs and failures on a 4-GPU machine
# (tools/device/record_hangs.sh runs it under torchrun and under `distdoctor launch`). argv[1] picks the case;
# every fault is on one rank at step FAULT_STEP (3) and the moment is written to $FAULT_FILE (epoch ms):
#   healthy       every rank runs STEPS steps (all_reduce + all_gather) and exits 0; prints step times
#   desync_op     rank 3 calls broadcast where the others call all_reduce
#   desync_size   rank 3 all_gathers twice the elements of the others
#   desync_pg     rank 0 calls all_reduce on the subgroup {0,1} while ranks 1-3 call it on the world
#   stall_idle    rank 3 sleeps 60 s (no CPU) while the others wait
#   stall_busy    rank 3 spins in a Python loop for 60 s while the others wait
#   late_init     rank 3 sleeps 20 s before init_process_group (PG timeout 10 s)
#   sigkill       rank 2 SIGKILLs itself
#   exception     rank 1 all_reduces a CPU tensor on the NCCL group (RuntimeError)
#   dataloader    rank 1's DataLoader worker is SIGKILLed (RuntimeError: DataLoader worker ... killed)
#   uneven_gather every rank all_gathers its own size (rank r: (r+1)*ELEMS) into the same list of outputs:
#                 PyTorch's uneven all_gather, healthy (no fault; a launch report must stay clean)
import datetime
import os
import signal
import sys
import time

import torch
import torch.distributed as dist

case = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CASE", "healthy")
steps = int(os.environ.get("STEPS", "8"))
fault_step = int(os.environ.get("FAULT_STEP", "3"))
rank = int(os.environ["RANK"])
local = int(os.environ.get("LOCAL_RANK", "0"))
world = int(os.environ["WORLD_SIZE"])


def mark_fault():
    path = os.environ.get("FAULT_FILE")
    if path:
        with open(path, "w") as f:
            f.write(str(int(time.time() * 1000)))


class Batches(torch.utils.data.Dataset):
    def __len__(self):
        return 8 * (steps + 1)

    def __getitem__(self, i):
        if case == "dataloader" and rank == 1 and i == 8 * fault_step:
            mark_fault()
            os.kill(os.getpid(), signal.SIGKILL)
        return torch.full((4,), float(i))


dev = torch.device("cuda", local % torch.cuda.device_count())
torch.cuda.set_device(dev)
if case == "late_init" and rank == 3:
    mark_fault()
    time.sleep(20)
timeout = datetime.timedelta(seconds=int(os.environ.get("PG_TIMEOUT", "10")))
dist.init_process_group("nccl", timeout=timeout, device_id=dev)
sub = dist.new_group([0, 1]) if case == "desync_pg" else None
n = int(os.environ.get("ELEMS", str(1 << 20)))
x = torch.ones(n, device=dev)
w = torch.randn(1024, 1024, device=dev)
loader = iter(torch.utils.data.DataLoader(Batches(), batch_size=8, num_workers=2 if case == "dataloader" else 0))
t_prev = time.time()
for step in range(steps):
    batch = next(loader)
    y = (w @ w).sum() * 0 + batch.sum().to(dev) * 0
    x += y
    fault = step == fault_step
    if fault and case == "desync_op" and rank == 3:
        mark_fault()
        dist.broadcast(x, src=0)
    elif fault and case == "desync_pg" and rank == 0:
        mark_fault()
        dist.all_reduce(x, group=sub)
    elif fault and case == "stall_idle" and rank == 3:
        mark_fault()
        time.sleep(60)
        dist.all_reduce(x)
    elif fault and case == "stall_busy" and rank == 3:
        mark_fault()
        end = time.time() + 60
        while time.time() < end:
            pass
        dist.all_reduce(x)
    elif fault and case == "sigkill" and rank == 2:
        mark_fault()
        os.kill(os.getpid(), signal.SIGKILL)
    elif fault and case == "exception" and rank == 1:
        mark_fault()
        dist.all_reduce(torch.ones(4))
    else:
        dist.all_reduce(x)
    if fault and case == "uneven_gather":
        outs = [torch.empty(n * (r + 1), device=dev) for r in range(world)]
        dist.all_gather(outs, torch.ones(n * (rank + 1), device=dev))
    else:
        outs = [torch.empty(n * (2 if (case == "desync_size" and fault and rank == 3) else 1), device=dev)
                for _ in range(world)]
        if fault and case == "desync_size" and rank == 3:
            mark_fault()
        dist.all_gather(outs, torch.ones(outs[0].numel(), device=dev))
    torch.cuda.synchronize()
    now = time.time()
    print(f"step {step} done in {(now - t_prev) * 1000:.2f} ms", flush=True)
    t_prev = now
dist.destroy_process_group()
print(f"rank {rank} done", flush=True)
