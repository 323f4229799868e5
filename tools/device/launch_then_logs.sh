#!/bin/bash
# `distdoctor launch` on hang_worker.py faults (4 ranks, 4 GPUs), then `distdoctor logs` on the run folder it
# left: what each names first, and the end line launch appended to one rank's log. Usage (repo root on the
# device): tools/device/launch_then_logs.sh DD_DIR CASE...
set -u
DIR=$(cd "${1:?distdoctor dir}" && pwd)
shift
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/torch_nccl_env.sh" "$DIR"
W=$(mktemp -d "${TMPDIR:-/tmp}/ddll.XXXXXX")
first() {  # report JSON -> verdict and the first warn/fail finding
  python3 -c "
import json,sys
r=json.load(open(sys.argv[1])); fs=[f for f in r['findings'] if f['severity'] in ('fail','warn')]
print(r['verdict'], '|', '; '.join('%s rank %s: %s' % (f['id'], f.get('rank'), f['title'][:140]) for f in fs[:1]))" "$1" 2>&1
}
for c in "$@"; do
  d=$W/$c
  mkdir -p "$d"
  FAULT_FILE=$d/fault PG_TIMEOUT=600 timeout -k 5 120 "$DIR/distdoctor" launch --nproc-per-node 4 --hang-timeout 10 \
    --log-dir "$d/logs" --job-id "$c" --tee none --json -- python3 "$HERE/hang_worker.py" "$c" >"$d/report.json" 2>"$d/err"
  echo "$c: launch rc=$? $(first "$d/report.json")"
  "$DIR/distdoctor" logs --json "$d/logs/$c" >"$d/logs.json" 2>/dev/null
  echo "   logs rc=$? $(first "$d/logs.json")"
  echo "   rank 1's last line: $(tail -n 1 "$d/logs/$c/0/node0.rank1.log")"
done
rm -rf "$W"
