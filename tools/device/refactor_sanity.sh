#!/bin/bash
# After a refactor: the GPU paths on this node give the same answers. `check --collectives` (all GPUs and
# two), `bench` of every collective 1 MiB-64 MiB with the data check, `bench --quick --threads`, each with
# its verdict, finding ids and (bench) busbw at 64 MiB. Usage: tools/device/refactor_sanity.sh DD_DIR.
set -u
DIR=$(cd "${1:?distdoctor dir}" && pwd)
. "$(dirname "$0")/torch_nccl_env.sh" "$DIR"
ids() { python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))
print(r.get('verdict'), sorted(f['id'] for f in r['findings'] if f['severity'] not in ('ok',)))" "$1"; }
T=${TMPDIR:-/tmp}
for cvd in all 0,1; do
  t0=$EPOCHREALTIME
  if [ $cvd = all ]; then "$DIR/distdoctor" check --local --collectives --json --nccl-lib "$NCCL" >"$T/c.json" 2>/dev/null
  else CUDA_VISIBLE_DEVICES=$cvd "$DIR/distdoctor" check --local --collectives --json --nccl-lib "$NCCL" >"$T/c.json" 2>/dev/null; fi
  echo "check --collectives [$cvd]: rc=$? wall $(secs "$t0") s $(ids "$T/c.json")"
done
t0=$EPOCHREALTIME
"$DIR/distdoctor" bench -c all -b 1M -e 64M -f 8 --nccl-lib "$NCCL" --json >"$T/b.json" 2>/dev/null
echo "bench -c all 1M-64M: rc=$? wall $(secs "$t0") s $(python3 -c "
import json,sys; j=json.load(open(sys.argv[1])); rs=j['results']
bad=[r for r in rs if not r.get('complete') or r.get('wrong')]
print(len(rs),'results,',len(bad),'incomplete or wrong; busbw at 64 MiB out of place:', {r['collective']: round(r['busbw_gbps'],1) for r in rs if r['bytes']==64<<20 and not r['in_place']})" "$T/b.json") $(ids "$T/b.json")"
t0=$EPOCHREALTIME
"$DIR/distdoctor" bench --quick --threads --nccl-lib "$NCCL" --json >"$T/q.json" 2>/dev/null
echo "bench --quick --threads: rc=$? wall $(secs "$t0") s $(ids "$T/q.json")"
