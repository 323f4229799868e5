#!/usr/bin/env bash
# GPU-machine batch for the architecture change (issue 9): runs the same commands with the binary before
# (OLD) and after (NEW) and prints, for each, exit code and finding ids, so behaviour can be compared; then
# `check` speed of both, and the facts of this machine as a fixture.
# Usage (on the device, repo root): tools/device/issue9_batch.sh OLD_DIR NEW_DIR  (each: distdoctor + lib/)
# Results go to $OUT (default ./device_out): summary.txt, log.txt, facts.json.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OLD=$(cd "$1" && pwd)
NEW=$(cd "$2" && pwd)
O=${OUT:-device_out}
mkdir -p "$O"
S=$O/summary.txt
L=$O/log.txt
ids() { python3 -c 'import json,sys
try:
  j=json.load(sys.stdin); print(j.get("verdict"), sorted({f["id"] for f in j.get("findings",[])}))
except Exception as e: print("no json:", e)'; }
run_both() {  # run_both NAME [VAR=value...] -- SUBCOMMAND ARGS...
  local name=$1
  shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  for which in OLD NEW; do
    local dir=$OLD
    [ $which = NEW ] && dir=$NEW
    local t0=$(date +%s%N)
    env LD_LIBRARY_PATH=$dir/lib "${envs[@]}" timeout 120 "$dir/distdoctor" "$@" --json >"$O/$which.$name.json" 2>>"$L"
    local rc=$?
    local ms=$((($(date +%s%N) - t0) / 1000000))
    printf '%-20s %s rc=%s %6d ms %s\n' "$name" "$which" "$rc" "$ms" "$(ids <"$O/$which.$name.json")" >>"$S"
  done
}
: >"$S"
nvidia-smi -L >>"$S" 2>&1
run_both check -- check
run_both check_cuinit -- check --cuda-init
run_both coll -- check --local --collectives
run_both bench_quick -- bench --quick
run_both sweep -- bench -c all -b 1K -e 64M -f 8
run_both threads -- bench --threads -c all -b 1M -e 1M
run_both dup_gpu -- bench --nproc 2 --gpus 0,0 -b 1M -e 1M
run_both too_few CUDA_VISIBLE_DEVICES=0 -- bench --nproc 2 -b 1M -e 1M
run_both no_lib -- bench -b 1M -e 1M --engine nccl --nccl-lib /nonexistent/libnccl.so.2
run_both corrupt -- bench -b 1M -e 1M --fault 0:corrupt@0
run_both stall -- bench -b 1M -e 1M --fault 0:stall@0 --timeout 5
run_both bad_ifname NCCL_SOCKET_IFNAME=nosuch0 -- bench -b 1M -e 1M
for which in OLD NEW; do
  dir=$OLD
  [ $which = NEW ] && dir=$NEW
  echo "$which libraries: $(grep -ho '"library": "[^"]*"' "$O"/$which.*.json | sort | uniq -c | tr -s ' \n' ' ')" >>"$S"
  echo "$which check speed: $(LD_LIBRARY_PATH=$dir/lib bench/check_speed.sh 20 "$dir/distdoctor")" >>"$S"
done
LD_LIBRARY_PATH=$NEW/lib "$NEW/distdoctor" facts --json >"$O/facts.json" 2>>"$L"
echo "leftover temp dirs: $(ls "${TMPDIR:-/tmp}" | grep -c distdoctor-comm)" >>"$S"
cat "$S"
