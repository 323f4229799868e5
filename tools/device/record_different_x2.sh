#!/usr/bin/env bash
# Records issue 37's `logs`-side failures of a 2-rank PyTorch job under torchrun on a 2-GPU machine
# (fixtures/logs/h200x2_different; the 4-GPU recordings are tools/device/record_different.sh's): one rank with
# its own NCCL_PROTO, a rank late to init (the job killed from outside), a float16/float32 all_reduce, and
# another process holding GPU 1 while rank 1 runs out of memory. NCCL_DEBUG=INFO everywhere. proto_ll and
# late_init run at once, the others alone. Writes $OUT/different_x2.tgz (torchrun.log per case, fault and exit
# times in epoch ms). Usage: tools/device/record_different_x2.sh
set -u
H=$(cd "$(dirname "$0")" && pwd)
export NCCL_NVLS_ENABLE=0 NCCL_MNNVL_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1 NCCL_DEBUG=INFO
O=${OUT:-device_out}
L=$O/different_x2
mkdir -p "$L"
{ python3 -c 'import torch; print("torch", torch.__version__, "nccl", torch.cuda.nccl.version())'
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > "$L/versions.txt" 2>&1

run() {  # name worker_case diff_rank diff_env kill_after_s [VAR=VALUE...]
  local n=$1 c=$2 r=$3 e=$4 k=$5 d=$L/$1 t0 rc
  shift 5
  mkdir -p "$d"
  t0=$(date +%s%3N)
  env FAULT_FILE="$d/fault" PG_TIMEOUT=10 DIFF_RANK="$r" DIFF_ENV="$e" "$@" timeout -k 5 "$k" \
    python3 -m torch.distributed.run --standalone --nproc_per_node=2 --no-python "$H/rank_env.sh" \
    python3 "$H/different_worker.py" "$c" > "$d/torchrun.log" 2>&1
  rc=$?
  echo "$rc $t0 $(date +%s%3N)" > "$d/exit_ms"
  echo "$n: exit $rc after $(( $(date +%s%3N) - t0 )) ms"
}

run proto_ll healthy 1 NCCL_PROTO=LL 45 &
run late_init late_init - - 30 LATE_S=60 &
wait
run dtype dtype - - 45 TORCH_FR_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1
ls -la /tmp/nccl_trace_rank_* > "$L/default_dumps.txt" 2>&1
mkdir -p "$L/dtype/fr_default" && cp /tmp/nccl_trace_rank_* "$L/dtype/fr_default/" 2>/dev/null
python3 "$H/gpu_hog.py" 1 "$L/hog_ready" 60 &
hog=$!
for _ in $(seq 100); do [ -s "$L/hog_ready" ] && break; sleep 0.3; done
{ echo "hog pid $hog: $(cat "$L/hog_ready")"; nvidia-smi; } > "$L/hog.txt" 2>&1
run oom oom - - 45
kill $hog; wait $hog 2>/dev/null
(cd "$O" && tar czf different_x2.tgz different_x2 && rm -rf different_x2)
