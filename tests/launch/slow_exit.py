# Test worker for a rank that fails while its process is still ending: rank 1's main thread ends with status 7
# (the exit system call of that thread alone) while another thread keeps the process alive for 60 s, so
# waitpid cannot reap it. A SIGKILLed CUDA process looks so for seconds while the driver frees its memory.
# The other ranks wait, as ranks blocked in a collective with it would.
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
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall(SYS_EXIT, 7)  # ends this thread only; ctypes has released the GIL
