#!/bin/bash
# Runs every staged libFuzzer target (tools/device/stage_fuzz.sh) on a many-core machine: WORKERS independent
# instances per target for SECONDS each, sharing one growing corpus per target (seeded from the repo's), all
# targets at once. Writes a summary (per target: fuzz time, executions, coverage, crashes) and any reproducer
# to OUTDIR, with the grown corpus minimized (OUTDIR/corpus/NAME). Exits 1 when a target crashed, hung or leaked, 2 on bad usage.
# Usage: [MERGE=0] fuzz_farm.sh SECONDS OUTDIR [WORKERS]   (WORKERS default: cores / targets)
set -u
here=$(cd "$(dirname "$0")" && pwd)
seconds=${1:?usage: fuzz_farm.sh SECONDS OUTDIR [WORKERS]}
out=${2:?usage: fuzz_farm.sh SECONDS OUTDIR [WORKERS]}
names=()
for b in "$here"/bin/*_fuzz; do names+=("$(basename "$b" _fuzz)"); done
[ ${#names[@]} -gt 0 ] || { echo "fuzz_farm: no targets in $here/bin"; exit 2; }
workers=${3:-$(($(nproc) / ${#names[@]}))}
[ "$workers" -ge 1 ] || workers=1
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out/artifacts" "$out/logs"
echo "host: $(nproc) cores; ${#names[@]} targets x $workers workers x $seconds s"
for name in "${names[@]}"; do
  mkdir -p "$work/$name" "$out/artifacts/$name"
  for w in $(seq 1 "$workers"); do
    "$here/bin/${name}_fuzz" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -use_value_profile=1 \
      -print_final_stats=1 -seed="$((w * 7919))" -artifact_prefix="$out/artifacts/$name/" \
      "$work/$name" "$here/corpus/$name" >"$out/logs/$name.$w.log" 2>&1 &
  done
done
wait
# The grown corpus, minimized (what covers something new), comes back so the repo's seeds can take it
# (MERGE=0 skips it).
for name in "${names[@]}"; do
  [ "${MERGE:-1}" = 0 ] && break
  mkdir -p "$out/corpus/$name"
  "$here/bin/${name}_fuzz" -merge=1 -timeout=5 -rss_limit_mb=2048 "$out/corpus/$name" "$work/$name" \
    >"$out/logs/$name.merge.log" 2>&1 &
done
wait
rc=0
printf '%-13s %10s %12s %9s %8s %s\n' target "fuzz s" executions coverage corpus result
for name in "${names[@]}"; do
  runs=0 cov=0 bad=0
  for w in $(seq 1 "$workers"); do
    log="$out/logs/$name.$w.log"
    r=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    c=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')
    runs=$((runs + ${r:-0}))
    [ "${c:-0}" -gt "$cov" ] && cov=$c
    grep -qE '^==[0-9]+==ERROR|runtime error|ALARM: working on the last Unit|out-of-memory' "$log" && bad=$((bad + 1))
  done
  n_art=$(find "$out/artifacts/$name" -type f | wc -l)
  result=clean
  if [ "$bad" -gt 0 ] || [ "$n_art" -gt 0 ]; then
    result="FAILED: $bad workers reported, $n_art reproducers"
    rc=1
  fi
  printf '%-13s %10d %12d %9d %8d %s\n' "$name" "$((seconds * workers))" "$runs" "$cov" \
    "$(ls "$work/$name" | wc -l)" "$result"
  # Clean workers' logs are long and say nothing new: keep the last lines of one of them.
  if [ "$result" = clean ]; then
    tail -n 12 "$out/logs/$name.1.log" >"$out/logs/$name.tail.log"
    rm -f "$out/logs/$name".[0-9]*.log
  fi
done
exit $rc
