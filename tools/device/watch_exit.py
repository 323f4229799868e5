# Follows one process as it ends: waits for FAULT_FILE, finds the process whose environment holds RANK=R and
# CASE=kill, then samples /proc/PID/stat every 20 ms until it is gone. Prints how long it stayed with its
# main thread ending (PF_EXITING or Z), the states seen and stat field 52 (the exit status then).
# Usage: python3 watch_exit.py FAULT_FILE RANK [TIMEOUT_S]
import os
import sys
import time

fault, rank = sys.argv[1], sys.argv[2]
limit = time.time() + float(sys.argv[3] if len(sys.argv) > 3 else 60)


def find_pid():
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            env = open("/proc/%s/environ" % d, "rb").read().split(b"\0")
        except OSError:
            continue
        if b"RANK=" + rank.encode() in env and b"CASE=kill" in env and b"LOCAL_RANK=" + rank.encode() in env:
            return d
    return None


pid = None
while time.time() < limit and pid is None:
    pid = find_pid()
    time.sleep(0.05)
if pid is None:
    sys.exit("watch_exit: no process for rank %s" % rank)
while time.time() < limit and not os.path.exists(fault):
    time.sleep(0.01)
t0, seen, first_ending = time.time(), [], None
while time.time() < limit:
    try:
        stat = open("/proc/%s/stat" % pid).read()
    except OSError:
        break
    f = stat[stat.rfind(")") + 2:].split()
    state, flags, code = f[0], int(f[6]), (f[49] if len(f) > 49 else "?")
    ending = state in "ZX" or flags & 4
    if ending and first_ending is None:
        first_ending = time.time()
    key = "%s%s field52=%s" % (state, " PF_EXITING" if flags & 4 else "", code)
    if not seen or seen[-1][0] != key:
        seen.append((key, time.time() - t0))
    time.sleep(0.02)
gone = time.time()
print("rank %s pid %s: %s; gone %.2f s after the fault, ending for %.2f s" % (
    rank, pid, ", ".join("%s at %.2f s" % s for s in seen), gone - t0,
    gone - first_ending if first_ending else 0))
