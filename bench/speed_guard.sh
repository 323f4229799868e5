#!/usr/bin/env bash
# Speed guard (issue 38): measures distdoctor against baseline commands run in the same call on the same data, as
# ratios that hold across machines, prints a table and fails (exit 1) when a ratio is more than 2x the one
# committed in bench/results/speed_guard_baseline.tsv, or when a command fails (distdoctor exit 3 or a signal, a
# baseline's non-zero exit). Cases and their baselines: bench/speed_guard_cases.py; the engine: speed_guard.py.
# CPU part: `logs` on one large generated NCCL log (--jobs 1) vs grep -c / wc -l, `logs` on FILES files (all
# cores) vs grep on all cores, `check --json` vs `distdoctor --version`, that vs `true`. GPU part, where GPUs and
# nccl-tests are (NCCL_TESTS_DIR=a built nccl-tests build/ dir, or all_reduce_perf on PATH): `check --collectives`
# on N GPUs vs all_reduce_perf -g N. Data goes to a temp dir under $TMPDIR, removed on exit. Exit 3: could not run.
# Usage: bench/speed_guard.sh [--cpu] [--record] [--gpus N] [--baseline FILE] [path/to/distdoctor]
#   --cpu (or CPU_ONLY=1): the CPU part only (what CI runs: make speed-guard)
#   --record (or GUARD_RECORD=1): write this run's ratios into the baseline file (keeps the cases not run)
#   SIZE_MB=200 (the large file, and the FILES files together), FILES=1000, REPS=N (rounds per case; default each
#   case's own: 11 for logs, 31 for check and start-up, 5 for --collectives)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '/^# Usage:/,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 3; }
cpu=${CPU_ONLY:-0}
record=${GUARD_RECORD:-0}
gpus=""
baseline=$here/results/speed_guard_baseline.tsv
BIN=$here/../build/distdoctor
while [ $# -gt 0 ]; do
  case $1 in
    --cpu) cpu=1 ;;
    --record) record=1 ;;
    --gpus) [ $# -ge 2 ] || usage; gpus=$2; shift ;;
    --baseline) [ $# -ge 2 ] || usage; baseline=$2; shift ;;
    -h | --help) usage ;;
    -*) echo "speed_guard: unknown option $1" >&2; usage ;;
    *) BIN=$1 ;;
  esac
  shift
done
SIZE_MB=${SIZE_MB:-200}
FILES=${FILES:-1000}
[[ $SIZE_MB =~ ^[1-9][0-9]*$ && $FILES =~ ^[1-9][0-9]*$ ]] ||
  { echo "speed_guard: SIZE_MB and FILES are counts" >&2; exit 3; }
[[ -z $gpus || $gpus =~ ^[1-9][0-9]*$ ]] || { echo "speed_guard: --gpus wants a number of GPUs" >&2; exit 3; }
[ -x "$BIN" ] || { echo "speed_guard: no binary at $BIN (build first)" >&2; exit 3; }
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dd_speed_guard.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# The data: one SIZE_MB file (copies of a template of at most 100 MB, as bench/logs_speed.sh makes it) and FILES
# files of SIZE_MB/FILES each, one per process (distinct pids, as NCCL_DEBUG_FILE=%h.%p writes them).
t0=$SECONDS
copies=$(( (SIZE_MB + 99) / 100 ))
python3 "$here/gen_nccl_logs.py" --out "$WORK/tmpl" --ranks 1 --bytes $(( SIZE_MB * 1000000 / copies )) >/dev/null
part=$WORK/tmpl/nccl.gpu-node-1.12345.log
for _ in $(seq "$copies"); do cat "$part"; done >"$WORK/big.log"
mkdir "$WORK/many"
python3 - "$part" "$WORK/many" "$SIZE_MB" "$FILES" <<'PY'
import sys
part, out, size_mb, files = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
per = size_mb * 1000000 // files
text = open(part, "rb").read(per)
text = text[:text.rfind(b"\n") + 1]  # whole lines only
for i in range(files):
    pid = str(20000 + i).encode()
    with open(f"{out}/nccl.gpu-node-1.{20000 + i}.log", "wb") as f:
        f.write(text.replace(b":12345:", b":" + pid + b":"))
PY
echo "data: one $(( $(stat -c %s "$WORK/big.log") / 1000000 )) MB file," \
  "$FILES files of $(( SIZE_MB * 1000 / FILES )) KB ($(( SECONDS - t0 )) s to make)"

# The GPU part: GPUs from nvidia-smi (or --gpus), all_reduce_perf from NCCL_TESTS_DIR or PATH.
visible=0
if command -v nvidia-smi >/dev/null 2>&1; then
  visible=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
fi
all_reduce=""
if [ -n "${NCCL_TESTS_DIR:-}" ] && [ -x "$NCCL_TESTS_DIR/all_reduce_perf" ]; then
  all_reduce=$NCCL_TESTS_DIR/all_reduce_perf
elif command -v all_reduce_perf >/dev/null 2>&1; then
  all_reduce=$(command -v all_reduce_perf)
fi
args=(--baseline "$baseline" --bin "$BIN" --big "$WORK/big.log" --many "$WORK/many" --size-mb "$SIZE_MB"
  --files "$FILES" --cores "$(nproc)" --gpus "$visible" --collective-gpus "${gpus:-$visible}"
  --all-reduce "$all_reduce")
[ "$cpu" = 1 ] && args+=(--cpu)
[ "$record" = 1 ] && args+=(--record)
[ -n "${REPS:-}" ] && args+=(--reps "$REPS")
rc=0
python3 "$here/speed_guard.py" "${args[@]}" || rc=$?
echo "speed guard: $( [ "$rc" = 0 ] && echo PASS || echo "FAIL (exit $rc)"), $(( SECONDS - t0 )) s in all"
exit "$rc"
