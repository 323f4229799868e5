#!/bin/bash
# Device batch for issue 30 item 5 (a stopped rank is named, and ends the run within 10 s of the stop), for a
# 4x H100 machine, run from anywhere: stuck_rank_gpu.sh DIR, where DIR holds a stripped distdoctor and lib/ (its
# shared libraries), as tools/device/stage_comm.sh stages them (default: this script's own folder).
#   1. bench all_reduce -b 8G -e 8G -n 200, rank 3's worker SIGSTOPped 8 s after it started (in the timed loop)
#   2. bench all_reduce -b 1G -e 1G -n 2000, the same
#   3. check --local --collectives, rank 1's worker SIGSTOPped 0.3 s after it started (in its init: the pass
#      itself lasts about a second)
#   4. bench all_reduce -b 8G -e 8G -n 200 with rank 3 stalled in its own code (--fault 3:stall@0, state S):
#      no /proc sign, so the others' per-run progress deadline must end it
#   5. healthy: bench all_reduce -b 8G -e 8G -n 20, bench all_reduce -b 16M -e 1G -n 50, check --collectives
#      (must stay clean: no finding above info)
# Each run's JSON, stderr and a summary line (exit code, wall time, time from the stop to the end, the first
# failing finding) go into one tar, $OUT/stuck_rank.tar.gz, and summary.txt beside it. Every step runs under
# `timeout`; the whole batch stays under 3 minutes (BUDGET_S, default 175). NCCL_NVLS_ENABLE=0 throughout.
# Usage: here `tools/device/stage_comm.sh` (stages into .devcarry/comm), then on the device, from the checkout:
#   OUT=DIR tools/device/stuck_rank_gpu.sh .devcarry/comm      (carry .devcarry/comm)
set -u
HERE=$(cd "${1:-$(dirname "$0")}" && pwd)
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=$HERE/lib:${LD_LIBRARY_PATH:-}
DD=$HERE/distdoctor
O=${OUT:-${TMPDIR:-/tmp}/dd-out}
W=$(mktemp -d "${TMPDIR:-/tmp}/dd_stuck.XXXXXX")
mkdir -p "$O"
S=$W/summary.txt
END=$((SECONDS + ${BUDGET_S:-175}))
NCCL=$(python3 -c "import nvidia.nccl,os;print(os.path.join(list(nvidia.nccl.__path__)[0],'lib','libnccl.so.2'))" 2>/dev/null)
NCCL_ARG=()
[ -n "$NCCL" ] && [ -e "$NCCL" ] && NCCL_ARG=(--nccl-lib "$NCCL")
now_ms() { date +%s%3N; }
left() { echo $((END - SECONDS)); }
first_fail() {
  python3 - "$1" <<'PY' 2>/dev/null
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("no JSON:", e); sys.exit()
bad = [f for f in d.get("findings", []) if f.get("severity") in ("warn", "fail")]
print(" | ".join(f'{f["severity"]} {f["id"]}: {f["title"]}' for f in bad[:3]) or "clean (no finding above info)")
PY
}
{ echo "host $(hostname) $(date -u +%FT%TZ) NCCL=${NCCL:-loader default} NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE"
  nvidia-smi --query-gpu=index,name --format=csv,noheader; } >"$S" 2>&1

# stopped NAME RANK DELAY_S SIGNAL LIMIT_S ARGS...: runs distdoctor ARGS; DELAY_S s after rank RANK's worker
# appears, sends it SIGNAL (STOP; "none" to only watch); records wall time and time from the signal to the end.
stopped() {
  local name=$1 rank=$2 delay=$3 sig=$4 limit=$5
  shift 5
  [ "$(left)" -gt 20 ] || { echo "$name: skipped, budget spent" >>"$S"; return; }
  [ "$limit" -le "$(left)" ] || limit=$(left)
  local t0
  t0=$(now_ms)
  timeout -s KILL "$limit" "$DD" "$@" --json >"$W/$name.json" 2>"$W/$name.err" &
  local run=$! w="" ts=""
  if [ "$sig" != none ]; then
    for _ in $(seq 600); do
      w=$(pgrep -f -- "--as-worker .* --worker-ranks $rank\$" | head -1)
      [ -n "$w" ] && break
      kill -0 $run 2>/dev/null || break
      sleep 0.05
    done
    if [ -n "$w" ]; then
      sleep "$delay"
      kill -"$sig" "$w" && ts=$(now_ms)
      grep -o "^State:.*" "/proc/$w/status" >>"$W/$name.err" 2>/dev/null
    fi
  fi
  wait $run
  local rc=$? t1
  t1=$(now_ms)
  [ -n "$w" ] && { kill -CONT "$w" 2>/dev/null; kill -KILL "$w" 2>/dev/null; }
  pkill -KILL -f -- "--as-worker .* --worker-ranks" 2>/dev/null  # leftovers of a run cut by timeout
  local after="-"
  [ -n "$ts" ] && after=$(awk -v a="$t1" -v b="$ts" 'BEGIN{printf "%.1f s", (a-b)/1000}')
  printf '%s: rc=%s wall=%s after_%s=%s worker=%s | %s\n' "$name" "$rc" \
    "$(awk -v a="$t1" -v b="$t0" 'BEGIN{printf "%.1f s", (a-b)/1000}')" "$sig" "$after" "${w:--}" \
    "$(first_fail "$W/$name.json")" >>"$S"
}

stopped bench_8g_n200_stop 3 8 STOP 60 bench -c all_reduce -b 8G -e 8G -n 200 "${NCCL_ARG[@]}"
stopped bench_1g_n2000_stop 3 8 STOP 45 bench -c all_reduce -b 1G -e 1G -n 2000 "${NCCL_ARG[@]}"
stopped check_coll_stop 1 0.3 STOP 35 check --local --collectives "${NCCL_ARG[@]}"
stopped bench_8g_stall_fault 3 0 none 45 bench -c all_reduce -b 8G -e 8G -n 200 --fault 3:stall@0 "${NCCL_ARG[@]}"
stopped healthy_8g_n20 0 0 none 30 bench -c all_reduce -b 8G -e 8G -n 20 "${NCCL_ARG[@]}"
stopped healthy_sweep 0 0 none 25 bench -c all_reduce,all_gather -b 16M -e 1G -f 4 -n 50 "${NCCL_ARG[@]}"
stopped healthy_check 0 0 none 25 check --local --collectives "${NCCL_ARG[@]}"

cp "$S" "$O/summary.txt"
tar -C "$W" -czf "$O/stuck_rank.tar.gz" .
rm -rf "$W"
cat "$O/summary.txt"
