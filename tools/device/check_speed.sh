#!/bin/bash
# Issue 26: `check --collectives` wall time, side by side, on this GPU node: the binaries in NEW and OLD
# (each a folder with distdoctor and lib/), on all GPUs and on two, RUNS runs each (interleaved), then NCCL's
# P2P channel count for the pass tried by hand on NEW, the findings of both, and NCCL's own init timings.
# Usage (repo root on the device): tools/device/check_speed.sh NEW OLD [RUNS [LABEL=ENV=VAL[,ENV=VAL]...]]: each
# extra argument is a variant run 3 times on NEW with all GPUs (e.g. eager=CUDA_MODULE_LOADING=EAGER).
# Writes $OUT/speed/: summary.txt, each label's wall times and --timing tables.
set -u
NEW=$(cd "${1:?new dir}" && pwd)
OLD=$(cd "${2:?old dir}" && pwd)
RUNS=${3:-5}
shift 3 2>/dev/null || shift $#
O=${OUT:-${TMPDIR:-/tmp}/dd-speed}/speed
mkdir -p "$O"
S=$O/summary.txt
: >"$S"
. "$(dirname "$0")/torch_nccl_env.sh" "$NEW"
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader >>"$S"
echo "NCCL: $NCCL" >>"$S"
one() {  # label dir cvd extra-env... : one timed run, its table kept
  local label=$1 dir=$2 cvd=$3; shift 3
  local f=$O/$label.$(date +%s%N)
  local t0=$EPOCHREALTIME
  if [ -n "$cvd" ]; then
    env "$@" CUDA_VISIBLE_DEVICES="$cvd" LD_LIBRARY_PATH="$dir/lib:$NCCL_DIR/lib" "$dir/distdoctor" check --local \
      --collectives --timing --nccl-lib "$NCCL" >"$f.out" 2>"$f.err"
  else
    env "$@" LD_LIBRARY_PATH="$dir/lib:$NCCL_DIR/lib" "$dir/distdoctor" check --local --collectives --timing \
      --nccl-lib "$NCCL" >"$f.out" 2>"$f.err"
  fi
  local rc=$? w
  w=$(secs "$t0")
  echo "$label rc=$rc wall=$w $(grep -o 'alltoall 1 MiB[^,]*' "$f.out" | head -1)" >>"$S"
  echo "$w" >>"$O/$label.walls"
  { echo "-- $label rc=$rc wall=$w"; grep -E '^ *#|verdict' "$f.out"; grep -h '^\[\|warn\|fail' "$f.out" | grep -v '\[ ok \]\|\[info\]' ; } >>"$O/$label.tables"
  rm -f "$f.out" "$f.err"
}
for i in $(seq "$RUNS"); do
  one old4 "$OLD" "" X=1
  one new4 "$NEW" "" X=1
  one old2 "$OLD" 0,1 X=1
  one new2 "$NEW" 0,1 X=1
done
for v in "$@"; do
  label=${v%%=*}
  IFS=, read -r -a envs <<<"${v#*=}"
  for i in 1 2 3; do one "new4_$label" "$NEW" "" "${envs[@]}"; done
done
med() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)] " (" a[1] "-" a[NR] ", n=" NR ")"}'; }
echo "== medians (s)" >>"$S"
for w in "$O"/*.walls; do echo "$(basename "$w" .walls): $(med "$w")" >>"$S"; done
for d in OLD NEW; do
  dir=${!d}
  LD_LIBRARY_PATH="$dir/lib:$NCCL_DIR/lib" "$dir/distdoctor" check --local --collectives --json --nccl-lib "$NCCL" \
    >"$O/$d.json" 2>/dev/null
  python3 - "$O/$d.json" "$d" >>"$S" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("== %s --json: verdict %s" % (sys.argv[2], r.get("verdict")))
for f in r.get("findings", []):
    print("  %-8s %-32s %s" % (f.get("severity"), f.get("id"), f.get("title", "")[:90]))
c = r.get("measurements", {}).get("collectives", {})
print("  transports", c.get("nccl_transports"), "pass_env", c.get("pass_env"))
for o in c.get("ops", []):
    print("  op %-16s %10s B  %s  time_us %s busbw %s wrong %s" % (o.get("collective"), o.get("bytes"), o.get("status"), o.get("time_us"), o.get("busbw_gbps"), o.get("wrong")))
PY
done
rm -rf "$O/keep" && mkdir -p "$O/keep"
TMPDIR=$O/keep DD_KEEP_TMP=1 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P LD_LIBRARY_PATH="$NEW/lib:$NCCL_DIR/lib" \
  "$NEW/distdoctor" check --local --collectives --nccl-lib "$NCCL" >/dev/null 2>&1
echo "== NCCL init timings and P2P lines (new, 4 GPUs)" >>"$S"
grep -rh 'Init timings\|via P2P\|via SHM\|Could not\|WARN' "$O/keep" 2>/dev/null | sed 's/^.*NCCL \(INFO\|WARN\)/  NCCL \1/' | sort | uniq -c | sort -rn | head -30 >>"$S"
for i in 1 2 3; do
  t0=$EPOCHREALTIME
  LD_LIBRARY_PATH="$NEW/lib:$NCCL_DIR/lib" "$NEW/distdoctor" check --local --nccl-lib "$NCCL" >/dev/null 2>&1
  echo "check alone (new): wall $(secs "$t0") s" >>"$S"
done
rm -rf "$O/keep"
cat "$S"
