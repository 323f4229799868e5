#!/bin/bash
# Fault-matrix cells of `check --nnodes 2 --collectives` (Gloo, 2 ranks per node) during the cross-node
# collectives. Usage: cell_coll.sh BIN coll FAULT. Node 1's link is shaped (tc tbf) so that the pass lasts
# long enough; the fault strikes once node 1's collective workers (bench --as-worker) run.
BIN=$(realpath "$1")
FAULT=$3
. "$(dirname "$0")/lib.sh"
T=40
D=25  # seconds from the fault to the end of every survivor
fm_init 2
ip netns exec "${NL_ID}n1" tc qdisc add dev eth0 root tbf rate 20mbit burst 32kbit latency 400ms
args=(check --nnodes 2 --master "$M" --token tok --timeout $T --collectives --init-timeout 10)
fm_start 0 n0 "$BIN" "${args[@]}" --node-rank 0
until_ok 20 listening 0 "$PORT" || fm_fail "the master never listened"
fm_start 1 n1 "$BIN" "${args[@]}" --node-rank 1
until_ok 30 has_workers 1 || fm_fail "node 1 never started its collective workers"
sleep 0.3
t0=$(now)
case $FAULT in
  kill | stop | link_down | netem | garbage | oversized) fm_inject "$FAULT" 1 ;;
  master_kill) fm_inject kill 0 ;;
  self_kill) fm_inject self_kill 1 n1 ;;
esac
NAMED="xnode1\(1\) \(ranks 2-3\)"
case $FAULT in
  kill | self_kill)
    fm_wait_all $D "$t0" n0 && fm_expect n0 2 "$NAMED (stopped answering|.*failed|.*stuck)"
    FINDING="master: cluster.collectives.node_silent naming xnode1(1), ranks 2-3" ;;
  link_down)
    fm_wait_all $D "$t0" n0 && fm_wait_all 45 "$t0" n1 && fm_expect n0 2 "$NAMED" && fm_expect n1 2 "198.18.0.1:$PORT|master|xnode0"
    FINDING="master: xnode1(1) ranks 2-3 lost; node 1: the master lost" ;;
  stop)
    fm_wait_all $D "$t0" n0 && fm_expect n0 2 "$NAMED"
    fm_resume 1
    fm_wait_all 15 "$(now)" n1
    FINDING="master: xnode1(1) ranks 2-3 stopped answering; node 1 ends after SIGCONT" ;;
  master_kill)
    fm_wait_all $D "$t0" n1 && fm_expect n1 2 "lost the master 198.18.0.1:$PORT|no answer from the master|xnode0\(0\)"
    FINDING="node 1: the master (xnode0) lost" ;;
  netem)
    fm_wait_all 85 "$t0" n0 n1 && fm_expect n0 "0|1|2" "verdict: " && fm_expect n1 "0|1|2" "verdict: "
    FINDING="a verdict on both nodes within the deadline (no internal error)" ;;
  garbage | oversized)
    fm_wait_all $((T + 20)) "$t0" n0 n1 && fm_expect n0 "0|1" "cluster.collectives.ok"
    fm_junk_done
    FINDING="the store drops the junk client; collectives verified" ;;
esac
[ -n "${FM_SHOW:-}" ] && cat "$NL_DIR"/*.out >&2
fm_no_orphans
fm_finish "$FINDING"
