#!/bin/bash
# Cross-node collective pass (check --nnodes 3 --collectives) across three network-namespace nodes with
# Gloo: every node prints the same verdict, every collective verified on all 6 ranks, bandwidth measured
# inside each node and for each neighbouring pair of nodes. Needs root; exits 77 (skipped) otherwise.
set -u
BIN=$(realpath "${1:-build/distdoctor}")
. "$(dirname "$0")/netns_lib.sh"
nl_require
nl_plain_env
nl_setup 3 ""
PORT=$((30000 + RANDOM % 20000))
T0=$SECONDS
nl_start_check_nodes 3 "$PORT" --collectives --timeout 30
nl_wait_nodes 60 n0 n1 n2
for i in 0 1 2; do
  expect n$i "cluster.collectives.ok"
  expect n$i "every collective verified element by element on 6 ranks across 3 nodes \(gloo\)"
  expect n$i "cluster.collectives.bandwidth"
  expect n$i "inter: xnode0\(0\) rank 0 \(eth0\) <-> xnode1\(1\) rank 2"
  expect n$i "intra: xnode2\(2\) rank 4"
  # slow_pair compares measured bandwidths: under a sanitizer (DD_TIME_SCALE, scripts/sanitizers/run.sh) on a
  # loaded 2-core machine one small pair measured 3x slower than another (ASan CI run, 2026-11-23), and so did
  # a plain build beside the rest of the suite on 2 cores (0.315 against 0.989 GB/s, 2026-11-28): there only
  # the silent-node check holds. cluster_collectives_slow_test proves slow_pair on a shaped link.
  if [ -n "${DD_TIME_SCALE:-}" ] || [ "$(nproc)" -le 2 ]; then expect_not n$i "node_silent"; else
    expect_not n$i "slow_pair|node_silent"; fi
done
# The same verdict everywhere: the finding lines (ids and titles) agree.
for i in 1 2; do
  diff <(grep -E '^\s*(ok|info|warn|fail)' "$NL_DIR/n0.out" | sed 's/[0-9.]* GB\/s//g') \
    <(grep -E '^\s*(ok|info|warn|fail)' "$NL_DIR/n$i.out" | sed 's/[0-9.]* GB\/s//g') >/dev/null ||
    { echo "FAIL: node $i printed another verdict"; diff "$NL_DIR/n0.out" "$NL_DIR/n$i.out"; exit 1; }
done
echo "ok: 3 namespace nodes, collectives verified and bandwidth per path in $((SECONDS - T0)) s"
