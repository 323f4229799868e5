# The training script of the first-run transcript (tools/device/first_run.sh, docs/first-run.md): what a new
# user tries first, a few steps of all_reduce on every GPU with each rank printing its step. FAULT picks what
# goes wrong, on the last rank at step 3:
#   none    every rank runs STEPS steps and exits 0
#   crash   the last rank raises ValueError (a bug in its own code)
#   hang    the last rank sleeps 600 s while the others wait in all_reduce
import datetime
import os
import time

import torch
import torch.distributed as dist

rank = int(os.environ["RANK"])
world = int(os.environ["WORLD_SIZE"])
local = int(os.environ.get("LOCAL_RANK", "0"))
fault = os.environ.get("FAULT", "none")
steps = int(os.environ.get("STEPS", "5"))

dev = torch.device("cuda", local % torch.cuda.device_count())
torch.cuda.set_device(dev)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=60), device_id=dev)
x = torch.ones(1 << 20, device=dev)
for step in range(steps):
    if step == 3 and rank == world - 1:
        if fault == "crash":
            raise ValueError(f"bad batch at step {step}")
        if fault == "hang":
            time.sleep(600)
    dist.all_reduce(x)
    x /= world
    torch.cuda.synchronize()
    print(f"step {step} done, x[0]={x[0].item():.1f}", flush=True)
dist.destroy_process_group()
