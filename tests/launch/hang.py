# Test worker for the hang report: every rank prints once; rank 1 then sleeps forever (the stuck one) while the
# others spin on the CPU, as ranks waiting for it inside a collective do (NCCL busy-waits).
import os
import time

print("rank", os.environ["RANK"], "step 1", flush=True)
if os.environ["RANK"] == "1":
    time.sleep(1000)
while True:
    pass
