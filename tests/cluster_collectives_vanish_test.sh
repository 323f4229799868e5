#!/bin/bash
# Cross-node pass (Gloo, three network-namespace nodes, node 2 behind a 20 Mbit/s link) where node 2 goes
# away without dying: (a) one of its collective workers is stopped (SIGSTOP): node 2's own supervisor names
# that rank (comm.worker.stopped) and the verdict leads with it, the other nodes' failures following as
# consequences; (b) every process of node 2 is stopped (a frozen node: no connection closes, no heartbeat):
# the leader names node 2 (cluster.collectives.node_silent) and tells the others, whose ranks stop at once
# instead of waiting out their deadlines. Nodes 0 and 1 must end within seconds and both print the verdict.
# Needs root; exits 77 (skipped) otherwise.
set -u
BIN=$(realpath "${1:-build/distdoctor}")
. "$(dirname "$0")/netns_lib.sh"
nl_require
nl_plain_env
nl_setup 3 ""
N2="${NL_ID}n2"
ip netns exec "$N2" tc qdisc add dev eth0 root tbf rate 20mbit burst 32kbit latency 400ms 2>/dev/null
STOPPED=()
resume() { for p in "${STOPPED[@]}"; do kill -CONT "$p" 2>/dev/null; done; }
trap 'resume; nl_cleanup' EXIT
# DD_TIME_SCALE: set by the sanitizer runs (scripts/sanitizers/run.sh), where every process is several times slower.
LIMIT=$((8 * ${DD_TIME_SCALE:-1}))

# start TAG PORT: the three nodes of one run, outputs TAG0..TAG2.
start() {
  local i
  for i in 0 1 2; do
    nl_start $i "xnode$i" "$1$i" -- "$BIN" check --nnodes 3 --master 198.18.0.1:"$2" --node-rank $i \
      --token t"$2" --collectives --timeout 30
  done
}
# Node 2's collective workers: the processes running `bench --as-worker` in its namespace (waits for them).
workers2() {
  local p out=""
  for _ in $(seq 300); do
    for p in $(ip netns pids "$N2"); do grep -q -- --as-worker "/proc/$p/cmdline" 2>/dev/null && out="$out $p"; done
    [ -n "$out" ] && { echo $out; return 0; }
    sleep 0.05
  done
  return 1
}
# survivors TAG T0: waits for TAG0 and TAG1, checks they ended within LIMIT s of T0 (seconds) with a fail verdict.
survivors() {
  nl_wait_nodes 40 "${1}0" "${1}1"
  local took=$((SECONDS - $2)) i
  for i in 0 1; do
    expect "$1$i" "verdict: fail"
    [ "$(nl_rc "$1$i")" = 2 ] || { echo "FAIL: $1$i exit code $(nl_rc "$1$i"), want 2"; exit 1; }
  done
  [ $took -le $LIMIT ] || { echo "FAIL: $1: the survivors took $took s after the stop (limit $LIMIT s)"; exit 1; }
  echo "ok: $1: nodes 0 and 1 ended $took s after the stop"
}

# (a) One worker of node 2 stopped (a phase's workers may end meanwhile: then one of the next phase's).
start a $((30000 + RANDOM % 20000))
workers2 >/dev/null || { echo "FAIL: node 2 never started its collective workers"; cat "$NL_DIR"/a*.out; exit 1; }
sleep 0.3
for _ in $(seq 100); do
  W=$(workers2) || break
  W1=${W%% *}
  kill -STOP "$W1" 2>/dev/null && STOPPED+=("$W1")
  sleep 0.05
  [ "$(awk '{print $3}' "/proc/$W1/stat" 2>/dev/null)" = T ] && break
done
[ "$(awk '{print $3}' "/proc/$W1/stat" 2>/dev/null)" = T ] || { echo "FAIL: could not stop a worker of node 2"; exit 1; }
T0=$SECONDS
survivors a $T0
for i in 0 1; do
  # The first failing line of the verdict is the stopped rank on node 2, and nothing blames another node.
  first=$(grep -m1 -E '^\s+\[FAIL\]' "$NL_DIR/a$i.out")
  echo "$first" | grep -Eq "xnode2\(2\): rank [45] stopped \(state T, SIGSTOP\)" ||
    { echo "FAIL: a$i: first failing finding is not node 2's stopped rank: $first"; cat "$NL_DIR/a$i.out"; exit 1; }
  n=$(grep -cE '^\s+\[FAIL\]' "$NL_DIR/a$i.out")
  [ "$n" = 1 ] || { echo "FAIL: a$i: $n failing findings, want 1 (the others are consequences)"; cat "$NL_DIR/a$i.out"; exit 1; }
done
grep -E '^\s+\[info\].*consequence' "$NL_DIR/a0.out" | head -3
echo "ok: (a) node 2's stopped rank named first on nodes 0 and 1:$(grep -m1 -E '^\s+\[FAIL\]' "$NL_DIR/a0.out")"
resume
nl_wait_nodes 20 a2

# (b) All of node 2 stopped: a frozen node.
start b $((30000 + RANDOM % 20000))
workers2 >/dev/null || { echo "FAIL: node 2 never started its collective workers"; cat "$NL_DIR"/b*.out; exit 1; }
sleep 0.3
for p in $(ip netns pids "$N2"); do kill -STOP "$p" 2>/dev/null && STOPPED+=("$p"); done
T0=$SECONDS
survivors b $T0
for i in 0 1; do
  expect "b$i" "\[FAIL\] xnode2\(2\) \(ranks 4-5\) stopped answering during the cross-node (warmup|verify|bandwidth) phase"
  n=$(grep -cE '^\s+\[FAIL\]' "$NL_DIR/b$i.out")
  [ "$n" = 1 ] || { echo "FAIL: b$i: $n failing findings, want 1"; cat "$NL_DIR/b$i.out"; exit 1; }
done
echo "ok: (b) frozen node 2 named on nodes 0 and 1:$(grep -m1 -E '^\s+\[FAIL\]' "$NL_DIR/b0.out")"
grep -E '^\s+\[info\].*consequence|evidence: +xnode[01]' "$NL_DIR/b0.out" | head -4
