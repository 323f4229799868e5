#!/usr/bin/env bash
# Records issue 37's "the rank that is different" failures of a 4-rank PyTorch job on a 4-GPU machine, each
# under torchrun and under `distdoctor launch` (tools/device/different_worker.py; per-rank environments by
# tools/device/rank_env.sh): torchrun's combined output with NCCL_DEBUG=INFO and its Flight Recorder dumps,
# launch's --json report, stderr and run folder, the fault moment and each run's exit (epoch ms).
# Usage: tools/device/record_different.sh DIR [NAME...] (DIR: a stripped distdoctor and lib/, see
# tools/device/stage_binary.sh). Writes $OUT/different.tgz. On a 1-GPU machine: BACKEND=gloo NCCL_SUB=1
# HOG_GPU=0 (the steps on CPU tensors, each rank's own one-rank NCCL group on the GPU; see the worker).
# LAUNCH_FLAGS: more flags for launch. On 2 GPUs: NPROC=2 ODD=1 (every fault on rank 1). SKIP_TORCHRUN=1:
# launch's runs only.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/torch_nccl_env.sh" "$1"
DIR=$(cd "$1" && pwd)
export PYTHONUNBUFFERED=1 NCCL_DEBUG=INFO
O=${OUT:-device_out}
L=$O/different
mkdir -p "$L"
# Another NCCL than PyTorch's: the system's, wherever it is installed.
SYS_NCCL=$(ls /usr/lib/x86_64-linux-gnu/libnccl.so.2.* /usr/local/cuda/lib64/libnccl.so.2.* /usr/local/cuda/targets/*/lib/libnccl.so.2.* 2>/dev/null | head -1)
{ python3 -c 'import torch; print("torch", torch.__version__, "nccl", torch.cuda.nccl.version())'
  echo "pytorch's nccl: $(ls -l "$NCCL" | sed 's/.*site-packages/site-packages/')"
  echo "system nccl: ${SYS_NCCL:-none}"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > "$L/versions.txt" 2>&1

# name worker_case diff_rank diff_env launch_pg_timeout
CASES=(
  "healthy healthy - - 600"
  "exit0 exit0 - - 600"
  "other_nccl healthy 1 LD_PRELOAD=$SYS_NCCL 600"
  "proto_ll healthy ${ODD:-3} NCCL_PROTO=LL 600"
  "p2p_off healthy 1 NCCL_P2P_DISABLE=1,NCCL_SHM_DISABLE=1 600"
  "late_init late_init - - 600"
  "dtype dtype - - 10"
)

torchrun_case() {  # name case diff_rank diff_env
  local d=$L/$1/torchrun t0 rc
  mkdir -p "$d/fr"
  t0=$(date +%s%3N)
  FAULT_FILE="$d/fault" PG_TIMEOUT=10 DIFF_RANK=$3 DIFF_ENV="${4//,/ }" TORCH_FR_BUFFER_SIZE=2000 \
    TORCH_NCCL_DUMP_ON_TIMEOUT=1 TORCH_FR_DUMP_TEMP_FILE="$d/fr/fr_trace_" \
    timeout -k 5 45 python3 -m torch.distributed.run --standalone --nproc_per_node=${NPROC:-4} --no-python \
    "$HERE/rank_env.sh" python3 "$HERE/different_worker.py" "$2" > "$d/torchrun.log" 2>&1
  rc=$?
  echo "$rc $t0 $(date +%s%3N)" > "$d/exit_ms"
  echo "$1 torchrun: exit $rc after $(( $(date +%s%3N) - t0 )) ms"
}

launch_case() {  # name case diff_rank diff_env pg_timeout
  local d=$L/$1/launch t0 rc
  mkdir -p "$d"
  t0=$(date +%s%3N)
  FAULT_FILE="$d/fault" PG_TIMEOUT=$5 DIFF_RANK=$3 DIFF_ENV="${4//,/ }" timeout -k 5 60 \
    "$DIR/distdoctor" launch --nproc-per-node ${NPROC:-4} --hang-timeout 10 ${LAUNCH_FLAGS:-} --log-dir "$d/logs" --job-id "$1" --tee none \
    --json -- "$HERE/rank_env.sh" python3 "$HERE/different_worker.py" "$2" > "$d/report.json" 2> "$d/launch.err"
  rc=$?
  echo "$rc $t0 $(date +%s%3N)" > "$d/exit_ms"
  echo "$1 launch: exit $rc after $(( $(date +%s%3N) - t0 )) ms; $(python3 -c "import json,sys;r=json.load(open(sys.argv[1]));print(r['verdict'], '|', ' || '.join(f['id']+': '+f['title'][:200] for f in r['findings'][:2]))" "$d/report.json" 2>&1)"
}

want() { [ ${#NAMES[@]} = 0 ] && return 0; local n; for n in "${NAMES[@]}"; do [ "$n" = "$1" ] && return 0; done; return 1; }
shift
NAMES=("$@")
lane() {
  local i
  for ((i = $1; i < ${#CASES[@]}; i += 3)); do
    read -r n c r e p <<<"${CASES[$i]}"
    want "$n" || continue
    [ -n "${SKIP_TORCHRUN:-}" ] || torchrun_case "$n" "$c" "$r" "$e"
    launch_case "$n" "$c" "$r" "$e" "$p"
  done
}
lane 0 & lane 1 & lane 2 & wait

# Another process holds GPU 1 (all but 8 GiB); every rank allocates 16 GiB at start: rank 1 runs out. Alone.
if want oom; then
  for how in torchrun launch; do
    python3 "$HERE/gpu_hog.py" "${HOG_GPU:-1}" "$L/hog_ready" 90 &
    hog=$!
    for _ in $(seq 100); do [ -s "$L/hog_ready" ] && break; sleep 0.3; done
    if [ $how = torchrun ]; then [ -n "${SKIP_TORCHRUN:-}" ] || torchrun_case oom oom - -; else launch_case oom oom - - 600; fi
    kill $hog; wait $hog 2>/dev/null; rm -f "$L/hog_ready"
  done
fi
find "$L" \( -name '*.pipe' -o -name '*.fifo' \) -delete
(cd "$O" && tar czf different.tgz different && rm -rf different)
ls -la "$O"
