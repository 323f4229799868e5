# Stand-in worker for launch's live straggler check (tests/launch_straggler_test.sh), with the stand-in torch of
# tests/launch/faketorch: STEPS steps; in each, every rank issues one "collective" (recorded with its time, as
# the Flight Recorder keeps time_created_ns) and waits until every rank has issued it (files in SYNC_DIR), as a
# collective makes the ranks wait for the last one. Rank SLOW_RANK sleeps SLOW_S before issuing (none: -1).
import os
import time

import torch
import torch.distributed  # noqa: F401  (the hook dumps only where torch.distributed is in use)

rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
sync = os.environ["SYNC_DIR"]
slow_rank = int(os.environ.get("SLOW_RANK", "1"))
slow_s = float(os.environ.get("SLOW_S", "0.1"))
for step in range(int(os.environ.get("STEPS", "60"))):
    if rank == slow_rank:
        time.sleep(slow_s)
    torch.record_collective(step)
    open(os.path.join(sync, f"r{rank}.{step}"), "w").close()
    deadline = time.time() + 30
    while not all(os.path.exists(os.path.join(sync, f"r{r}.{step}")) for r in range(world)):
        if time.time() > deadline:
            raise SystemExit(f"rank {rank}: the others never issued step {step}")
        time.sleep(0.002)
    time.sleep(0.01)  # the step's own work
print(f"rank {rank} done", flush=True)
