#!/bin/bash
# Issue 27's refactor on the GPU: the paths it touched give the same answers as the build before it. For each
# build folder given (a stripped distdoctor + lib/), one after the other on the same machine:
#   1. refactor_sanity.sh: check --collectives (all GPUs, two), bench -c all 1M-64M, bench --quick --threads
#   2. bench all_reduce 64 MiB with rank 2's worker dying at op 0 (--fault 2:die@0): the cause comm names
#      (report::first_failure in run_watch) and the NCCL log summary (nics, bootstrap) in the JSON
#   3. cross_node_gpu.sh: two check --nnodes 2 --collectives "nodes" on one host (the join, the cross-node
#      pass over NCCL's NET path, the NICs and bootstrap interface its NCCL log names)
#   4. launch --nproc-per-node 4 of launch_train.py: healthy, kill (rank 1 SIGKILLs itself at iteration 3:
#      launch's first failure), sleep (rank 1 stops in Python: a hang, --hang-timeout 10)
# Usage (repo root on the device): tools/device/issue27_paths.sh NAME=DIR [NAME=DIR...]. Prints one summary;
# the JSON of each run goes to $OUT/issue27_paths.tar.gz.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
HERE=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-${TMPDIR:-/tmp}/dd-out}
W=$(mktemp -d "${TMPDIR:-/tmp}/dd27.XXXXXX")
mkdir -p "$O"
brief() {  # verdict and the non-ok findings (id, rank) of a report's JSON
  python3 -c "
import json,sys
try: r=json.load(open(sys.argv[1]))
except Exception as e: print('unreadable JSON:', e); sys.exit()
fs=[(f['id'], f.get('rank',-1)) for f in r.get('findings',[]) if f.get('severity') not in ('ok','info')]
print(r.get('verdict'), fs)" "$1"
}
for spec in "$@"; do
  name=${spec%%=*} dir=$(cd "${spec#*=}" && pwd)
  D=$W/$name
  mkdir -p "$D"
  echo "== $name"
  "$HERE/refactor_sanity.sh" "$dir"
  (
    . "$HERE/torch_nccl_env.sh" "$dir"
    t0=$EPOCHREALTIME
    timeout 120 "$dir/distdoctor" bench -c all_reduce -b 64M -e 64M --fault 2:die@0 --nccl-lib "$NCCL" --json \
      >"$D/fault.json" 2>"$D/fault.err"
    echo "bench --fault 2:die@0: rc=$? wall $(secs "$t0") s $(brief "$D/fault.json")"
    timeout 120 "$dir/distdoctor" bench -c all_reduce -b 64M -e 64M --nccl-lib "$NCCL" --json >"$D/nccl.json" 2>&1
    python3 -c "
import json,sys; j=json.load(open(sys.argv[1])); n=j.get('nccl',{})
print('bench nccl summary:', {k: n.get(k) for k in ('network','bootstrap','nics','transports')})" "$D/nccl.json"
    LD_LIBRARY_PATH=$dir/lib:${LD_LIBRARY_PATH:-} OUT=$D/xn "$HERE/cross_node_gpu.sh" "$dir/distdoctor" \
      | grep -E "wall|exit|verdict|cluster.collectives.(ok|transport)|NIC|bootstrap|network" | head -12
    for case in healthy kill sleep; do
      t0=$EPOCHREALTIME
      CASE=$case FAULT_AT=3 ITERS=40 FAULT_FILE=$D/fault.$case NCCL_SOCKET_IFNAME=lo PG_TIMEOUT=60 NCCL_DEBUG=WARN \
        timeout 150 "$dir/distdoctor" launch --nproc-per-node 4 --log-dir "$D/logs" --job-id "$case" \
        --hang-timeout 10 --grace 5 --json -- python3 "$HERE/launch_train.py" >"$D/launch_$case.json" 2>"$D/launch_$case.err"
      echo "launch $case: rc=$? wall $(secs "$t0") s $(brief "$D/launch_$case.json")"
    done
  )
done
(cd "$W" && tar czf "$O/issue27_paths.tar.gz" . 2>/dev/null)
rm -rf "$W"
