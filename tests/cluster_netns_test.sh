#!/bin/bash
# Cluster check across network-namespace "nodes": healthy 4-node run (decoy docker0, eth1 on some nodes,
# bandwidth), the paste-the-command start, an env diff, duplicate hostnames, and a cut link.
# Needs root; exits 77 (skipped) otherwise. Usage: cluster_netns_test.sh path/to/distdoctor
set -u
BIN=$(realpath "${1:-build/distdoctor}")
. "$(dirname "$0")/netns_lib.sh"
nl_require
nl_plain_env
nl_setup 4 "0 1 2"
PORT=$((30000 + RANDOM % 20000))
M=198.18.0.1:$PORT
TOK=t$RANDOM$RANDOM

# 1. Healthy: every node given --master; node 3 has no eth1. One verdict without failures on every node.
for i in 0 1 2 3; do
  nl_start $i node$i h$i -- "$BIN" check --nnodes 4 --node-rank $i --master $M --token $TOK --timeout 20 \
    --mesh-bandwidth
done
for i in 0 1 2 3; do nl_wait h$i 25 || exit 1; done
for i in 0 1 2 3; do
  expect h$i "all 4 nodes joined"
  expect h$i "cluster.mesh.ifname_ok"
  expect_not h$i "\[FAIL\]"
done
expect h0 "mesh to eth0"
expect h0 "node3\(3\) +[0-9.]+ms [0-9]+MB/s"
expect h0 "eth1 of node0\(0\) .* is reached from .*node1\(1\).* but not from node3\(3\)"
expect_not h0 "docker0"
expect h0 "deadline: --deadline 20 s"
expect h0 "Gloo on node1\(1\) would use loopback: hostname node1 does not resolve"
[ "$(nl_rc h1)" != 2 ] || { echo "FAIL: healthy cluster failed"; nl_out h1; exit 1; }
echo "ok: healthy 4-node cluster"

# 2. First node with --nnodes alone prints the command; the others paste it. Node 2 sets NCCL_SOCKET_IFNAME.
nl_start 0 node0 p0 -- "$BIN" check --nnodes 3 --timeout 20
for _ in $(seq 50); do grep -q -- "DISTDOCTOR_TOKEN=" "$NL_DIR/p0.err" 2>/dev/null && break; sleep 0.1; done
CMD=$(grep -o -- '--master [^ ]*' "$NL_DIR/p0.err")
# stderr is a file here, not a terminal: the token is not printed but put in a file only this user can read.
TFILE=$(grep -o -- 'The job token is in [^ ]*' "$NL_DIR/p0.err" | cut -d' ' -f6)
TOKEN=$(cat "$TFILE" 2>/dev/null)
[ "$(stat -c %a "$TFILE" 2>/dev/null)" = 600 ] || { echo "FAIL: token file $TFILE is not mode 600"; exit 1; }
if grep -q -- "$TOKEN" "$NL_DIR/p0.err"; then echo "FAIL: token printed to a stderr that is a file"; exit 1; fi
[ -n "$CMD" ] && [ -n "$TOKEN" ] || { echo "FAIL: master printed no command"; cat "$NL_DIR/p0.err"; exit 1; }
nl_start 1 node1 p1 -- env DISTDOCTOR_TOKEN="$TOKEN" "$BIN" check --nnodes 3 $CMD --node-rank 1 --json
nl_start 2 node2 p2 -- env DISTDOCTOR_TOKEN="$TOKEN" NCCL_SOCKET_IFNAME=eth1 "$BIN" check --nnodes 3 $CMD --node-rank 2
for i in 0 1 2; do nl_wait p$i 25 || exit 1; done
expect p0 "NCCL_SOCKET_IFNAME is set on some nodes and not others"
expect p0 "NCCL_SOCKET_IFNAME=eth1 on node2\(2\)"
expect p0 "unset on node0\(0\), node1\(1\)"
expect p2 "cluster.env.diff"
expect p1 '"verdict": "warn"'
if grep -q "$TOKEN" "$NL_DIR/p0.out" "$NL_DIR/p1.out"; then echo "FAIL: token leaked into a report"; exit 1; fi
[ ! -e "$TFILE" ] || { echo "FAIL: the token file $TFILE outlived the check that wrote it"; exit 1; }
echo "ok: pasted command, env diff named, the token file removed at the end"

# 3. Two nodes with the same hostname (own UTS namespaces).
for i in 0 1 2; do
  name=$([ $i = 2 ] && echo node1 || echo node$i)
  nl_start $i $name d$i -- "$BIN" check --nnodes 3 --node-rank $i --master $M --token $TOK --timeout 20
done
for i in 0 1 2; do nl_wait d$i 25 || exit 1; done
expect d0 '2 nodes have the hostname "node1"'
expect d0 "node rank 1, node rank 2"
[ "$(nl_rc d2)" = 2 ] || { echo "FAIL: duplicate hostname did not fail the check"; exit 1; }
echo "ok: duplicate hostname found"

# 4. Node 2's eth1 cable pulled while NCCL_SOCKET_IFNAME=eth1 everywhere: the mesh names the pairs and the
#    interface, and recommends eth0.
nl_cut 2 eth1
for i in 0 1 2; do
  nl_start $i node$i c$i -- env NCCL_SOCKET_IFNAME=eth1 "$BIN" check --nnodes 3 --node-rank $i --master $M \
    --token $TOK --timeout 12
done
for i in 0 1 2; do nl_wait c$i 20 || exit 1; done
expect c0 "FAIL\] eth1 of node2\(2\) \(198.18.1.3\) cannot be reached from any peer"
expect c0 "from node0\(0\): (timeout|unreachable)"
expect c0 "NCCL_SOCKET_IFNAME=eth1 does not reach every peer; eth0 does"
expect c1 "export NCCL_SOCKET_IFNAME=eth0"
echo "ok: cut link named"

# 5. As srun would start it: 2 nodes x 2 tasks, only SLURM_* variables (the node list holds addresses here).
#    Rank 0 meets the others on the first host of the list and prints the one verdict.
r=0
for i in 0 1; do
  for l in 0 1; do
    nl_start $i node$i s$r -- env SLURM_JOB_ID=4242 SLURM_STEP_ID=0 SLURM_PROCID=$r SLURM_NTASKS=4 SLURM_LOCALID=$l \
      SLURM_NODEID=$i SLURM_NNODES=2 SLURM_NTASKS_PER_NODE=2 SLURM_NODELIST='198.18.0.[1-2]' \
      "$BIN" check --timeout 20
    r=$((r + 1))
  done
done
for r in 0 1 2 3; do nl_wait s$r 25 || exit 1; done
expect s0 "cluster of 2 node\(s\), 4 process\(es\)"
expect s0 "all 4 processes joined"
expect s0 "rank=0 from SLURM_PROCID"
expect s0 "meeting point 198.18.0.1:[0-9]+ \(host from first host of SLURM_NODELIST"
[ "$(cat "$NL_DIR"/s?.out | grep -c '^verdict:')" = 1 ] || { echo "FAIL: want one verdict"; cat "$NL_DIR"/s?.out; exit 1; }
for r in 1 2 3; do [ "$(nl_rc s$r)" = 0 ] || { echo "FAIL: rank $r exit $(nl_rc s$r)"; exit 1; }; done
echo "ok: srun-style launch, one verdict"
echo PASS
