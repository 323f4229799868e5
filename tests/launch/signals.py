# Test job for the signals `distdoctor launch` passes on (tests/launch_signals_test.sh). Every process writes
# $SIG_DIR/ready.RANK once its handlers are in place ("sched" for MindSpore's scheduler, which has no RANK).
# SIG_MODE: checkpoint (SIGUSR1 writes $SIG_DIR/ckpt.RANK and exits 0, as Lightning's auto-requeue saves on
# Slurm's --signal=USR1@T), record (appends each SIGUSR2 and SIGALRM to $SIG_DIR/got.RANK, exits 0 once it has
# both), stubborn (prints and goes on at SIGTERM and SIGINT), hop (attempt 0: rank 0 leaves a process that
# changes its pid every few ms in a new session each time, for 30 s at most: it calls setsid, writes its pid
# into $SIG_DIR/hop.pid, forks 3 ms later and exits once its grandchild is in a session of its own; once
# hop.pid exists, every rank exits 3. The next attempt waits for $SIG_DIR/go and exits 0).
import os
import signal
import sys
import time

d = os.environ["SIG_DIR"]
rank = os.environ.get("RANK", "sched")
mode = os.environ["SIG_MODE"]


def put(name, text=""):
    with open(os.path.join(d, name + "." + rank), "a") as f:
        f.write(text)


def checkpoint(sig, frame):
    put("ckpt", "saved at SIGUSR1\n")
    print("rank", rank, "saved a checkpoint at SIGUSR1", flush=True)
    sys.exit(0)


got = set()


def record(sig, frame):
    name = signal.Signals(sig).name
    got.add(name)
    put("got", name + "\n")
    if got == {"SIGUSR2", "SIGALRM"}:
        sys.exit(0)


def keep_going(sig, frame):
    print("rank", rank, "got", signal.Signals(sig).name, "and goes on", flush=True)


def hop():
    """A chain of processes, each in a session of its own, each one's pid a few ms old: a process exits only
    once its grandchild is in a session of its own, so ending the oldest one and its group misses the rest."""
    if os.fork() != 0:
        return
    up = None  # the pipe to the parent: b"s" once this one is in its own session, b"g" once its child is
    end = time.time() + 30
    while True:
        os.setsid()
        tell(up, b"s")
        with open(os.path.join(d, "hop.tmp.%d" % os.getpid()), "w") as f:
            f.write(str(os.getpid()))
        os.replace(f.name, os.path.join(d, "hop.pid"))  # a scan of /proc misses a pid that lives a few ms
        time.sleep(0.003)
        if time.time() > end:
            os._exit(0)
        r, w = os.pipe()
        if os.fork() == 0:
            os.close(r)
            up = w
            continue
        os.close(w)
        if os.read(r, 1) == b"s":
            tell(up, b"g")
            os.read(r, 1)
        os._exit(0)


def tell(fd, what):
    try:
        if fd is not None:
            os.write(fd, what)
    except OSError:
        pass  # the parent was killed: carry on


if mode == "checkpoint":
    signal.signal(signal.SIGUSR1, checkpoint)
elif mode == "record":
    signal.signal(signal.SIGUSR2, record)
    signal.signal(signal.SIGALRM, record)
elif mode == "stubborn":
    signal.signal(signal.SIGTERM, keep_going)
    signal.signal(signal.SIGINT, keep_going)
elif mode == "hop" and os.environ.get("TORCHELASTIC_RESTART_COUNT") == "0":
    if rank == "0":
        hop()
    end = time.time() + 20
    while not os.path.exists(os.path.join(d, "hop.pid")) and time.time() < end:
        time.sleep(0.01)  # the hopper is out of the workers' groups
    sys.exit(3)  # the attempt fails: launch stops what it left behind, then starts the next one
put("ready")
end = time.time() + 60
while time.time() < end:
    if mode == "hop" and os.path.exists(os.path.join(d, "go")):
        sys.exit(0)
    time.sleep(0.05)
sys.exit(5)
