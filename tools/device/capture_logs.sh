#!/usr/bin/env bash
# Captures real NCCL/PyTorch logs for the `distdoctor logs` fixtures on a machine with >= 2 GPUs, python3 + torch.
# Each case runs under `timeout` (ends by itself within ~40 s); the whole script takes about 2-4 minutes.
# Output: $OUT/<case>.log (torchrun's combined stdout+stderr) and, for the healthy run, per-rank files written
# by NCCL_DEBUG_FILE; $OUT/env.txt with versions. Cases:
#   healthy                 NCCL_DEBUG=INFO SUBSYS=INIT,NET,COLL, init + all_reduce/broadcast with iteration prints,
#                           NCCL output in per-rank files (NCCL_DEBUG_FILE=%h.%p)
#   healthy_stdout          the same, both ranks interleaved in torchrun's output
#   duplicate_gpu           both ranks torch.cuda.set_device(0)           -> "Duplicate GPU detected"
#   no_socket_interface     NCCL_SOCKET_IFNAME=nonexistent                -> "Bootstrap : no socket interface found"
#   invalid_device_ordinal  CUDA_VISIBLE_DEVICES=0 with 2 ranks            -> "invalid device ordinal"
#   watchdog_timeout        rank 1 skips a collective, timeout=10 s        -> watchdog + COLL counts that differ
#   child_failed            rank 1 exits 1 under torchrun                  -> ChildFailedError summary
#   p2p_shm_disabled        NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 -> NET/Socket channels
#   net_default             NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1          -> whatever NET the machine has (IB?)
set -u
OUT=${OUT:-${TMPDIR:-/tmp}/dd_capture}
mkdir -p "$OUT"
n=$(nvidia-smi -L 2>/dev/null | wc -l)
if [ "$n" -lt 2 ]; then echo "needs 2 GPUs (found $n)"; exit 77; fi
python3 -c 'import torch' 2>/dev/null || { echo "needs python3 with torch"; exit 77; }
TORCHRUN=(python3 -m torch.distributed.run)
W=$(mktemp -d "${TMPDIR:-/tmp}/dd_capture_work.XXXXXX")
trap 'rm -rf "$W"' EXIT

cat > "$W/worker.py" <<'PY'
import datetime, os, sys, time
import torch
import torch.distributed as dist

case = sys.argv[1]
rank, local = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(0 if case == "duplicate_gpu" else local)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=10 if case == "watchdog_timeout" else 30))
x = torch.ones(1 << 16, device="cuda")
for it in range(6):
    print(f"[rank{rank}]: iteration: {it}", flush=True)
    if case == "watchdog_timeout" and rank == 1 and it == 3:
        time.sleep(25)  # rank 1 never joins iteration 3's all_reduce: rank 0's watchdog fires after 10 s
        break
    if case == "child_failed" and rank == 1 and it == 2:
        print("rank 1: simulated failure, exit 1", flush=True)
        sys.exit(1)
    dist.all_reduce(x)
    if it % 2 == 0:
        dist.broadcast(x, src=0)
    torch.cuda.synchronize()
dist.barrier()
dist.destroy_process_group()
print(f"rank {rank} done", flush=True)
PY

{
  date -u; hostname; nvidia-smi -L
  nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())'
  ip -br addr 2>/dev/null
} > "$OUT/env.txt" 2>&1

run_case() {  # name, env assignments...
  local name=$1
  shift
  echo "== $name"
  local t0=$SECONDS
  env NCCL_NVLS_ENABLE=0 "$@" timeout -k 5 40 "${TORCHRUN[@]}" --standalone --nproc_per_node=2 \
    "$W/worker.py" "$name" > "$OUT/$name.log" 2>&1
  echo "   exit $? after $((SECONDS - t0)) s, $(wc -l < "$OUT/$name.log") lines"
  truncate -s '<2M' "$OUT/$name.log"
}

run_case healthy NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,COLL NCCL_DEBUG_FILE="$OUT/healthy.nccl.%h.%p.log"
run_case healthy_stdout NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,COLL
run_case duplicate_gpu NCCL_DEBUG=WARN
run_case no_socket_interface NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET NCCL_SOCKET_IFNAME=nonexistent
run_case invalid_device_ordinal NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT CUDA_VISIBLE_DEVICES=0
run_case watchdog_timeout NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL
run_case child_failed NCCL_DEBUG=WARN
run_case p2p_shm_disabled NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1
run_case net_default NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1
for f in "$OUT"/healthy.nccl.*.log; do [ -f "$f" ] && truncate -s '<2M' "$f"; done
ls -la "$OUT"
