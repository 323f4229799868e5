# PyTorch all_reduce loop for issue 36's GPU run: SIGUSR1 (what Slurm's --signal=USR1@T sends) asks every rank
# to save a checkpoint ($CKPT_DIR/rankR.pt) at the next step and exit 0, as Lightning's auto-requeue does.
# CASE=stop instead stops rank 1 with SIGSTOP at step 20 (the others wait in all_reduce).
import os
import signal
import time

import torch
import torch.distributed as dist

rank = int(os.environ["RANK"])
local = int(os.environ["LOCAL_RANK"])
asked = False


def on_usr1(signum, frame):
    global asked
    asked = True


signal.signal(signal.SIGUSR1, on_usr1)
torch.cuda.set_device(local)
dist.init_process_group("nccl")
x = torch.ones(1 << 20, device="cuda")
for step in range(100000):
    if os.environ.get("CASE") == "stop" and rank == 1 and step == 20:
        os.kill(os.getpid(), signal.SIGSTOP)
    flag = torch.tensor([1.0 if asked else 0.0], device="cuda")
    dist.all_reduce(flag)
    if flag.item() > 0:
        torch.save({"step": step}, os.path.join(os.environ["CKPT_DIR"], "rank%d.pt" % rank))
        print("rank %d saved a checkpoint at step %d" % (rank, step), flush=True)
        break
    dist.all_reduce(x)
    time.sleep(0.01)
dist.destroy_process_group()
