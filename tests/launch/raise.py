# Test worker: rank 1 raises after a nested call; the others sleep until stopped.
import os
import sys
import time


def load_batch(shape):
    raise ValueError("bad batch shape %r for rank %s" % (shape, os.environ["RANK"]))


def train():
    load_batch((3, 224))


print("rank", os.environ["RANK"], "training", flush=True)
if os.environ["RANK"] == "1":
    train()
time.sleep(1000)
sys.exit(0)
