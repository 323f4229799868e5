# Test worker for an interrupted launch: rank 0 prints and exits 0; rank 1 waits until launch has reaped
# rank 0 (its pid gone from /proc: a zombie stays until then), says so in $INTR_DIR/ready and sleeps inside
# wait_for_peer, the function the report's stack must name.
import os
import sys
import time

d = os.environ["INTR_DIR"]
if os.environ["RANK"] == "0":
    print("rank 0 starts", flush=True)
    with open(os.path.join(d, "pid0.tmp"), "w") as f:
        f.write(str(os.getpid()))
    os.rename(os.path.join(d, "pid0.tmp"), os.path.join(d, "pid0"))
    sys.exit(0)


def wait_for_peer():
    pid_file = os.path.join(d, "pid0")
    for _ in range(600):
        if os.path.exists(pid_file) and not os.path.exists("/proc/" + open(pid_file).read()):
            break
        time.sleep(0.05)
    open(os.path.join(d, "ready"), "w").close()
    time.sleep(1000)


wait_for_peer()
