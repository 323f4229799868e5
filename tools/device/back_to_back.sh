#!/bin/bash
# `check --collectives` run N times back to back on this GPU node (the report does not wait for the workers'
# CUDA teardown, so each run starts while the last one's workers may still free their GPU memory): each run's
# wall time, verdict and GPU-use findings. Usage: tools/device/back_to_back.sh DD_DIR [N]. Prints a summary.
set -u
DIR=$(cd "${1:?distdoctor dir}" && pwd)
N=${2:-4}
. "$(dirname "$0")/torch_nccl_env.sh" "$DIR"
for i in $(seq "$N"); do
  t0=$EPOCHREALTIME
  "$DIR/distdoctor" check --local --collectives --json --nccl-lib "$NCCL" >"${TMPDIR:-/tmp}/b2b.json" 2>/dev/null
  rc=$?
  echo "run $i: rc=$rc wall $(secs "$t0") s $(python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))
print(r['verdict'], [f['id'] for f in r['findings'] if f['id'].startswith('gpu.') and f['id'] not in ('gpu.present','gpu.health.ok','gpu.p2p.ok')])" "${TMPDIR:-/tmp}/b2b.json")"
done
