#!/bin/bash
# Cluster check faults across network-namespace nodes: a node that never starts, a wrong token, the master
# killed mid-run. Each must end on every node with a clear finding within the deadline.
# Needs root; exits 77 (skipped) otherwise. Usage: cluster_faults_test.sh path/to/distdoctor
# Ordering between processes is not left to fixed sleeps: each step waits until the master listens (ss in
# its namespace) and, where the order matters, until a node holds its connection to the master, so a
# loaded machine (2 cores, other netns tests in parallel) cannot reorder the steps.
set -u
BIN=$(realpath "${1:-build/distdoctor}")
. "$(dirname "$0")/netns_lib.sh"
nl_require
nl_plain_env
nl_setup 3 ""
PORT=$((30000 + RANDOM % 20000))
M=198.18.0.1:$PORT
STEP="setup"
NAMES=()

# die MSG: name the step, then show every process of the step (exit code, stdout, stderr) and the sockets.
die() {
  echo "FAIL [step $STEP, port $PORT, after $((SECONDS - T_STEP)) s in the step]: $*"
  local n
  for n in "${NAMES[@]}"; do
    echo "---- $n exit: $(cat "$NL_DIR/$n.rc" 2>/dev/null || echo 'still running')"
    echo "---- $n stdout"; cat "$NL_DIR/$n.out" 2>/dev/null
    echo "---- $n stderr"; cat "$NL_DIR/$n.err" 2>/dev/null
  done
  for n in 0 1 2; do echo "---- sockets on node $n"; ip netns exec "${NL_ID}n$n" ss -tan 2>/dev/null; done
  exit 1
}
step() { STEP=$1; NAMES=(); T_STEP=$SECONDS; echo "-- step $STEP"; }
start() { NAMES+=("$3"); nl_start "$@"; }
expect() { grep -Eq -- "$2" "$NL_DIR/$1.out" || die "$1 output lacks /$2/"; }
wait_done() { nl_wait "$1" "$2" >/dev/null || die "$1 still running after $2 s"; }
# until_ok SECONDS DESC CMD...: poll CMD every 0.1 s until it succeeds, else fail naming DESC.
until_ok() {
  local s=$1 desc=$2 i
  shift 2
  for ((i = 0; i < s * 10; i++)); do "$@" && return 0; sleep 0.1; done
  die "$desc not within $s s"
}
listening() { [ -n "$(ip netns exec "${NL_ID}n$1" ss -Hltn "sport = :$PORT")" ]; }
connected() { [ -n "$(ip netns exec "${NL_ID}n$1" ss -Htn state established "dport = :$PORT")" ]; }
wait_master() { until_ok 10 "the master ($1) listening on port $PORT" listening 0; }
# wait_joined I NAME: node I holds its connection to the master; then a moment for the handshake and claim.
wait_joined() {
  until_ok 10 "$2 connected to the master" connected "$1"
  sleep 0.5
}

# 1. Node rank 2 never starts: both others name it within --timeout 5. (Tokens from a file and from the env.)
step "1 missing node"
printf 'abc\n' >"$NL_DIR/token" && chmod 600 "$NL_DIR/token"
t0=$SECONDS
start 0 node0 m0 -- "$BIN" check --nnodes 3 --node-rank 0 --master $M --token-file "$NL_DIR/token" --timeout 5
start 1 node1 m1 -- env DISTDOCTOR_TOKEN=abc "$BIN" check --nnodes 3 --node-rank 1 --master $M --timeout 5
for i in 0 1; do wait_done m$i 12; done
for i in 0 1; do
  expect m$i "waiting for node rank 2 since [0-9]+ s; arrived: node0\(0\) node1\(1\)"
  [ "$(nl_rc m$i)" = 2 ] || die "m$i exit $(nl_rc m$i), want 2"
done
expect m0 "job token from --token-file"
expect m1 "this process: node rank 1 on node1"
# Within the deadline by the master's own clock; the wall-clock bound only adds process start-up under load.
since=$(grep -Eo "waiting for node rank 2 since [0-9]+ s" "$NL_DIR/m0.out" | grep -Eo "[0-9]+ s" | head -1)
[ "${since% s}" -le 5 ] || die "the master named the missing node after ${since}, past --timeout 5"
[ $((SECONDS - t0)) -le 11 ] || die "missing node took $((SECONDS - t0)) s"
echo "ok: missing node named in $((SECONDS - t0)) s (master: since ${since})"

# 2. Wrong token: the node is refused at once with a clear message; the master logs the refusal too.
step "2 wrong token"
start 0 node0 w0 -- "$BIN" check --nnodes 2 --node-rank 0 --master $M --token right --timeout 5
wait_master w0
t0=$SECONDS
start 1 node1 w1 -- "$BIN" check --nnodes 2 --node-rank 1 --master $M --token wrong --timeout 5
wait_done w1 4
t_refused=$((SECONDS - t0))
expect w1 "refused this node: wrong job token"
wait_done w0 10
grep -q "wrong job token" "$NL_DIR/w0.err" || die "master did not log the refusal"
expect w0 "waiting for node rank 1"
echo "ok: wrong token refused on both sides (node refused in ${t_refused} s)"

# 3. The master is killed while node 1 waits for node 2: node 1 ends with a clear finding well before its
#    deadline (the connection drops), and in any case within it.
step "3 master killed"
start 0 node0 k0 -- "$BIN" check --nnodes 3 --node-rank 0 --master $M --token abc --timeout 20
wait_master k0
start 1 node1 k1 -- "$BIN" check --nnodes 3 --node-rank 1 --master $M --token abc --timeout 20
wait_joined 1 k1
[ -s "$NL_DIR/k0.rc" ] && die "the master ended before it was killed"
nl_kill k0 || die "could not kill the master"
t0=$SECONDS
wait_done k1 26
expect k1 "lost the master 198.18.0.1:$PORT|no answer from the master"
[ "$(nl_rc k1)" = 2 ] || die "k1 exit $(nl_rc k1), want 2"
echo "ok: master killed, node 1 ended in $((SECONDS - t0)) s"

# 4. Two nodes both claim node rank 1: the master and the second claimer name it. node1 claims first (it holds
#    its connection before node2 starts); the join window (--timeout 10) leaves room for a loaded machine.
step "4 rank claimed twice"
start 0 node0 r0 -- "$BIN" check --nnodes 3 --node-rank 0 --master $M --token abc --timeout 10
wait_master r0
start 1 node1 r1 -- "$BIN" check --nnodes 3 --node-rank 1 --master $M --token abc --timeout 10
wait_joined 1 r1
start 2 node2 r2 -- "$BIN" check --nnodes 3 --node-rank 1 --master $M --token abc --timeout 10
for i in 0 1 2; do wait_done r$i 18; done
expect r0 "node rank 1 was claimed by 2 processes"
expect r2 "this process claimed node rank 1, which another process already holds"
grep -q "which another process already holds" "$NL_DIR/r1.out" && die "r1 claimed first but was named the duplicate"
echo "ok: node rank claimed twice"

# 5. Node 1 joins, then is killed (SIGKILL) before node 2 arrives: the master notices its connection closed
#    (its live key is gone) and names it as lost instead of waiting for its mesh results until the deadline.
step "5 node killed after joining"
start 0 node0 l0 -- "$BIN" check --nnodes 3 --node-rank 0 --master $M --token abc --timeout 30
wait_master l0
start 1 node1 l1 -- "$BIN" check --nnodes 3 --node-rank 1 --master $M --token abc --timeout 30
wait_joined 1 l1
nl_kill l1 || die "could not kill node 1"
start 2 node2 l2 -- "$BIN" check --nnodes 3 --node-rank 2 --master $M --token abc --timeout 30
for i in 0 2; do wait_done l$i 40; done
expect l0 "node1\\(1\\) left the run after joining"
expect l0 "cluster.node.lost"
expect l2 "cluster.node.lost"
[ "$(nl_rc l0)" = 2 ] || die "l0 exit $(nl_rc l0), want 2"
echo "ok: node killed after joining named as lost"
echo PASS
