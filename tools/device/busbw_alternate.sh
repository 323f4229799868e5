#!/bin/bash
# busbw of every collective at 64 MiB (out of place), builds alternated ROUNDS times on the same GPUs (the
# order turned round every other round): tells a build's real difference from run-to-run noise.
# Usage: [BENCH_ARGS="-c all_reduce -n 100"] tools/device/busbw_alternate.sh ROUNDS NAME=DIR...
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROUNDS=$1
shift
for r in $(seq "$ROUNDS"); do
  specs=("$@")
  [ $((r % 2)) = 0 ] && specs=($(printf '%s\n' "$@" | tac))
  for spec in "${specs[@]}"; do
    dir=$(cd "${spec#*=}" && pwd)
    (
      . "$HERE/torch_nccl_env.sh" "$dir"
      "$dir/distdoctor" bench -b 64M -e 64M ${BENCH_ARGS:--c all} --nccl-lib "$NCCL" --json >"${TMPDIR:-/tmp}/bb.json" 2>/dev/null
      rc=$?
      echo "round $r ${spec%%=*}: rc=$rc $(python3 -c "
import json,sys
j=json.load(open(sys.argv[1]))
print({x['collective']: round(x['busbw_gbps'],1) for x in j['results'] if not x['in_place']})" "${TMPDIR:-/tmp}/bb.json" 2>&1)"
    )
  done
done
