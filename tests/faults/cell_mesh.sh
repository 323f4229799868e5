#!/bin/bash
# Fault-matrix cells of `check --nnodes 2 --mesh-bandwidth` during the TCP mesh test. Usage: cell_mesh.sh BIN
# mesh FAULT. Node 1's link is shaped (tc tbf, 10 Mbit/s) so that its 4 MiB bandwidth probe lasts seconds;
# the fault strikes once node 1 holds a mesh connection (an established TCP connection off the store port).
BIN=$(realpath "$1")
FAULT=$3
. "$(dirname "$0")/lib.sh"
T=15
fm_init 2
ip netns exec "${NL_ID}n1" tc qdisc add dev eth0 root tbf rate 10mbit burst 32kbit latency 400ms
in_mesh() { ip netns exec "${NL_ID}n1" ss -Htn state established | grep -vq ":$PORT\b"; }
args=(check --nnodes 2 --master "$M" --token tok --timeout $T --mesh-bandwidth)
fm_start 0 n0 "$BIN" "${args[@]}" --node-rank 0
until_ok 20 listening 0 "$PORT" || fm_fail "the master never listened"
fm_start 1 n1 "$BIN" "${args[@]}" --node-rank 1
until_ok 15 in_mesh || fm_fail "node 1 never started its mesh probes"
sleep 0.3
t0=$(now)
case $FAULT in
  kill | stop | link_down | netem) fm_inject "$FAULT" 1 ;;
  master_kill) fm_inject kill 0 ;;
  garbage | oversized) fm_inject "$FAULT" 1 ;;
esac
case $FAULT in
  kill)
    fm_wait_all $((T + 8)) "$t0" n0 && fm_expect n0 2 "xnode1\(1\).*(lost|died|left|closed)"
    FINDING="master: node 1 (xnode1) lost during the mesh" ;;
  link_down)
    fm_wait_all $((T + 8)) "$t0" n0 n1 && fm_expect n0 2 "no mesh results from ranks 1|xnode1\(1\)" &&
      fm_expect n1 2 "lost the master 198.18.0.1:$PORT|no answer from the master"
    FINDING="master: cluster.mesh.incomplete (rank 1); node 1: the master lost" ;;
  stop)
    fm_wait_all $((T + 8)) "$t0" n0 && fm_expect n0 2 "no mesh results from ranks ([0-9,]*,)?1 before the deadline"
    fm_resume 1
    fm_wait_all 10 "$(now)" n1
    FINDING="master: cluster.mesh.incomplete naming rank 1" ;;
  master_kill)
    fm_wait_all $((T + 8)) "$t0" n1 && fm_expect n1 2 "lost the master 198.18.0.1:$PORT|no answer from the master"
    FINDING="node 1: cluster.join.master_lost" ;;
  netem)
    fm_wait_all $((T + 8)) "$t0" n0 n1 && fm_expect n0 "0|1|2" "verdict: " && fm_expect n1 "0|1|2" "verdict: "
    FINDING="a verdict on both nodes (no internal error)" ;;
  garbage | oversized)
    fm_wait_all $((T + 8)) "$t0" n0 n1 && fm_expect n0 "0|1" "verdict: (pass|warn)"
    fm_junk_done
    FINDING="the store drops the junk client; the job passes" ;;
esac
[ -n "${FM_SHOW:-}" ] && cat "$NL_DIR"/*.out >&2
fm_no_orphans
fm_finish "$FINDING"
