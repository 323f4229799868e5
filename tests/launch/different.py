# Test worker for the rank that is different (issue 37), without a GPU: every rank prints a step; then, by
# CASE, rank 1 exits 0 while the others wait forever ("exit0"), or every rank finishes after a moment
# ("healthy": the per-rank environment, from tests/../tools/device/rank_env.sh, is what differs).
import os
import sys
import time

rank = os.environ["RANK"]
print("rank", rank, "step 1", flush=True)
case = os.environ.get("CASE", "healthy")
if case == "exit0":
    if rank == "1":
        print("rank 1 leaves early", flush=True)
        sys.exit(0)
    time.sleep(1000)  # waits for rank 1, as in a collective it will never enter
time.sleep(2)  # long enough for launch to read every rank's environment
print("rank", rank, "done", flush=True)
