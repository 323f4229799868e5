#!/bin/bash
# Cross-node pass with a node killed mid-collective: three network-namespace nodes (Gloo); as soon as node 2's
# collective workers run, every process of node 2 is killed (SIGKILL). Nodes 0 and 1 must end within seconds,
# both printing the leader's verdict that names node 2 (host, node rank and ranks) as the node that stopped.
# Node 2's link is shaped (tc tbf) so that its collectives last long enough to be cut in the middle.
# Needs root; exits 77 (skipped) otherwise.
set -u
BIN=$(realpath "${1:-build/distdoctor}")
. "$(dirname "$0")/netns_lib.sh"
nl_require
nl_plain_env
nl_setup 3 ""
N2="${NL_ID}n2"
ip netns exec "$N2" tc qdisc add dev eth0 root tbf rate 20mbit burst 32kbit latency 400ms 2>/dev/null
PORT=$((30000 + RANDOM % 20000))
nl_start_check_nodes 3 "$PORT" --collectives --timeout 30
# Node 2's collective workers are the processes running `bench --as-worker` in its namespace.
workers() { for p in $(ip netns pids "$N2"); do grep -q -- --as-worker "/proc/$p/cmdline" 2>/dev/null && return 0; done; return 1; }
seen=0
for _ in $(seq 300); do workers && { seen=1; break; }; sleep 0.05; done
[ $seen = 1 ] || { echo "FAIL: node 2 never started its collective workers"; cat "$NL_DIR"/n*.out; exit 1; }
sleep 0.3
# Each phase (warmup, verify, bandwidth) starts its own workers: if this moment falls between two phases,
# wait for the next phase's workers, so the kill always lands mid-collective.
for _ in $(seq 60); do workers && break; sleep 0.05; done
KILLED=$SECONDS
for p in $(ip netns pids "$N2"); do kill -9 "$p" 2>/dev/null; done
{ wait "$NL_PID_n2"; } 2>/dev/null
nl_wait_nodes 30 n0 n1
took=$((SECONDS - KILLED))
for i in 0 1; do
  expect n$i "xnode2\(2\) \(ranks 4-5\) stopped answering during the cross-node (warmup|verify|bandwidth) phase"
  expect n$i "cluster.collectives.node_silent"
  expect n$i "verdict: fail"
done
[ "$(nl_rc n0)" = 2 ] || { echo "FAIL: node 0 exit code $(nl_rc n0), want 2 (fail)"; exit 1; }
# DD_TIME_SCALE: set by the sanitizer runs (scripts/sanitizers/run.sh), where every process is several times slower.
limit=$((8 * ${DD_TIME_SCALE:-1}))
[ $took -le $limit ] || { echo "FAIL: the survivors took $took s after the kill (limit $limit s)"; exit 1; }
echo "ok: node 2 killed mid-collective, named on nodes 0 and 1 within $took s"
