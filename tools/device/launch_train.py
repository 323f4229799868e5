# PyTorch all_reduce loop for the launch comparison (launch_compare.py). CASE picks the fault, on rank 1:
#   healthy     every rank runs ITERS all_reduces and exits 0
#   kill        rank 1 SIGKILLs itself at iteration FAULT_AT
#   sleep       rank 1 sleeps forever at FAULT_AT while rank 0 waits in all_reduce
#   bad_ifname  rank 1 sets NCCL_SOCKET_IFNAME to an interface that does not exist
#   dup_gpu     both ranks on GPU 0 with no NCCL_HOSTID (NCCL refuses a duplicate GPU)
# With one GPU, two ranks share it as two NCCL "hosts" (NCCL_HOSTID per rank) unless CASE is dup_gpu.
# The moment of the fault goes to $FAULT_FILE (epoch ms).
import datetime
import os
import signal
import time

import torch
import torch.distributed as dist

rank = int(os.environ["RANK"])
local = int(os.environ["LOCAL_RANK"])
case = os.environ.get("CASE", "healthy")
iters = int(os.environ.get("ITERS", "200"))
fault_at = int(os.environ.get("FAULT_AT", "50"))


def mark_fault():
    with open(os.environ["FAULT_FILE"], "w") as f:
        f.write(str(int(time.time() * 1000)))


if case != "dup_gpu":
    os.environ["NCCL_HOSTID"] = "ddhost%d" % rank
if case == "bad_ifname" and rank == 1:
    os.environ["NCCL_SOCKET_IFNAME"] = "nonexistent0"
    mark_fault()
if case == "dup_gpu" and rank == 1:
    mark_fault()
dev = torch.device("cuda", local % torch.cuda.device_count())
torch.cuda.set_device(dev)
timeout = datetime.timedelta(seconds=int(os.environ.get("PG_TIMEOUT", "60")))
dist.init_process_group("nccl", timeout=timeout, device_id=dev)
x = torch.ones(4 << 20, device=dev)
for it in range(iters):
    if rank == 1 and it == fault_at and case == "kill":
        mark_fault()
        os.kill(os.getpid(), signal.SIGKILL)
    if rank == 1 and it == fault_at and case == "sleep":
        mark_fault()
        time.sleep(100000)
    dist.all_reduce(x)
    torch.cuda.synchronize()
    if rank == 0:
        print("iter", it, "ok", flush=True)
dist.destroy_process_group()
print("rank", rank, "done", flush=True)
