# Test worker for a rank that fails while its process is still ending: rank 1's main thread ends with status 7
# (the exit system call of that thread alone) while another thread keeps the process alive for 60 s, so
# waitpid cannot reap it. A SIGKILLed CUDA process looks so for seconds while the driver frees its memory.
# The other ranks wait, as ranks blocked in a collective with it would. With WITNESS=1 rank 1 first prints
# PyTorch's watchdog timeout and ends with status 134, as a rank the watchdog aborts after a hang elsewhere.
import ctypes
import os
import platform
import threading
import time

print("rank", os.environ["RANK"], "step 1", flush=True)
if os.environ["RANK"] != "1":
    time.sleep(60)
    raise SystemExit(0)
SYS_EXIT = {"x86_64": 60, "aarch64": 93}.get(platform.machine())
if SYS_EXIT is None:
    raise SystemExit("slow_exit.py: no exit system call number known for " + platform.machine())
threading.Thread(target=lambda: (time.sleep(60), os._exit(0)), daemon=True).start()
status = 7
if os.environ.get("WITNESS") == "1":
    print("[rank1]:[E1127 22:51:16.704267510 ProcessGroupNCCL.cpp:685] [Rank 1] Watchdog caught collective "
          "operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran "
          "for 600010 milliseconds before timing out.", flush=True)
    status = 134
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall(SYS_EXIT, status)  # ends this thread only; ctypes has released the GIL
