# Test worker for the hang report: every rank prints once; rank 1 then sleeps forever (the stuck one) while the
# others wait on a pipe that nobody writes (blocked, like a rank waiting in a collective).
import os
import time

print("rank", os.environ["RANK"], "step 1", flush=True)
if os.environ["RANK"] == "1":
    time.sleep(1000)
r, w = os.pipe()
os.read(r, 1)
