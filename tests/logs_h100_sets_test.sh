#!/bin/bash
# `distdoctor logs` on the real log sets recorded on the H100 for issue 12 (fixtures/logs/h100x1_issue12): the
# first finding names the root cause (a rank's traceback while the other waited, a duplicate GPU, NCCL_ALGO=bogus,
# NCCL_NET=IB), the consequences come after it, and the healthy sets give no warn or fail. Also the duplicate GPU
# with NCCL's warning lines removed: named from the Init START lines alone.
set -u
BIN=$(realpath "${1:-build/distdoctor}")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/cli_test_lib.sh"
export NO_COLOR=1
F="$HERE/../fixtures/logs/h100x1_issue12"
first() {  # SET: "verdict first-id" of `logs --json` on that set
  "$BIN" logs "$1" --json | python3 -c 'import json,sys; r=json.load(sys.stdin); f=r["findings"]
bad=[x for x in f if x["severity"] in ("warn","fail")]
print(r["verdict"], bad[0]["id"] if bad else "-")'
}
want() {  # DESC SET "verdict id"
  local got
  got=$(first "$2")
  [ "$got" = "$3" ] && echo "ok: $1 ($got)" || { echo "FAIL: $1: got '$got', want '$3'"; fails=$((fails + 1)); }
}
want "rank 1's traceback while rank 0 waited" "$F/silence_traceback" "fail logs.rank.stopped_first"
"$BIN" logs "$F/silence_traceback" >"$T/out"
expect_out "names rank 1 and its exception" "ValueError: batch 3 has shape (7, 3)"
expect_out "the survivor's lost peer is a consequence" "(consequence of logs.rank.stopped_first)"
want "two ranks on one GPU" "$F/dup_gpu_info" "fail nccl.duplicate_gpu"
want "NCCL_ALGO=bogus" "$F/algo_bogus" "fail nccl.algo_proto_unknown"
want "NCCL_NET=IB without IB" "$F/net_ib" "fail nccl.net_plugin_init_failed"
want "healthy run" "$F/healthy_coll" "pass -"
want "a rank late to init, then healthy" "$F/init_store_timeout" "pass -"
mkdir -p "$T/dup"
for f in "$F"/dup_gpu_info/nccl.*.log; do grep -v "Duplicate GPU" "$f" >"$T/dup/$(basename "$f")"; done
want "two ranks on one GPU from the Init START lines alone" "$T/dup" "fail logs.gpu.shared"
cli_finish logs_h100_sets_test
