#!/bin/bash
# Cluster check faults across network-namespace nodes: a node that never starts, a wrong token, the master
# killed mid-run. Each must end on every node with a clear finding within the deadline.
# Needs root; exits 77 (skipped) otherwise. Usage: cluster_faults_test.sh path/to/distdoctor
set -u
BIN=$(realpath "${1:-build/distdoctor}")
. "$(dirname "$0")/netns_lib.sh"
nl_require
export NO_COLOR=1
unset NCCL_SOCKET_IFNAME GLOO_SOCKET_IFNAME OMPI_COMM_WORLD_RANK RANK WORLD_SIZE PMI_RANK PMIX_RANK SLURM_PROCID
nl_setup 3 ""
PORT=$((30000 + RANDOM % 20000))
M=198.18.0.1:$PORT

# 1. Node rank 2 never starts: both others name it within --timeout 5. (Tokens from a file and from the env.)
printf 'abc\n' >"$NL_DIR/token" && chmod 600 "$NL_DIR/token"
t0=$SECONDS
nl_start 0 node0 m0 -- "$BIN" check --nnodes 3 --node-rank 0 --master $M --token-file "$NL_DIR/token" --timeout 5
nl_start 1 node1 m1 -- env DISTDOCTOR_TOKEN=abc "$BIN" check --nnodes 3 --node-rank 1 --master $M --timeout 5
for i in 0 1; do nl_wait m$i 12 || exit 1; done
for i in 0 1; do
  expect m$i "waiting for node rank 2 since [0-9]+ s; arrived: node0\(0\) node1\(1\)"
  [ "$(nl_rc m$i)" = 2 ] || { echo "FAIL: m$i exit $(nl_rc m$i), want 2"; exit 1; }
done
expect m0 "job token from --token-file"
expect m1 "this process: node rank 1 on node1"
[ $((SECONDS - t0)) -le 9 ] || { echo "FAIL: missing node took $((SECONDS - t0)) s"; exit 1; }
echo "ok: missing node named in $((SECONDS - t0)) s"

# 2. Wrong token: the node is refused at once with a clear message; the master logs the refusal too.
nl_start 0 node0 w0 -- "$BIN" check --nnodes 2 --node-rank 0 --master $M --token right --timeout 5
sleep 0.5
nl_start 1 node1 w1 -- "$BIN" check --nnodes 2 --node-rank 1 --master $M --token wrong --timeout 5
nl_wait w1 4 || exit 1
expect w1 "refused this node: wrong job token"
nl_wait w0 10 || exit 1
grep -q "wrong job token" "$NL_DIR/w0.err" || { echo "FAIL: master did not log the refusal"; cat "$NL_DIR/w0.err"; exit 1; }
expect w0 "waiting for node rank 1"
echo "ok: wrong token refused on both sides"

# 3. The master is killed while node 1 waits for node 2: node 1 ends with a clear finding well before its
#    deadline (the connection drops), and in any case within it.
nl_start 0 node0 k0 -- "$BIN" check --nnodes 3 --node-rank 0 --master $M --token abc --timeout 20
sleep 0.5
nl_start 1 node1 k1 -- "$BIN" check --nnodes 3 --node-rank 1 --master $M --token abc --timeout 20
sleep 1
nl_kill k0
t0=$SECONDS
nl_wait k1 26 || exit 1
expect k1 "lost the master 198.18.0.1:$PORT|no answer from the master"
[ "$(nl_rc k1)" = 2 ] || { echo "FAIL: k1 exit $(nl_rc k1)"; exit 1; }
echo "ok: master killed, node 1 ended in $((SECONDS - t0)) s"
# 4. Two nodes both claim node rank 1: the master and the second claimer name it.
nl_start 0 node0 r0 -- "$BIN" check --nnodes 3 --node-rank 0 --master $M --token abc --timeout 6
sleep 0.3
nl_start 1 node1 r1 -- "$BIN" check --nnodes 3 --node-rank 1 --master $M --token abc --timeout 6
sleep 0.3
nl_start 2 node2 r2 -- "$BIN" check --nnodes 3 --node-rank 1 --master $M --token abc --timeout 6
for i in 0 1 2; do nl_wait r$i 12 || exit 1; done
expect r0 "node rank 1 was claimed by 2 processes"
expect r2 "this process claimed node rank 1, which another process already holds"
echo "ok: node rank claimed twice"
echo PASS
