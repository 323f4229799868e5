# Runs the same PyTorch job (launch_train.py) under `distdoctor launch` and under torchrun for each fault case and
# records, per run: exit code, time from the fault to the launcher's report and to the last process gone, and
# what the report says. Usage: [NPROC=4] python3 launch_compare.py DISTDOCTOR OUTDIR [CASE...] (NPROC ranks,
# default 2; dup_gpu needs one GPU for two ranks).
import json
import os
import subprocess
import sys
import threading
import time

DD, OUT = sys.argv[1], sys.argv[2]
CASES = sys.argv[3:] or ["healthy", "kill", "sleep", "bad_ifname", "dup_gpu"]
HERE = os.path.dirname(os.path.abspath(__file__))
NPROC = os.environ.get("NPROC", "2")
TRAIN = os.path.join(HERE, "launch_train.py")
REPORT_START = {"distdoctor": "distdoctor launch", "torchrun": "ChildFailedError"}


def marked_pids(mark):
    pids = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % p, "rb") as f:
                if ("DD_CMP_MARK=%s" % mark).encode() in f.read():
                    pids.append(int(p))
        except OSError:
            pass
    return pids


def run(launcher, case):
    mark = "%s-%s-%d" % (launcher, case, os.getpid())
    fault_file = os.path.join(OUT, "fault.%s.%s" % (launcher, case))
    env = dict(os.environ, CASE=case, FAULT_FILE=fault_file, DD_CMP_MARK=mark, NCCL_SOCKET_IFNAME="lo",
               PG_TIMEOUT="60", NCCL_DEBUG="WARN")
    if launcher == "distdoctor":
        cmd = [DD, "launch", "--nproc-per-node", NPROC, "--log-dir", os.path.join(OUT, "logs"), "--job-id", case,
               "--hang-timeout", "10", "--grace", "5"]
        if case != "dup_gpu":
            cmd.append("--no-preflight")  # two ranks on one GPU on purpose (NCCL_HOSTID)
        cmd += ["--", sys.executable, TRAIN]
    else:
        cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", NPROC, TRAIN]
    lines = []
    t0 = time.time()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")

    def reader():
        for line in p.stdout:
            lines.append((time.time(), line.rstrip("\n")))

    th = threading.Thread(target=reader)
    th.start()
    try:
        rc = p.wait(timeout=240)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = "timeout"
    t_exit = time.time()
    th.join()
    while marked_pids(mark) and time.time() - t_exit < 30:
        time.sleep(0.05)
    t_gone = time.time()
    left = len(marked_pids(mark))
    fault = None
    if os.path.exists(fault_file):
        fault = int(open(fault_file).read()) / 1000.0
    t_report = next((t for t, l in lines if REPORT_START[launcher] in l), None)
    ref = fault if fault else t0
    with open(os.path.join(OUT, "out.%s.%s.txt" % (launcher, case)), "w") as f:
        f.write("\n".join(l for _, l in lines) + "\n")
    return {"launcher": launcher, "case": case, "rc": rc, "wall_s": round(t_exit - t0, 2),
            "fault_to_report_s": round(t_report - ref, 2) if t_report and fault else None,
            "fault_to_last_process_gone_s": round(t_gone - ref, 2) if fault else None,
            "processes_left": left, "report_tail": [l for _, l in lines][-40:]}


os.makedirs(OUT, exist_ok=True)
results = []
for case in CASES:
    for launcher in ("distdoctor", "torchrun"):
        r = run(launcher, case)
        results.append(r)
        print("%-10s %-10s rc=%-4s wall %6.2f s  fault->report %s s  fault->gone %s s  left %d" % (
            case, launcher, r["rc"], r["wall_s"], r["fault_to_report_s"], r["fault_to_last_process_gone_s"],
            r["processes_left"]), flush=True)
with open(os.path.join(OUT, "launch_compare.json"), "w") as f:
    json.dump(results, f, indent=1)
