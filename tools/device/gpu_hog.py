# Holds most of one GPU's memory, as another user's process would (issue 37's "another process holds the
# GPU"): allocates all free memory of GPU $1 but KEEP_GIB (8) GiB, writes "ready" to $2, then sleeps $3 s.
import sys
import time

import torch

dev = torch.device("cuda", int(sys.argv[1]))
free, total = torch.cuda.mem_get_info(dev)
keep = int(float(__import__("os").environ.get("KEEP_GIB", "8")) * (1 << 30))
hold = torch.empty(max(free - keep, 0), dtype=torch.uint8, device=dev)
with open(sys.argv[2], "w") as f:
    f.write(f"{hold.numel()}\n")
time.sleep(float(sys.argv[3]))
