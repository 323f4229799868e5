#!/bin/bash
# Device batch for the collectives (issue 5), run on the 2xH200 machine from the repo root:
# check-pass timing, full bench sweep (+pairs, +NET transport probe, SVG), PyTorch comparison, --threads,
# --tune, and the failure paths. Expects beside itself (one carried folder): distdoctor (stripped build),
# lib/ (its shared libraries), torch_busbw.py and compare_torch.py (from bench/).
# Writes log.txt, bench.json, torch.json, busbw.svg under $OUT.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=$HERE/lib:${LD_LIBRARY_PATH:-}
DD=$HERE/distdoctor
O=${OUT:-${TMPDIR:-/tmp}/dd-out}
mkdir -p "$O"
L=$O/log.txt
PHASES=${PHASES:-quick sweep torch threads tune fail}
NCCL=$(python3 -c "import nvidia.nccl,os;print(os.path.join(list(nvidia.nccl.__path__)[0],'lib','libnccl.so.2'))" 2>/dev/null)
step() { echo "=== $(date +%T) $* ===" >>"$L"; }
run() { echo "+ $*" >>"$L"; "$@" >>"$L" 2>&1; echo "rc=$?" >>"$L"; }
has() { [[ " $PHASES " == *" $1 "* ]]; }

step env
{ nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv; nvidia-smi topo -m; nvidia-smi nvlink -s | head -8
  ldconfig -p | grep -i nccl; echo "NCCL=$NCCL"; ip -br addr; } >>"$L" 2>&1

if has quick; then
  step "check pass (bench --quick) x3, wall clock each"
  for i in 1 2 3; do
    s=$EPOCHREALTIME; run timeout 30 "$DD" bench --quick --nccl-lib "$NCCL"; e=$EPOCHREALTIME
    python3 -c "print('wall %.2f s' % ($e - $s))" >>"$L"
  done
fi
if has sweep; then
  step "sweep: all collectives 1K..8G, pairs, transport probe"
  echo "+ bench -c all -b 1K -e 8G -f 2 --pairs --transport --json --plot" >>"$L"
  timeout 240 "$DD" bench -c all -b 1K -e 8G -f 2 --nccl-lib "$NCCL" --pairs --transport --json \
    --plot "$O/busbw.svg" >"$O/bench.json" 2>>"$L"
  echo "rc=$?" >>"$L"
  python3 - "$O/bench.json" >>"$L" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("library", d.get("library"), "ok", d.get("ok"), "wall", d.get("wall_s"), "link", d.get("link"))
print("nccl", json.dumps(d.get("nccl")))
for r in d["results"]:
    if r["bytes"] >= (1 << 26):
        print(f'{r["collective"]:15} {r["bytes"]:>11} inplace={int(r["in_place"])} busbw {r["busbw_gbps"]:7.1f} wrong {r["wrong"]}')
for f in d.get("findings", []):
    print(f["severity"], f["id"], f["title"])
print("pairs", d.get("pairs"), "net_probe_busbw", d.get("net_probe_busbw_gbps"))
PY
fi
if has torch; then
  step "torch.distributed same sizes"
  timeout 200 python3 "$HERE/torch_busbw.py" >"$O/torch.json" 2>>"$L"; echo "rc=$?" >>"$L"
  run python3 "$HERE/compare_torch.py" "$O/bench.json" "$O/torch.json"
fi
if has threads; then
  step "--threads mode"
  run timeout 120 "$DD" bench --threads -c all_reduce,all_gather -b 1G -e 8G -f 8 --nccl-lib "$NCCL"
fi
if has tune; then
  step "tune all_reduce 8G"
  run timeout 150 "$DD" bench --tune -c all_reduce -e 8G --warmup 3 --iters 10 --nccl-lib "$NCCL"
fi
if has fail; then
  step "failure: worker killed mid-run"
  run timeout 60 "$DD" bench --fault 1:die@2 -c all_reduce -b 64M -e 1G --nccl-lib "$NCCL"
  step "failure: two workers on one GPU"
  run timeout 60 "$DD" bench --gpus 0,0 -c all_reduce -b 1M -e 1M --nccl-lib "$NCCL" --init-timeout 15
  step "failure: CUDA_VISIBLE_DEVICES with fewer GPUs than workers"
  CUDA_VISIBLE_DEVICES=0 run timeout 60 "$DD" bench --nproc 2 -c all_reduce -b 1M -e 1M --nccl-lib "$NCCL"
  step "failure: CUDA_VISIBLE_DEVICES narrowed, worker checks it itself"
  run timeout 60 "$DD" bench --nproc 3 -c all_reduce -b 1M -e 1M --nccl-lib "$NCCL"
  step "failure: NCCL_SOCKET_IFNAME names no interface"
  NCCL_SOCKET_IFNAME=doesnotexist0 run timeout 60 "$DD" bench -c all_reduce -b 1M -e 1M --nccl-lib "$NCCL"
  step "failure: worker never joins (init deadline 5 s)"
  run timeout 60 "$DD" bench --fault 1:nojoin --init-timeout 5 -c all_reduce -b 1M -e 1M --nccl-lib "$NCCL"
  step "failure: worker stalls (op deadline 5 s)"
  run timeout 60 "$DD" bench --fault 1:stall@1 --timeout 5 -c all_reduce -b 1M -e 4M --nccl-lib "$NCCL"
  step "failure: wrong data is a fail"
  run timeout 60 "$DD" bench --fault 1:corrupt@0 -c all_reduce -b 1M -e 1M --nccl-lib "$NCCL"
fi
step end
