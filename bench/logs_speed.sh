#!/usr/bin/env bash
# Benchmark of `distdoctor logs` on generated NCCL 2.28 INFO+COLL logs (bench/gen_nccl_logs.py):
#  1) one large file on one core (--jobs 1): MB/s;  2) 1 GB spread over 1000 files, all cores: seconds;
#  3) the large file gzipped; 4) both as full --json reports. Reports wall and user time and max RSS (/usr/bin/time -v). Data goes to a temp dir
# under $TMPDIR (removed on exit). `logs` exits with its verdict (0, 1, 2); 3 or a signal fails the benchmark.
# Usage: bench/logs_speed.sh [path/to/distdoctor]   (SIZE_MB=1024 FILES=1000 DD_BENCH_DIR=an empty dir)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
BIN=${1:-$here/../build/distdoctor}
WORK=${DD_BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/dd_logs_bench.XXXXXX")}
SIZE_MB=${SIZE_MB:-1024}
FILES=${FILES:-1000}
[ -x "$BIN" ] || { echo "no binary at $BIN (build first)"; exit 3; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)"; exit 3; }
mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT

echo "generating logs in $WORK ..."
python3 "$here/gen_nccl_logs.py" --out "$WORK/tmpl" --ranks 1 --bytes 100000000 >/dev/null
part="$WORK/tmpl/nccl.gpu-node-1.12345.log"
mkdir -p "$WORK/one"
n=$(( (SIZE_MB + 99) / 100 ))
for _ in $(seq "$n"); do cat "$part"; done > "$WORK/one/big.log"
# FILES files of SIZE_MB/FILES each, one per process (distinct pids, as NCCL_DEBUG_FILE=%h.%p writes them).
per=$(( SIZE_MB * 1000000 / FILES ))
head -c "$per" "$part" | sed '$d' > "$WORK/tmpl/small.log"
mkdir -p "$WORK/many"
for i in $(seq 0 $((FILES - 1))); do
  sed "s/:12345:/:$((20000 + i)):/g" "$WORK/tmpl/small.log" > "$WORK/many/nccl.gpu-node-1.$((20000 + i)).log"
done
gzip -c "$part" > "$WORK/tmpl/part.log.gz"
cat "$WORK/one/big.log" "$WORK/many"/* > /dev/null  # warm the page cache: we measure parsing, not the disk

run() {  # label, bytes, args...
  local label=$1 bytes=$2
  shift 2
  local out rc=0
  out=$( { /usr/bin/time -v "$BIN" logs "$@" > /dev/null; } 2>&1 ) || rc=$?
  if [ "$rc" -gt 2 ]; then  # 3: could not run; above: killed by a signal (time reports 128+N)
    echo "FAIL: distdoctor logs ($label) exit $rc"; tail -5 <<<"$out"; exit 1
  fi
  local wall user sys cpu rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' <<<"$out")
  user=$(awk -F': ' '/User time/ {print $2}' <<<"$out")
  sys=$(awk -F': ' '/System time/ {print $2}' <<<"$out")
  cpu=$(awk -F': ' '/Percent of CPU/ {print $2}' <<<"$out")
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' <<<"$out")
  awk -v l="$label" -v b="$bytes" -v w="$wall" -v u="$user" -v s="$sys" -v c="$cpu" -v r="$rss" 'BEGIN {
    printf "%-32s %5.0f MB  wall %5.2f s (%5.0f MB/s)  user+sys %5.2f s (%5.0f MB/s of CPU)  CPU %s  max RSS %4.1f MB\n",
           l, b/1e6, w, b/1e6/(w>0?w:1e-9), u+s, b/1e6/(u+s>0?u+s:1e-9), c, r/1024 }'
}
big=$(stat -c %s "$WORK/one/big.log")
many=$(cat "$WORK/many"/* | wc -c)
gz=$(stat -c %s "$part")
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
run "one file, --jobs 1" "$big" --brief --jobs 1 "$WORK/one/big.log"
run "$FILES files, all cores" "$many" --brief "$WORK/many"
run "$FILES files, --jobs 1" "$many" --brief --jobs 1 "$WORK/many"
run "gzip (100 MB of text), --jobs 1" "$gz" --brief --jobs 1 "$WORK/tmpl/part.log.gz"
# The whole report as JSON (every process, every finding): memory must stay bounded whatever the input size.
run "one file, --json, --jobs 1" "$big" --json --jobs 1 "$WORK/one/big.log"
run "$FILES files, --json, all cores" "$many" --json "$WORK/many"
