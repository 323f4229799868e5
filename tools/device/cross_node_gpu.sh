#!/bin/bash
# On the GPU machine: the cross-node pass with NCCL between two "nodes" on one host. Each node is one
# `distdoctor check --nnodes 2 --collectives` process with one GPU (both on GPU 0: two processes may share a
# GPU when NCCL believes they are on different hosts), made to look like separate hosts to NCCL: its own
# NCCL_HOSTID, P2P and SHM off, sockets over lo, so NCCL's inter-node path (NET) really carries the data.
# Saves both JSON reports, their stderr and a summary to $OUT for the lead to record as fixtures.
# Usage (repo root): tools/device/cross_node_gpu.sh [path/to/distdoctor]  (default .devcarry/distdoctor,
# else build/distdoctor)
set -u
export NCCL_NVLS_ENABLE=0
DEF=.devcarry/distdoctor
[ -x "$DEF" ] || DEF=build/distdoctor
BIN=$(realpath "${1:-$DEF}")
OUT=${OUT:-${TMPDIR:-/tmp}/cross_node_gpu}
mkdir -p "$OUT"
command -v nvidia-smi >/dev/null && nvidia-smi -L >"$OUT/gpus.txt" 2>&1
PORT=$((30000 + RANDOM % 20000))
TOKEN=xn-$RANDOM$RANDOM
node() {  # node RANK: one node, one GPU, its own NCCL host id
  env CUDA_VISIBLE_DEVICES=0 NCCL_HOSTID="distdoctor-node-$1" NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 \
    NCCL_SOCKET_IFNAME=lo NCCL_NVLS_ENABLE=0 \
    timeout 150 "$BIN" check --nnodes 2 --master 127.0.0.1:$PORT --node-rank "$1" --token "$TOKEN" \
    --collectives --json --timeout 60 --init-timeout 30 >"$OUT/cross_node_rank$1.json" 2>"$OUT/cross_node_rank$1.err"
  echo $? >"$OUT/cross_node_rank$1.rc"
}
T0=$(date +%s.%N)
node 0 &
P0=$!
sleep 0.5
node 1 &
P1=$!
wait $P0 $P1
T1=$(date +%s.%N)
{
  echo "cross-node pass, 2 nodes x 1 GPU on one host (NCCL_HOSTID per process, P2P/SHM off, NCCL_SOCKET_IFNAME=lo)"
  python3 -c "import sys; print(\"wall: %.1f s\" % (float(sys.argv[2]) - float(sys.argv[1])))" "$T0" "$T1"
  for r in 0 1; do
    echo "node rank $r: exit $(cat "$OUT/cross_node_rank$r.rc")"
    python3 - "$OUT/cross_node_rank$r.json" <<'PY'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except Exception as e:
    print("  no JSON:", e); sys.exit(0)
print("  verdict:", j.get("verdict"))
for f in j.get("findings", []):
    if f["id"].startswith(("cluster.collectives", "comm.")):
        print("  %s %s: %s" % (f["severity"], f["id"], f["title"]))
        for e in f.get("evidence", [])[:12]:
            print("      " + e)
for n in j.get("notes", []):
    if n.startswith("collectives"):
        print("  note: " + n)
PY
  done
} | tee "$OUT/summary.txt"
