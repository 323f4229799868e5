# Stand-in for a MindSpore script under `distdoctor launch --mindspore`: checks the variables msrun would set
# (fails with a message when one is missing or wrong) and plays MindSpore's roles. MS_ROLE=MS_SCHED: listens
# on MS_SCHED_HOST:MS_SCHED_PORT until MS_WORKER_NUM workers said "done", then exits 0 (as init() does in
# MindSpore's scheduler); STANDIN_SCHED_EXIT=N makes it exit N at once instead. MS_ROLE=MS_WORKER: connects to
# the scheduler (retrying until MS_TOPO_TIMEOUT, like init()) and says "done RANK_ID". EXPECT_WORKERS and
# EXPECT_TOPO give the values the test expects.
import os
import socket
import sys
import time

env = os.environ


def fail(msg):
    print("stand-in %s: %s" % (env.get("MS_ROLE", "(no MS_ROLE)"), msg), flush=True)
    sys.exit(1)


def want(name, value):
    got = env.get(name)
    if got != value:
        fail("%s=%r, want %r" % (name, got, value))


role = env.get("MS_ROLE")
if role not in ("MS_WORKER", "MS_SCHED"):
    fail("MS_ROLE is %r" % role)
want("MS_WORKER_NUM", env["EXPECT_WORKERS"])
want("RANK_SIZE", env["EXPECT_WORKERS"])
want("MS_SCHED_HOST", "127.0.0.1")
want("MS_TOPO_TIMEOUT", env["EXPECT_TOPO"])
port = int(env.get("MS_SCHED_PORT", "0"))
if not 0 < port < 65536:
    fail("MS_SCHED_PORT is %r" % env.get("MS_SCHED_PORT"))
workers = int(env["EXPECT_WORKERS"])
deadline = time.time() + min(int(env["EXPECT_TOPO"]), 60)

if role == "MS_SCHED":
    want("RANK_ID", "0")
    for name in ("MS_NODE_ID", "RANK", "LOCAL_RANK"):  # not a rank: none of the workers' names
        if name in env:
            fail("%s is set (%r) in the scheduler" % (name, env[name]))
    if env.get("STANDIN_SCHED_EXIT"):
        print("scheduler: giving up before the workers joined", flush=True)
        sys.exit(int(env["STANDIN_SCHED_EXIT"]))
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((env["MS_SCHED_HOST"], port))
    srv.listen(64)
    print("scheduler: listening on %s:%d for %d workers" % (env["MS_SCHED_HOST"], port, workers), flush=True)
    done = set()
    while len(done) < workers:
        srv.settimeout(max(0.1, deadline - time.time()))
        try:
            conn, _ = srv.accept()
        except socket.timeout:
            fail("Topology build timed out: %d of %d workers" % (len(done), workers))
        with conn:
            conn.settimeout(5)
            line = conn.makefile().readline().split()
            if len(line) == 2 and line[0] == "done":
                done.add(line[1])
    print("scheduler: all %d workers done (%s)" % (workers, ",".join(sorted(done))), flush=True)
    sys.exit(0)

rank = env.get("RANK")
want("MS_NODE_ID", rank)
want("RANK_ID", rank)
while True:
    try:
        s = socket.create_connection((env["MS_SCHED_HOST"], port), timeout=1)
        break
    except OSError:
        if time.time() > deadline:
            fail("Topology build timed out: no scheduler at %s:%d" % (env["MS_SCHED_HOST"], port))
        time.sleep(0.1)
with s:
    s.sendall(("done %s\n" % rank).encode())
print("worker %s: joined the scheduler and is done" % rank, flush=True)
