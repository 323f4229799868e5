#!/usr/bin/env bash
# Real logs for issue 12 (diagnosis coverage) on a 1-GPU machine with python3 + torch: two ranks share the GPU as
# two NCCL "hosts" (NCCL_HOSTID per rank, NCCL_SOCKET_IFNAME=lo) unless the case is about sharing it. Each case
# runs under torchrun with `timeout` (ends by itself); NCCL output goes to per-rank files (NCCL_DEBUG_FILE) and
# torchrun's combined output to <case>.log. Cases:
#   silence_traceback   rank 1 raises ValueError at iteration 3 while rank 0 waits in all_reduce (15 s timeout)
#   init_store_timeout  rank 1 sleeps 30 s before init_process_group; rank 0 times out waiting (15 s)
#   dup_gpu_info        both ranks on GPU 0, no NCCL_HOSTID, NCCL_DEBUG=INFO: same busId on two ranks
#   algo_bogus          NCCL_ALGO=bogus on a healthy job
#   net_ib              NCCL_NET=IB on a machine without InfiniBand
#   healthy_coll        healthy, NCCL_DEBUG=INFO SUBSYS=INIT,NET,COLL (zero false alarms)
# Then: `distdoctor facts --json` with NCCL_ALGO=bogus NCCL_NET=IB, and `distdoctor launch --hang-timeout 8` on
# the sleep case of launch_train.py with COLL counts (the hang report's ahead/behind). Usage: DIR (distdoctor+lib/).
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
DIR=$(cd "$1" && pwd)
O=${OUT:-device_out}
mkdir -p "$O/logs12"
L=$O/logs12
W=$(mktemp -d "${TMPDIR:-/tmp}/dd_i12.XXXXXX")
trap 'rm -rf "$W"' EXIT
cat > "$W/worker.py" <<'PY'
import datetime, os, sys, time
import torch
import torch.distributed as dist

case = sys.argv[1]
rank = int(os.environ["RANK"])
if case != "dup_gpu_info":
    os.environ["NCCL_HOSTID"] = "i12host%d" % rank
torch.cuda.set_device(0)
if case == "init_store_timeout" and rank == 1:
    time.sleep(30)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=15), device_id=torch.device("cuda", 0))
x = torch.ones(1 << 16, device="cuda")
for it in range(6):
    print(f"[rank{rank}]: iteration: {it}", flush=True)
    if case == "silence_traceback" and rank == 1 and it == 3:
        raise ValueError("batch 3 has shape (7, 3) where (8, 3) was expected")
    dist.all_reduce(x)
    torch.cuda.synchronize()
dist.destroy_process_group()
print(f"rank {rank} done", flush=True)
PY
run_case() {  # name, env assignments...
  local name=$1
  shift
  local t0=$SECONDS
  env NCCL_SOCKET_IFNAME=lo NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,COLL NCCL_DEBUG_FILE="$L/$name.nccl.%h.%p.log" "$@" \
    timeout -k 5 60 python3 -m torch.distributed.run --standalone --nproc_per_node=2 "$W/worker.py" "$name" >"$L/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - t0)) s, $(wc -l <"$L/$name.log") lines"
}
run_case silence_traceback
run_case init_store_timeout
run_case dup_gpu_info
run_case algo_bogus NCCL_ALGO=bogus
run_case net_ib NCCL_NET=IB
run_case healthy_coll
for f in "$L"/*.log; do truncate -s '<1M' "$f"; done
export LD_LIBRARY_PATH=$DIR/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
NCCL_ALGO=bogus NCCL_NET=IB "$DIR/distdoctor" facts --json >"$L/facts_algo_bogus_net_ib.json" 2>/dev/null
NCCL_ALGO=bogus NCCL_NET=IB "$DIR/distdoctor" check --json >"$L/check_algo_bogus_net_ib.json" 2>/dev/null
echo "check with NCCL_ALGO=bogus NCCL_NET=IB: exit $?"
CASE=sleep FAULT_FILE=$W/fault NCCL_SOCKET_IFNAME=lo PG_TIMEOUT=60 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL \
  timeout 120 "$DIR/distdoctor" launch --no-preflight --nproc-per-node 2 --hang-timeout 8 --log-dir "$L/launch" \
  --job-id hangcoll --json -- python3 tools/device/launch_train.py >"$L/launch_hang_coll.json" 2>"$L/launch_hang_coll.err"
echo "launch hang with COLL counts: exit $?"
python3 - "$L/launch_hang_coll.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for f in r["findings"]:
    if f["id"] == "launch.hang":
        print(f["title"]); print("\n".join(f["evidence"][:6]))
PY
(cd "$O" && tar czf logs12.tgz logs12 && rm -rf logs12)
