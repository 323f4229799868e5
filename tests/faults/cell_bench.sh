#!/bin/bash
# Fault-matrix cells of `bench --engine gloo` across 2 nodes (one rank each, node 0 serves the embedded TCP
# store, as tests/comm_gloo_two_nodes_test.sh). Usage: cell_bench.sh BIN bench FAULT. Node 1's link is shaped
# (tc tbf) so that the sweep lasts; run-time faults strike once node 1's worker (bench --as-worker) runs.
BIN=$(realpath "$1")
FAULT=$3
. "$(dirname "$0")/lib.sh"
D=25  # seconds from the fault to the end of every survivor
fm_init 2
ip netns exec "${NL_ID}n1" tc qdisc add dev eth0 root tbf rate 20mbit burst 32kbit latency 400ms
bench() {
  local node=$1 name=$2 token=$3 store=$4
  shift 4
  fm_start "$node" "$name" DD_STORE_TOKEN="$token" "$BIN" bench --engine gloo --nproc 1 --world 2 \
    -c all_reduce -b 64K -e 1M -f 4 -n 3 -w 1 --gloo-iface eth0 --store "tcp://$store" --init-timeout 8 \
    --first-rank "$node" "$@"
}

case $FAULT in
  port_in_use)
    hold_port || fm_fail "could not hold the port"
    t0=$(now)
    bench 0 n0 tok "$M" --store-master
    fm_wait_all 10 "$t0" n0 && fm_expect n0 "2|3" "$PORT.*(in use|already)|(in use|already).*$PORT"
    FINDING="node 0: the store's port is in use" ;;
  bad_master | conn_refused)
    t0=$(now)
    [ "$FAULT" = bad_master ] && bench 1 n1 tok "no-such-host.invalid:$PORT" || bench 1 n1 tok "$M"
    fm_wait_all 15 "$t0" n1 && fm_expect n1 "2|3" "cannot reach the store.*(no-such-host.invalid|198.18.0.1:$PORT)"
    FINDING="node 1: cannot reach the store (names it)" ;;
  wrong_token)
    bench 0 n0 tok "$M" --store-master
    until_ok 10 listening 0 "$PORT" || fm_fail "the store never listened"
    t0=$(now)
    bench 1 n1 wrong "$M"
    fm_wait_all 15 "$t0" n0 n1 && fm_expect n1 2 "cannot reach the store.*198.18.0.1:$PORT.*token" &&
      fm_expect n0 2 "dd/comm/gloo/1"
    FINDING="node 1: the store refused the token; node 0: rank 1's key never came (dd/comm/gloo/1)" ;;
  *)
    bench 0 n0 tok "$M" --store-master
    until_ok 10 listening 0 "$PORT" || fm_fail "the store never listened"
    bench 1 n1 tok "$M"
    until_ok 20 has_workers 1 || fm_fail "node 1 never started its worker"
    sleep 1
    t0=$(now)
    case $FAULT in
      master_kill) fm_inject kill 0 ;;
      self_kill) fm_inject self_kill 1 n1 ;;
      *) fm_inject "$FAULT" 1 ;;
    esac
    case $FAULT in
      kill | self_kill)
        fm_wait_all $D "$t0" n0 && fm_expect n0 2 "comm.error|comm.op" && fm_expect n0 2 "198.18.0.2"
        FINDING="node 0: comm.error naming the peer 198.18.0.2 (node 1)" ;;
      stop)
        fm_wait_all $D "$t0" n0 && fm_expect n0 2 "comm.op.timeout" && fm_expect n0 2 "waiting for rank\(s\) 1 on other nodes"
        fm_resume 1
        fm_wait_all 15 "$(now)" n1
        FINDING="node 0: comm.op.timeout waiting for rank 1 on another node" ;;
      master_kill)
        fm_wait_all $D "$t0" n1 && fm_expect n1 2 "198.18.0.1"
        FINDING="node 1: comm.error naming the peer 198.18.0.1 (node 0)" ;;
      link_down)
        fm_wait_all $D "$t0" n0 n1 && fm_expect n0 2 "waiting for rank\(s\) 1 on other nodes" &&
          fm_expect n1 2 "waiting for rank\(s\) 0 on other nodes"
        FINDING="comm.op.timeout on both nodes, each naming the other node's rank" ;;
      netem)
        fm_wait_all 45 "$t0" n0 n1 && fm_expect n0 "0|1|2" "verdict: " && fm_expect n1 "0|1|2" "verdict: "
        FINDING="a verdict on both nodes within the deadline" ;;
      garbage | oversized)
        fm_wait_all 45 "$t0" n0 n1 && fm_expect n0 0 "verdict: pass" && fm_expect n1 0 "verdict: pass"
        fm_junk_done
        FINDING="the store drops the junk client; the bench passes" ;;
    esac ;;
esac
[ -n "${FM_SHOW:-}" ] && cat "$NL_DIR"/*.out >&2
fm_no_orphans
fm_finish "$FINDING"
