#!/bin/bash
# `distdoctor launch` on two network-namespace nodes, started the way a user does it: node 0 alone, then the
# command node 0 prints, pasted on node 1. A healthy job (4 ranks, every rank sees WORLD_SIZE=4 and node 0's
# MASTER_ADDR; node 1's clock offset measured at the join); a job where rank 3 on node 1 exits 5 (both nodes name rank 3 on node 1 as the root cause and
# exit 5); SIGTERM to node 0's launcher (node 1's workers stop too, both exit 143); node 1's launcher killed
# with SIGKILL (node 0 reports the lost node; nothing left on node 1); and the same job under Slurm's variables
# (srun --ntasks-per-node=1: node ranks and meeting point from SLURM_* and MASTER_ADDR, no flags); node 1 started
# with --nnodes 3 against node 0's 2, and node 0 with 3 against node 1's 2 (both name the difference at once and
# exit 3); node 0 started torchrun's
# way, with --node-rank 0 and --master but no token (it makes one and prints the command, as when started
# alone; it used to stop with "no usable job token").
# Needs root; exits 77 (skipped) otherwise.
set -u
BIN=$(realpath "${1:-build/distdoctor}")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/netns_lib.sh"
nl_require
nl_plain_env
unset LOCAL_RANK MASTER_ADDR MASTER_PORT
nl_setup 2 ""
W="$HERE/launch/worker.sh"
LOGS="$NL_DIR/logs"

# start_pair NAME ENV... -- : node 0 starts; its printed command is run on node 1 (with the same ENV; EDIT, a
# sed expression, changes the command first; N0_FLAGS, more flags for node 0; N0_NNODES, node 0's --nnodes).
start_pair() {
  local name=$1 cmd=""
  shift
  nl_start 0 xnode0 ${name}0 -- env "$@" "$BIN" launch --nnodes "${N0_NNODES:-2}" ${N0_FLAGS:-} --nproc-per-node 2 \
    --log-dir "$LOGS" --job-id "$name" --timeout 30 --grace 1 -- sh "$W"
  for _ in $(seq 100); do
    cmd=$(grep -m1 '^  DISTDOCTOR_TOKEN=' "$NL_DIR/${name}0.err" 2>/dev/null) && break
    sleep 0.1
  done
  [ -n "$cmd" ] || { echo "FAIL: node 0 printed no command"; cat "$NL_DIR/${name}0.err"; exit 1; }
  echo "info: node 0 printed: $cmd"
  # The command fetches the token file from node 0 over ssh; the namespaces have no ssh but share node 0's
  # files, so the file is read where it is, as if copied.
  cmd=$(sed -E 's/\$\(ssh [^ ]+ cat /$(cat /' <<<"$cmd")
  [ -n "${EDIT:-}" ] && cmd=$(sed "$EDIT" <<<"$cmd")
  nl_start 1 xnode1 ${name}1 -- env "$@" sh -c "$cmd"
}

start_pair ok OTHERS_ACTION=ok
nl_wait_nodes 40 ok0 ok1
for i in 0 1; do
  [ "$(nl_rc ok$i)" = 0 ] || { echo "FAIL: healthy job, node $i exit $(nl_rc ok$i)"; nl_out ok$i; cat "$NL_DIR/ok$i.err"; exit 1; }
  expect ok$i "launch.job.ok"
done
grep -q "worker rank 3 of 4 starting" "$LOGS/ok/0/node1.rank3.log" || { echo "FAIL: rank 3's log"; exit 1; }
echo "ok: the pasted command joined node 1; 4 ranks on 2 nodes exited 0"
# Each node's terminal shows its own ranks (every one, the default), prefixed with the global rank.
grep -qF "[rank3]: worker rank 3 of 4 starting" "$NL_DIR/ok1.out" && grep -qF "[rank2]: worker rank 2 of 4" "$NL_DIR/ok1.out" &&
  grep -qF "[rank1]: worker rank 1 of 4" "$NL_DIR/ok0.out" && ! grep -qF "[rank2]" "$NL_DIR/ok0.out" &&
  echo "ok: each node shows its ranks, prefixed [rankN]: with the global rank" ||
  { echo "FAIL: the nodes' terminal lines"; nl_out ok0; nl_out ok1; exit 1; }
# Each node's clock against node 0's, measured through the store at the join (one host: 0 within the error).
python3 - "$LOGS/ok/0/attempt.json" <<'PY' || { echo "FAIL: no clock offsets in the attempt record"; exit 1; }
import json, sys
c = json.load(open(sys.argv[1]))["record"]["clock_offsets"]
assert len(c) == 2 and c[0] == [0.0, 0.0] and len(c[1]) == 2, c
assert abs(c[1][0]) <= c[1][1] + 1 and c[1][1] < 50, c
print("ok: clock offsets measured at the join:", c)
PY

N0_FLAGS="--node-rank 0 --master 198.18.0.1:29411" start_pair tr OTHERS_ACTION=ok
nl_wait_nodes 40 tr0 tr1
for i in 0 1; do
  [ "$(nl_rc tr$i)" = 0 ] || { echo "FAIL: torchrun-style node 0, node $i exit $(nl_rc tr$i)"; nl_out tr$i; cat "$NL_DIR/tr$i.err"; exit 1; }
done
grep -q -- "--master 198.18.0.1:29411" "$NL_DIR/tr0.err" || { echo "FAIL: node 0 did not print its --master"; exit 1; }
echo "ok: node 0 with --node-rank 0 --master and no token made one, printed the command; both exited 0"

start_pair f WORKER_RANK=3 WORKER_ACTION=exit:5
nl_wait_nodes 40 f0 f1
for i in 0 1; do
  [ "$(nl_rc f$i)" = 4 ] || { echo "FAIL: node $i exit $(nl_rc f$i), want 4 (the job failed)"; nl_out f$i; cat "$NL_DIR/f$i.err"; exit 1; }
  expect f$i "launch.rank.failed"
  expect f$i "rank 3"
  expect f$i "xnode1"
done
echo "ok: rank 3 on node 1 exited 5; both nodes name it and exit 5"

start_pair k DD_LAUNCH_TEST_MARK=k$$ OTHERS_ACTION=sleep
for _ in $(seq 100); do [ -s "$LOGS/k/0/node1.rank3.log" ] && break; sleep 0.1; done
sleep 1
KILLED=$SECONDS
# Node 1's launcher: the pasted command runs under sh -c, so kill the distdoctor process itself.
for p in $(ip netns pids "${NL_ID}n1"); do
  tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q "distdoctor launch --nnodes 2 --node-rank 1" && kill -9 "$p"
done
nl_wait_nodes 30 k0
took=$((SECONDS - KILLED))
expect k0 "launch.node.lost"
[ "$(nl_rc k0)" = 2 ] || { echo "FAIL: node 0 exit $(nl_rc k0) after losing node 1, want 2"; nl_out k0; exit 1; }
sleep 0.5
left=0
for p in $(ip netns pids "${NL_ID}n1"); do grep -qs "DD_LAUNCH_TEST_MARK=k$$" "/proc/$p/environ" && left=$((left + 1)); done
[ $left = 0 ] || { echo "FAIL: $left workers of node 1 outlived its launcher"; exit 1; }
echo "ok: node 1's launcher killed; node 0 reported the lost node in $took s; nothing left on node 1"

start_pair t DD_LAUNCH_TEST_MARK=t$$ OTHERS_ACTION=sleep
for _ in $(seq 100); do [ -s "$LOGS/t/0/node1.rank3.log" ] && break; sleep 0.1; done
kill -TERM "$(cat "$NL_DIR/t0.rc.pid")"
nl_wait_nodes 20 t0 t1
for i in 0 1; do
  [ "$(nl_rc t$i)" = 143 ] || { echo "FAIL: SIGTERM: node $i exit $(nl_rc t$i), want 143"; nl_out t$i; exit 1; }
  expect t$i "launch.interrupted"
done
left=0
for p in $(ip netns pids "${NL_ID}n1"); do grep -qs "DD_LAUNCH_TEST_MARK=t$$" "/proc/$p/environ" && left=$((left + 1)); done
[ $left = 0 ] || { echo "FAIL: $left processes left on node 1 after SIGTERM to node 0's launcher"; exit 1; }
echo "ok: SIGTERM to node 0's launcher stopped the workers of both nodes (exit 143 on both)"

EDIT='s/--nnodes 2/--nnodes 3/' start_pair n OTHERS_ACTION=ok
started=$SECONDS
nl_wait_nodes 20 n0 n1
took=$((SECONDS - started))
for i in 0 1; do
  [ "$(nl_rc n$i)" = 3 ] || { echo "FAIL: --nnodes 3 vs 2: node $i exit $(nl_rc n$i), want 3"; nl_out n$i; exit 1; }
  expect n$i "launch.join.nnodes_differ"
done
expect n0 "xnode1. was started with --nnodes 3, this node .rank 0. with --nnodes 2"
expect n1 "node rank 0 was started with --nnodes 2, this node .rank 1. with --nnodes 3"
[ $took -le 5 ] && echo "ok: node 1 started with --nnodes 3: both nodes name the difference within $took s" ||
  { echo "FAIL: --nnodes mismatch took $took s"; exit 1; }

# The other way round: node 0 expects 3 nodes, node 1 was given 2. Node 0 reads node 1's hello as it arrives and
# stops waiting for a node rank 2 that node 1 never expects (it used to wait out its whole --timeout).
N0_NNODES=3 EDIT='s/--nnodes 3/--nnodes 2/' start_pair m OTHERS_ACTION=ok
started=$SECONDS
nl_wait_nodes 20 m0 m1
took=$((SECONDS - started))
for i in 0 1; do
  [ "$(nl_rc m$i)" = 3 ] || { echo "FAIL: --nnodes 2 vs 3: node $i exit $(nl_rc m$i), want 3"; nl_out m$i; exit 1; }
  expect m$i "launch.join.nnodes_differ"
done
expect m0 "xnode1. was started with --nnodes 2, this node .rank 0. with --nnodes 3"
expect m1 "node rank 0 was started with --nnodes 3, this node .rank 1. with --nnodes 2"
[ $took -le 5 ] && echo "ok: node 0 started with --nnodes 3: both nodes name the difference within $took s" ||
  { echo "FAIL: --nnodes mismatch (node 0 with 3) took $took s"; exit 1; }

for i in 0 1; do
  nl_start $i xnode$i s$i -- env SLURM_PROCID=$i SLURM_STEP_ID=0 SLURM_NTASKS=2 SLURM_NNODES=2 SLURM_LOCALID=0 \
    SLURM_NTASKS_PER_NODE=1 SLURM_NODEID=$i SLURM_JOB_ID=4242 SLURM_NODELIST='xnode[0-1]' MASTER_ADDR=198.18.0.1 \
    "$BIN" launch --nproc-per-node 2 --log-dir "$LOGS" --timeout 30 -- sh "$W"
done
nl_wait_nodes 40 s0 s1
for i in 0 1; do
  [ "$(nl_rc s$i)" = 0 ] || { echo "FAIL: Slurm: node $i exit $(nl_rc s$i)"; nl_out s$i; cat "$NL_DIR/s$i.err"; exit 1; }
done
grep -q "worker rank 3 of 4 starting" "$LOGS"/4242*/0/node1.rank3.log || { echo "FAIL: Slurm: no rank 3 log"; exit 1; }
echo "ok: under Slurm's variables the two nodes met with no flags and ran 4 ranks"
