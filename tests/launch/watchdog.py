# Test worker for launch's hang triggers and stack hook, without a GPU. CASE picks what it does:
#   desync  every rank prints PyTorch's watchdog timeout line (2.11 wording) after a second, rank 3 for a
#           BROADCAST where the others have an ALLREDUCE at SeqNum 7; then every rank spins
#   spin    no output at all after the first line; every rank spins, rank 2 in another function
#   echo    like spin, but every rank prints PyTorch's "preparing to dump debug info" line every 0.3 s (what a
#           dump request makes it print): no progress, so the job is still silent
#   stop    rank 1 stops itself (SIGSTOP: state T) after its first line; the others wait, idle (as ranks blocked
#           in a Gloo collective do)
# It also prints which of launch's variables it got and whether a user's sitecustomize ran.
import os
import signal
import sys
import time

rank = int(os.environ["RANK"])
case = os.environ.get("CASE", "desync")
print(f"rank {rank} up; FR={os.environ.get('TORCH_FR_BUFFER_SIZE', '-')} "
      f"stack_file={'DISTDOCTOR_STACK_FILE' in os.environ} user_site={getattr(sys, '_user_site_ran', False)}",
      flush=True)


def spin_elsewhere():
    while True:
        pass


if case == "desync":
    time.sleep(1)
    op = "BROADCAST" if rank == 3 else "ALLREDUCE"
    print(f"[rank{rank}]:[E1127 00:28:17.968229302 ProcessGroupNCCL.cpp:689] [Rank {rank}] Watchdog caught "
          f"collective operation timeout: WorkNCCL(SeqNum=7, OpType={op}, NumelIn=1048576, NumelOut=1048576, "
          f"Timeout(ms)=10000) ran for 10051 milliseconds before timing out.", file=sys.stderr, flush=True)
if case == "echo":
    while True:
        print(f"[rank{rank}]:[E1127 02:15:02.577619168 ProcessGroupNCCL.cpp:1628] [PG ID 0 PG GUID 0(default_pg) "
              f"Rank {rank}] ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1, only active "
              "collectives: 0", file=sys.stderr, flush=True)
        time.sleep(0.3)
if case == "spin" and rank == 2:
    spin_elsewhere()
if case == "stop":
    if rank == 1:
        os.kill(os.getpid(), signal.SIGSTOP)
    while True:
        time.sleep(1)
while True:
    pass
