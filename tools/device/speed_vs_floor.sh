#!/bin/bash
# Issue 38 on a GPU node: `check` (no collectives) and `check --collectives` against nccl-tests' one-process
# start, the floor of any NCCL check (CUDA init of N GPUs, one communicator, one 1 MiB all_reduce:
# `all_reduce_perf -b 1M -e 1M -g N -n 1 -w 0`), on all GPUs of the node and on 2, RUNS rounds with the two
# tools interleaved (order turned every round), same NCCL (PyTorch's). nccl-tests is built here from the
# source in NT_SRC (no MPI) into .devcarry/nt-build, kept for the next call while the machine stays warm.
# Usage (repo root on the device): tools/device/speed_vs_floor.sh DD_DIR NT_SRC [RUNS]. Writes $OUT/floor/:
# summary.txt (every wall time, the medians and ratios) and the last run's outputs.
set -u
DIR=$(cd "${1:?distdoctor dir}" && pwd)
NT_SRC=$(cd "${2:?nccl-tests source}" && pwd)
RUNS=${3:-5}
O=${OUT:-${TMPDIR:-/tmp}/dd-floor}/floor
mkdir -p "$O"
S=$O/summary.txt
: >"$S"
. "$(dirname "$0")/torch_nccl_env.sh" "$DIR"
NG=$(nvidia-smi -L | wc -l)
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader >>"$S"
echo "NCCL: $(basename "$(readlink -f "$NCCL")")" >>"$S"
NT=$PWD/.devcarry/nt-build
if [ ! -x "$NT/build/all_reduce_perf" ]; then
  rm -rf "$NT" && mkdir -p "$NT" && cp -r "$NT_SRC"/. "$NT"/
  mkdir -p "$NT/ncclhome/lib" && ln -sf "$NCCL" "$NT/ncclhome/lib/libnccl.so" && ln -sf "$NCCL_DIR/include" "$NT/ncclhome/include"
  t0=$EPOCHREALTIME
  make -C "$NT" -j 16 src.build CUDA_HOME=/usr/local/cuda NCCL_HOME="$NT/ncclhome" \
    NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" >"$O/nt_build.txt" 2>&1 ||
    { echo "nccl-tests build failed" >>"$S"; tail -20 "$O/nt_build.txt" >>"$S"; cat "$S"; exit 1; }
  echo "nccl-tests built in $(secs "$t0") s" >>"$S"
fi
timed() {  # label, command...: one run, its wall time appended to $O/label.walls; a failure is said
  local label=$1 t0=$EPOCHREALTIME rc
  shift
  "$@" >"$O/$label.out" 2>"$O/$label.err"
  rc=$?
  local w
  w=$(secs "$t0")
  echo "$w" >>"$O/$label.walls"
  echo "$label rc=$rc wall=$w" >>"$S"
  case $label in
  nt*) [ "$rc" = 0 ] || echo "FAIL: $label exit $rc" >>"$S" ;;
  *) [ "$rc" -le 2 ] || echo "FAIL: $label exit $rc" >>"$S" ;;
  esac
}
dd_check() { "$DIR/distdoctor" check --local --nccl-lib "$NCCL" --json "$@"; }
for n in $NG 2; do
  [ "$n" -le "$NG" ] || continue
  cvd=$(seq -s, 0 $((n - 1)))
  export CUDA_VISIBLE_DEVICES=$cvd
  for i in $(seq "$RUNS"); do
    if [ $((i % 2)) = 1 ]; then
      timed "nt$n" "$NT/build/all_reduce_perf" -b 1M -e 1M -g "$n" -n 1 -w 0
      timed "coll$n" dd_check --collectives
    else
      timed "coll$n" dd_check --collectives
      timed "nt$n" "$NT/build/all_reduce_perf" -b 1M -e 1M -g "$n" -n 1 -w 0
    fi
    timed "check$n" dd_check
  done
  python3 - "$O" "$n" >>"$S" <<'PY'
import json, statistics, sys
o, n = sys.argv[1], sys.argv[2]
def med(label):
    return statistics.median(float(x) for x in open(f"{o}/{label}{n}.walls"))
nt, coll, chk = med("nt"), med("coll"), med("check")
print(f"{n} GPUs: nccl-tests floor {nt:.2f} s, check --collectives {coll:.2f} s (ratio {coll / nt:.2f}, target <= 0.85), "
      f"check {chk * 1000:.0f} ms (target < 100 ms)")
r = json.load(open(f"{o}/coll{n}.out"))
ops = r.get("measurements", {}).get("collectives", {}).get("ops", [])
wrong = sum(int(x.get("wrong") or 0) for x in ops)
print(f"  last --collectives: verdict {r.get('verdict')}, {len(ops)} ops, {wrong} wrong elements, findings "
      + ", ".join(f.get("id", "") for f in r.get("findings", []) if f.get("severity") != "ok"))
PY
done
unset CUDA_VISIBLE_DEVICES
"$DIR/distdoctor" check --local --nccl-lib "$NCCL" --collectives --timing >"$O/timing.txt" 2>&1
echo "== where the time goes (check --collectives --timing, all GPUs)" >>"$S"
grep -iE '^ *(#|[a-z_ ]+[0-9.]+ ?ms)|timing|total' "$O/timing.txt" | head -40 >>"$S"
cat "$S"
