#!/usr/bin/env bash
# Records real hangs and failures of a 4-rank PyTorch job (tools/device/hang_worker.py) under torchrun on a
# 4-GPU machine, for issue 30's fixtures: torchrun's combined output per case, Flight Recorder dumps (dump on
# timeout, and an on-demand dump through the pipe trigger a few seconds after the fault), Python stacks from
# faulthandler on SIGUSR2 (registered by a sitecustomize.py on PYTHONPATH, as `launch` would), the fault time
# and each case's wall time. Cases run in three lanes at once (hangs are dominated by the 10 s PG timeout); the
# healthy step-time runs (Flight Recorder on and off) run alone at the end. Writes $OUT/hangs.tgz and prints a
# summary. Usage: tools/device/record_hangs.sh [CASE...]
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
HERE=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-device_out}
L=$O/hangs
mkdir -p "$L"
W=$(mktemp -d "${TMPDIR:-/tmp}/dd_hangs.XXXXXX")
mkdir -p "$W/site"
cat > "$W/site/sitecustomize.py" <<'PY'
import faulthandler, os, signal
_p = os.environ.get("DD_STACK_FILE")
if _p:
    _f = open(_p + os.environ.get("RANK", "x"), "a")
    faulthandler.register(signal.SIGUSR2, file=_f, all_threads=True)
PY
python3 -c 'import torch; print("torch", torch.__version__, "nccl", torch.cuda.nccl.version())' > "$L/versions.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv >> "$L/versions.txt" 2>&1
TL=$(python3 -c 'import torch, os; print(os.path.dirname(torch.__file__) + "/lib")')
for so in "$TL"/libtorch_cuda.so "$TL"/libtorch_cpu.so; do
  strings "$so" | grep -E '^TORCH_(FR|NCCL)_[A-Z_]+$' ; done | sort -u > "$L/torch_env_names.txt"

# Poke a hung case: wait for the fault, then SIGUSR2 every worker (stacks) and write each rank's dump pipe.
poke() {  # case_dir agent_pid
  local d=$1 agent=$2 i
  for i in $(seq 1 120); do [ -f "$d/fault" ] && break; sleep 0.25; done
  [ -f "$d/fault" ] || return
  sleep 4
  local a p  # agent is `timeout`; its child is torchrun's agent, whose children are the workers
  for a in $(pgrep -P "$agent"); do for p in $(pgrep -P "$a"); do kill -USR2 "$p" 2>/dev/null; done; done
  date +%s%3N > "$d/poke_ms"
  for f in "$d"/fr/pipe_*.pipe; do [ -p "$f" ] && timeout 2 sh -c "echo 1 > '$f'"; done
  sleep 3
  mkdir -p "$d/fr_ondemand"
  cp "$d"/fr/fr_trace_* "$d/fr_ondemand/" 2>/dev/null
  ls -l --time-style=+%s%3N "$d/fr" > "$d/fr_ondemand/listing.txt" 2>&1
}

run_case() {  # case [fr]
  local c=$1 fr=${2:-fr} d=$L/$1
  mkdir -p "$d/fr" "$d/stacks"
  local envs=(FAULT_FILE="$d/fault" PYTHONPATH="$W/site" DD_STACK_FILE="$d/stacks/rank")
  [ "$fr" = fr ] && envs+=(TORCH_FR_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1 TORCH_FR_DUMP_TEMP_FILE="$d/fr/fr_trace_"
    TORCH_NCCL_DEBUG_INFO_PIPE_FILE="$d/fr/pipe_")
  local t0; t0=$(date +%s%3N); echo "$t0" > "$d/start_ms"
  env "${envs[@]}" timeout -k 5 90 python3 -m torch.distributed.run --standalone --nproc_per_node=4 \
    "$HERE/hang_worker.py" "$c" > "$d/torchrun.log" 2>&1 &
  local agent=$!
  poke "$d" "$agent" &
  wait "$agent"; local rc=$?
  echo "$rc $(( $(date +%s%3N) - t0 ))" > "$d/exit_ms"
  echo "$c: exit $rc after $(( $(date +%s%3N) - t0 )) ms"
}

rdzv_cases() {
  local d=$L/rdzv_unresolvable t0; mkdir -p "$d"; t0=$(date +%s%3N)
  timeout -k 5 40 python3 -m torch.distributed.run --nnodes 2 --node_rank 1 --nproc_per_node 2 \
    --master_addr no-such-master.invalid --master_port 29511 "$HERE/hang_worker.py" healthy > "$d/torchrun.log" 2>&1
  echo "rdzv_unresolvable: exit $? after $(( $(date +%s%3N) - t0 )) ms" | tee "$d/exit_ms"
  d=$L/rdzv_port_in_use; mkdir -p "$d"
  python3 -c 'import socket,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("0.0.0.0", 29512)); s.listen(); time.sleep(60)' &
  local hold=$!; sleep 1; t0=$(date +%s%3N)
  timeout -k 5 40 python3 -m torch.distributed.run --nnodes 1 --node_rank 0 --nproc_per_node 4 \
    --master_addr 127.0.0.1 --master_port 29512 "$HERE/hang_worker.py" healthy > "$d/torchrun.log" 2>&1
  echo "rdzv_port_in_use: exit $? after $(( $(date +%s%3N) - t0 )) ms" | tee "$d/exit_ms"
  kill $hold 2>/dev/null
  d=$L/rdzv_nnodes_mismatch; mkdir -p "$d"; t0=$(date +%s%3N)
  CUDA_VISIBLE_DEVICES=0,1 timeout -k 5 45 python3 -m torch.distributed.run --nnodes 2 --node_rank 0 \
    --nproc_per_node 2 --master_addr 127.0.0.1 --master_port 29513 "$HERE/hang_worker.py" healthy > "$d/node0.log" 2>&1 &
  local a=$!; sleep 1
  CUDA_VISIBLE_DEVICES=2,3 timeout -k 5 45 python3 -m torch.distributed.run --nnodes 3 --node_rank 1 \
    --nproc_per_node 2 --master_addr 127.0.0.1 --master_port 29513 "$HERE/hang_worker.py" healthy > "$d/node1.log" 2>&1
  echo "node1 exit $?" > "$d/exit_ms"; wait $a; echo "node0 exit $?" >> "$d/exit_ms"
  echo "rdzv_nnodes_mismatch: $(tr '\n' ' ' < "$d/exit_ms") after $(( $(date +%s%3N) - t0 )) ms"
}

if [ $# -gt 0 ]; then
  for c in "$@"; do run_case "$c"; done
else
  ( run_case desync_op; run_case desync_size; run_case desync_pg; run_case late_init ) &
  ( run_case stall_idle; run_case stall_busy; run_case sigkill nofr; run_case exception nofr ) &
  ( run_case dataloader nofr; rdzv_cases ) &
  wait
  # Step time with the Flight Recorder on and off (alone on the machine): 16M floats, 300 steps, twice each.
  for rep in 1 2; do for fr in nofr fr; do
    d=$L/healthy_${fr}_$rep; mkdir -p "$d/fr"
    envs=(STEPS=300 ELEMS=16777216)
    [ $fr = fr ] && envs+=(TORCH_FR_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1 TORCH_FR_DUMP_TEMP_FILE="$d/fr/fr_trace_")
    env "${envs[@]}" timeout -k 5 90 python3 -m torch.distributed.run --standalone --nproc_per_node=4 \
      "$HERE/hang_worker.py" healthy > "$d/torchrun.log" 2>&1
    echo "healthy $fr $rep: exit $?, median step ms $(grep -o 'done in [0-9.]*' "$d/torchrun.log" | awk '{print $3}' | sort -n | awk '{a[NR]=$1} END {print a[int(NR/2)+1]}')"
  done; done
fi
rm -rf "$W"
# (the fixtures keep these timing files in one timings.txt beside the case folders)
(cd "$O" && tar czf hangs.tgz hangs && rm -rf hangs)
ls -la "$O"
