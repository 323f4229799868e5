#!/bin/bash
# Device check of bench's buffer sizing (issue 10): two NCCL ranks on ONE GPU, each made to look like its
# own host (NCCL_HOSTID per rank, P2P/SHM off, sockets over lo), so a 1-GPU machine can run world=2.
#  1. the reported crash: reduce_scatter 1G..8G x2, in-place and out-of-place (OLD binary, if given, first)
#  2. every collective, both modes, 1K..64M by 4x, every timed run checked (--check all)
#  3. phase times of `check --collectives` and `bench --quick` (--timing), 3 runs each
#  0 (first). in-place reduce_scatter 1 MiB under compute-sanitizer memcheck, OLD and NEW
# Usage (repo root on the device): tools/device/bench_sweep.sh NEW_DIR [OLD_DIR]
#   each DIR: distdoctor + lib/, staged here with `tools/device/stage_comm.sh DIR` (e.g. .devcarry/bench).
# MEMCHECK=0 skips step 0. Writes summary.txt, log.txt and the JSON of every run under $OUT.
set -u
export NCCL_NVLS_ENABLE=0
NEW=$(cd "${1:-.devcarry/bench}" && pwd)
OLD=${2:+$(cd "$2" && pwd)}
O=${OUT:-${TMPDIR:-/tmp}/dd-bench-sweep}
mkdir -p "$O"
S=$O/summary.txt
L=$O/log.txt
: >"$S"
nvidia-smi -L >>"$S" 2>&1
# Rows per status, and the failed ones with their error (works for any bench --json).
rows() { python3 -c 'import json,sys,collections
try: j=json.load(open(sys.argv[1]))
except Exception as e: print("  no json:", e); sys.exit()
res=j.get("results",[]); c=collections.Counter(r.get("status","complete" if r.get("complete") else "incomplete") for r in res)
print("  verdict", j.get("verdict"), "rows", len(res), dict(c), "wrong", sum((r.get("wrong") or 0) for r in res))
for r in res:
  if not r.get("complete"): print("   ", r["collective"], r["bytes"], "in-place" if r["in_place"] else "out-of-place", r.get("status"), (r.get("error") or "")[:160])
' "$1"; }
# bench2 DIR NAME ARGS...: two ranks on GPU 0 as two hosts. By default the wrap gives each worker its
# NCCL_HOSTID (works with binaries older than --fake-hosts); FLAG=1 uses --fake-hosts instead; PRE is put
# before the worker (e.g. compute-sanitizer).
bench2() {
  local dir=$1 name=$2
  shift 2
  local wrap=(--worker-wrap "/usr/bin/env NCCL_HOSTID=dd-fake-host-{rank} ${PRE:-}")
  [ "${FLAG:-0}" = 1 ] && wrap=(--fake-hosts)
  local t0=$(date +%s%N)
  env LD_LIBRARY_PATH=$dir/lib NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_SOCKET_IFNAME=lo \
    timeout 580 "$dir/distdoctor" bench --engine nccl --nproc 2 --gpus 0,0 "${wrap[@]}" "$@" --json \
    >"$O/$name.json" 2>>"$L"
  local rc=$?
  echo "$name rc=$rc $((($(date +%s%N) - t0) / 1000000)) ms: $*" >>"$S"
  rows "$O/$name.json" >>"$S"
}
# 0. Deterministic: in-place reduce_scatter 1 MiB under compute-sanitizer memcheck. Before the fix the fill
#    kernel and NCCL write/read (n-1) chunks past the receive buffer: "Invalid __global__ write/read".
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -n "$CS" ] && [ "${MEMCHECK:-1}" = 1 ]; then
  for which in OLD NEW; do
    dir=$NEW
    [ $which = OLD ] && dir=$OLD
    [ -z "$dir" ] && continue
    PRE="$CS --tool memcheck --print-limit 20 --log-file $O/memcheck.$which.%p.txt" bench2 "$dir" "memcheck_$which" \
      -c reduce_scatter -b 1M -e 1M --in-place-only -w 0 -n 1 --timeout 120 --init-timeout 120
    echo "  memcheck $which: $(cat "$O"/memcheck.$which.*.txt 2>/dev/null | grep -c 'Invalid __global__') invalid accesses;" \
      "$(cat "$O"/memcheck.$which.*.txt 2>/dev/null | grep 'ERROR SUMMARY' | tr '\n' ' ')" >>"$S"
  done
else
  echo "memcheck step skipped (compute-sanitizer not found, or MEMCHECK=0)" >>"$S"
fi
REPRO=(-c reduce_scatter -b 1G -e 8G -f 2 -w 1 -n 2 --timeout 200)
[ -n "$OLD" ] && bench2 "$OLD" old_repro "${REPRO[@]}"
bench2 "$NEW" new_repro "${REPRO[@]}"
FLAG=1 bench2 "$NEW" new_repro_fakehosts_flag -c reduce_scatter,all_gather -b 1G -e 4G -f 2 -w 1 -n 2 --timeout 200
bench2 "$NEW" new_sweep_all -c all -b 1K -e 64M -f 4 -w 1 -n 3 --check all
bench2 "$NEW" new_sweep_all_bf16 -c all -b 1K -e 16M -f 4 -w 1 -n 2 -d bfloat16
FLAG=1 bench2 "$NEW" new_sweep_timing -c all_reduce -b 1M -e 256M -f 16 --timing
echo "--- timing (1 GPU) ---" >>"$S"
for i in 1 2 3; do
  for cmd in "check --local --collectives" "bench --quick"; do
    s=$EPOCHREALTIME
    LD_LIBRARY_PATH=$NEW/lib timeout 60 "$NEW/distdoctor" $cmd --timing --json >"$O/timing.${cmd// /_}.$i.json" 2>>"$L"
    rc=$?
    e=$EPOCHREALTIME
    python3 - "$O/timing.${cmd// /_}.$i.json" "$cmd" "$rc" "$s" "$e" >>"$S" <<'PY'
import json, sys
path, cmd, rc, s, e = sys.argv[1:]
try:
    j = json.load(open(path))
except Exception as ex:
    print(f"{cmd}: rc={rc} no json ({ex})"); sys.exit()
t = j.get("measurements", {}).get("collectives", {}).get("timing") or {}
ph = "; ".join(f"{p['phase'].split(' (')[0]} {p['seconds']:.3f}" for p in t.get("phases", []))
print(f"{cmd}: rc={rc} wall {float(e)-float(s):.2f} s; probe {t.get('probe_s', '-')}; run {t.get('total_s', '-')}: {ph}")
PY
  done
done
cat "$S"
