#!/bin/bash
# Fault-matrix cells of `check --nnodes` before and during the rendezvous. Usage: cell_rendezvous.sh BIN
# before|join FAULT. before: the fault is in place before the nodes meet (2 nodes); join: node 0 and node 1
# have met and wait for node 2 (3 nodes) when the fault strikes node 1 (node 0 for master_kill).
BIN=$(realpath "$1")
PHASE=$2
FAULT=$3
. "$(dirname "$0")/lib.sh"
T=6
check_args() { echo check --node-rank "$1" --nnodes "$2" --master "${3:-$M}" --token tok --timeout $T; }

before() {
  fm_init 2
  local t0
  case $FAULT in
    kill)
      fm_start 1 n1 "$BIN" $(check_args 1 2)
      fm_started n1
      fm_inject kill 1
      t0=$(now)
      fm_start 0 n0 "$BIN" $(check_args 0 2)
      fm_wait_all $((T + 8)) "$t0" n0 && fm_expect n0 2 "waiting for node rank 1 since"
      FINDING="master: cluster.join.missing (node rank 1)" ;;
    stop)
      fm_start 1 n1 "$BIN" $(check_args 1 2)
      fm_started n1
      fm_inject stop 1
      t0=$(now)
      fm_start 0 n0 "$BIN" $(check_args 0 2)
      fm_wait_all $((T + 8)) "$t0" n0 && fm_expect n0 2 "waiting for node rank 1 since"
      fm_resume 1
      fm_wait_all 10 "$(now)" n1 && fm_expect n1 2 "198.18.0.1:$PORT"
      FINDING="master: node rank 1 missing; node 1 after SIGCONT: the master gone" ;;
    master_kill | conn_refused)
      if [ "$FAULT" = master_kill ]; then
        fm_start 0 n0 "$BIN" $(check_args 0 2)
        until_ok 20 listening 0 "$PORT" || fm_fail "the master never listened"
        fm_inject kill 0
      fi
      t0=$(now)
      fm_start 1 n1 "$BIN" $(check_args 1 2)
      fm_wait_all $((T + 8)) "$t0" n1 && fm_expect n1 2 "cannot reach the master 198.18.0.1:$PORT"
      FINDING="node 1: cluster.join.unreachable naming the master's address" ;;
    link_down)
      fm_inject link_down 1
      t0=$(now)
      fm_start 0 n0 "$BIN" $(check_args 0 2)
      fm_start 1 n1 "$BIN" $(check_args 1 2)
      fm_wait_all $((T + 8)) "$t0" n0 n1 && fm_expect n0 2 "waiting for node rank 1 since" &&
        fm_expect n1 2 "cannot reach the master 198.18.0.1:$PORT"
      FINDING="master: node rank 1 missing; node 1: cluster.join.unreachable" ;;
    netem)
      fm_inject netem 1
      t0=$(now)
      fm_start 0 n0 "$BIN" $(check_args 0 2)
      fm_start 1 n1 "$BIN" $(check_args 1 2)
      fm_wait_all $((T + 8)) "$t0" n0 n1 && fm_expect n0 "0|1|2" "verdict: " && fm_expect n1 "0|1|2" "verdict: "
      FINDING="a verdict on both nodes (no internal error)" ;;
    port_in_use)
      hold_port || fm_fail "could not hold the port"
      t0=$(now)
      fm_start 0 n0 "$BIN" $(check_args 0 2)
      fm_wait_all 5 "$t0" n0 && fm_expect n0 2 "cluster.join.serve_failed" && fm_expect n0 2 ":$PORT: Address already in use"
      FINDING="master: cluster.join.serve_failed, port in use" ;;
    bad_master)
      t0=$(now)
      fm_start 1 n1 "$BIN" $(check_args 1 2 "no-such-host.invalid:$PORT")
      fm_wait_all $((T + 8)) "$t0" n1 && fm_expect n1 "2|3" "no-such-host.invalid"
      FINDING="node 1: the master's name does not resolve" ;;
  esac
}

join() {
  fm_init $([ "$FAULT" = guessing ] && echo 4 || echo 3)
  local t0 wrong=tok survivors=(n0 n2)
  [ "$FAULT" = wrong_token ] && wrong=bad
  fm_start 0 n0 "$BIN" $(check_args 0 3)
  until_ok 20 listening 0 "$PORT" || fm_fail "the master never listened"
  fm_start 1 n1 "$BIN" $(check_args 1 3)
  until_ok 10 connected 1 || fm_fail "node 1 never connected"
  sleep 0.5
  t0=$(now)
  case $FAULT in
    kill | stop | link_down | netem) fm_inject "$FAULT" 1 ;;
    master_kill) fm_inject kill 0; survivors=(n1 n2) ;;
    garbage | oversized) fm_inject "$FAULT" 2; fm_junk_done ;;
    flood)  # 400 never-authenticating connections from node 2's own address, reopened as they are closed
      ip netns exec "${NL_ID}n2" python3 "$FM_HERE/conn_flood.py" "${M%:*}" "${M#*:}" 400 $((T + 2)) \
        >"$NL_DIR/flood.out" 2>&1 &
      FM_HELPERS+=($!)
      sleep 1 ;;
    guessing)  # wrong tokens from a fourth address, one distdoctor after another, while node 2 joins
      ( for _ in $(seq 60); do
          ip netns exec "${NL_ID}n3" "$BIN" check --node-rank 2 --nnodes 3 --master "$M" --token "guess$RANDOM" \
            --timeout 1 >/dev/null 2>&1
        done ) &
      FM_HELPERS+=($!)
      sleep 2 ;;
  esac
  fm_start 2 n2 "$BIN" check --node-rank 2 --nnodes 3 --master "$M" --token $wrong --timeout $T
  case $FAULT in
    kill)
      fm_wait_all $((T + 8)) "$t0" "${survivors[@]}" && fm_expect n0 2 "xnode1\(1\).*(lost|died|left|closed)" &&
        fm_expect n2 2 "xnode1\(1\).*(lost|died|left|closed)"
      FINDING="master and node 2: node rank 1 (xnode1) lost after it joined" ;;
    link_down)
      fm_wait_all $((T + 8)) "$t0" "${survivors[@]}" && fm_expect n0 2 "eth0 of xnode1\(1\).*cannot be reached" &&
        fm_expect n2 2 "eth0 of xnode1\(1\).*cannot be reached"
      FINDING="master and node 2: cluster.mesh.unreachable naming xnode1(1)" ;;
    stop)
      fm_wait_all $((T + 8)) "$t0" "${survivors[@]}" && fm_expect n0 2 "node rank 1|xnode1\(1\)"
      fm_resume 1
      fm_wait_all 10 "$(now)" n1
      FINDING="master: node rank 1 (xnode1) stopped answering" ;;
    master_kill)
      fm_wait_all $((T + 8)) "$t0" "${survivors[@]}" && fm_expect n1 2 "lost the master 198.18.0.1:$PORT" &&
        fm_expect n2 2 "cannot reach the master 198.18.0.1:$PORT"
      FINDING="node 1: cluster.join.master_lost; node 2: cluster.join.unreachable" ;;
    netem)
      fm_wait_all $((T + 8)) "$t0" n0 n1 n2 && fm_expect n0 "0|1|2" "verdict: "
      FINDING="a verdict on every node" ;;
    garbage | oversized)
      fm_wait_all $((T + 8)) "$t0" n0 n1 n2 && fm_expect n0 "0|1" "verdict: (pass|warn)" &&
        fm_expect n0 "0|1" "dropped|closed|bad frame|refused"
      FINDING="store drops the junk client; the job passes" ;;
    flood)
      fm_wait_all $((T + 8)) "$t0" n0 n1 n2 && fm_expect n0 "0|1" "verdict: (pass|warn)" &&
        fm_expect n2 "0|1" "verdict: (pass|warn)" && fm_expect n0 "0|1" "from 198.18.0.3 not authenticated yet \(the cap per address\)"
      FINDING="node 2 joins past 400 strangers on its own address (the oldest make room); the job passes" ;;
    guessing)
      fm_wait_all $((T + 8)) "$t0" n0 n1 n2 && fm_expect n0 "0|1" "verdict: (pass|warn)" &&
        fm_expect n0 "0|1" "198.18.0.4 sent 9 wrong tokens within 10 s: its connections are refused"
      FINDING="the guessing address is paused after 8 wrong tokens; the job passes" ;;
    wrong_token)
      fm_wait_all $((T + 8)) "$t0" n0 n2 && fm_expect n2 2 "refused this node: wrong job token" &&
        fm_expect n0 2 "waiting for node rank 2 since"
      FINDING="node 2: cluster.join.refused; master: node rank 2 missing" ;;
  esac
}

$PHASE
[ -n "${FM_SHOW:-}" ] && cat "$NL_DIR"/*.out >&2
fm_no_orphans
fm_finish "$FINDING"
