#!/bin/bash
# Cross-node pass with one slow node: three network-namespace nodes (Gloo), node 2's link shaped to 20 Mbit/s
# with tc (tbf). Both pairs of the ring that touch node 2 must be far below the best pair and node 2 must be
# named as the slow one, on every node, with its NIC and the % of the rate it advertises. The slow pair's
# bandwidth op is sized from its own warm-up, so the run stays short. Needs root and tc; exits 77 otherwise.
set -u
BIN=$(realpath "${1:-build/distdoctor}")
. "$(dirname "$0")/netns_lib.sh"
nl_require
command -v tc >/dev/null || { echo "SKIP: tc not installed"; exit 77; }
nl_plain_env
nl_setup 3 ""
ip netns exec "${NL_ID}n2" tc qdisc add dev eth0 root tbf rate 20mbit burst 32kbit latency 400ms ||
  { echo "SKIP: tc tbf not available"; exit 77; }
PORT=$((30000 + RANDOM % 20000))
T0=$SECONDS
nl_start_check_nodes 3 "$PORT" --collectives --timeout 30
nl_wait_nodes 60 n0 n1 n2
for i in 0 1 2; do
  expect n$i "cluster.collectives.ok"
  expect n$i "xnode2\(2\) is slow: every node pair with it runs below a third of the best pair.*cluster.collectives.slow_pair"
  expect n$i "evidence: inter: xnode1\(1\) rank 2 \(eth0\) <-> xnode2\(2\) rank 4 \(eth0\): 0\.00[0-9] GB/s busbw .*% of the 10 Gb/s"
  expect n$i "evidence: best: inter: xnode0\(0\) rank 0 \(eth0\) <-> xnode1\(1\) rank 2"
done
took=$((SECONDS - T0))
[ $took -le 45 ] || { echo "FAIL: the slow run took $took s"; exit 1; }
echo "ok: node 2 behind a 20 Mbit/s shaper named as the slow node on every node in $took s"
