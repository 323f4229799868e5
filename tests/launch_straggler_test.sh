#!/bin/bash
# launch's live straggler check end to end, without a GPU: three workers (tests/launch/straggler.py) import the
# stand-in torch of tests/launch/faketorch, whose recorder keeps the time each worker issued each collective;
# every collective waits for the last rank. Rank 1 sleeps 100 ms before each one: with --straggler-interval 2
# launch asks each worker's hook for a snapshot every 2 s, says on stderr which rank the others wait for while
# the job runs, and the report names it from the exit dumps (and --metrics and ATTEMPT/lateness.svg show each
# rank's lateness). A job where nobody is late says nothing, and --straggler-interval 0 leaves only the report
# at the end.
set -u
BIN=$(realpath "${1:-build/distdoctor}")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/launch/launch_test_lib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed for the test workers"; exit 77; }
SW="$HERE/launch/straggler.py"
FAKE="PYTHONPATH=$HERE/launch/faketorch"

mkdir -p "$T/s1" "$T/s2" "$T/s3"
check "rank 1 late at every collective: the job ends well" 0 L "$FAKE" SYNC_DIR="$T/s1" SLOW_RANK=1 SLOW_S=0.1 \
  STEPS=55 --nproc-per-node 3 --straggler-interval 2 --job-id slow --metrics "$T/lateness.prom" --json -- \
  python3 "$SW"
# --metrics: each rank's gauges, the straggler flagged; the chart beside the attempt's logs, a line per rank.
late1=$(awk '/^distdoctor_launch_rank_lateness_seconds\{job="slow",group="0",rank="1",signal="arrival"\}/ {print $2}' "$T/lateness.prom")
awk -v v="${late1:-0}" 'BEGIN { exit !(v > 0.08 && v < 0.2) }' && echo "ok: rank 1's lateness gauge ($late1 s)" ||
  { echo "FAIL: rank 1's lateness gauge '$late1', not about 0.1 s"; fails=$((fails + 1)); }
expect "the others' wait for it" "$T/lateness.prom" 'distdoctor_launch_rank_others_wait_ratio{job="slow",group="0",rank="1"'
expect "rank 1 flagged" "$T/lateness.prom" 'distdoctor_launch_straggler{job="slow",group="0",rank="1",signal="arrival"} 1'
expect "rank 0 has its gauge too" "$T/lateness.prom" 'distdoctor_launch_rank_lateness_seconds{job="slow",group="0",rank="0"'
[ "$(grep -c '<polyline' "$T/logs/slow/0/lateness.svg" 2>/dev/null)" = 3 ] && echo "ok: lateness.svg, 3 lines" ||
  { echo "FAIL: lateness.svg has not one line per rank"; fails=$((fails + 1)); }
expect "said while the job ran" "$T/err" "distdoctor launch: straggler: rank 1 arrives last at"
expect "with the others' wait" "$T/err" "ranks 0,2 spend"
Q finding launch.job.straggler >"$T/f"
expect "the report names it" "$T/f" "rank 1 arrives last at"
expect "from the exit dumps" "$T/f" "found in the Flight Recorder dumps the workers wrote as they exited"
expect "and what was seen live" "$T/f" "seen while the job ran"
[ "$(grep -c "distdoctor launch: straggler:" "$T/err")" -ge 1 ] && echo "ok: a live line" ||
  { echo "FAIL: no live line"; fails=$((fails + 1)); }
# The snapshots are read and removed: `logs` on the run folder sees the end, not a mid-run state (a snapshot
# left there read as rank 0 waiting in a collective rank 1 had not reached: logs.fr.behind, fail).
if ls "$T/logs/slow/0/flight_recorder/" | grep -q 'live'; then echo "FAIL: a snapshot was left"; fails=$((fails + 1)); else echo "ok: no snapshot left"; fi
check "logs on the run folder: a warning, no failure" 1 "$BIN" logs --json "$T/logs/slow"
Q ids >"$T/ids"
expect "logs says it from launch's record" "$T/ids" "launch.job.straggler"

check "nobody late: nothing said" 0 L "$FAKE" SYNC_DIR="$T/s2" SLOW_RANK=-1 STEPS=300 --nproc-per-node 3 \
  --straggler-interval 1 --job-id even --json -- python3 "$SW"
if grep -q "straggler" "$T/err"; then echo "FAIL: a straggler was said"; grep straggler "$T/err"; fails=$((fails + 1)); else echo "ok: no straggler said"; fi
Q ids >"$T/ids"
[ "$(cat "$T/ids")" = "launch.job.ok" ] && echo "ok: only launch.job.ok" || { echo "FAIL: $(cat "$T/ids")"; fails=$((fails + 1)); }

check "--straggler-interval 0: only at the end" 0 L "$FAKE" SYNC_DIR="$T/s3" SLOW_RANK=2 SLOW_S=0.1 STEPS=30 \
  --nproc-per-node 3 --straggler-interval 0 --job-id off --json -- python3 "$SW"
if grep -q "straggler:" "$T/err"; then echo "FAIL: said live with the check off"; fails=$((fails + 1)); else echo "ok: nothing live"; fi
Q finding launch.job.straggler >"$T/f"
expect "the end still names rank 2" "$T/f" "rank 2 arrives last at"
# A Gloo job (CPU training; PyTorch 2.11 keeps Gloo's collectives out of NCCL's recorder): the hook dumps them
# too, and the straggler is named from them (before: empty dumps, a pass that said nothing).
mkdir -p "$T/s5"
check "a Gloo job: rank 2 late" 0 L "$FAKE" FAKE_BACKEND=gloo SYNC_DIR="$T/s5" SLOW_RANK=2 SLOW_S=0.1 STEPS=30 \
  --nproc-per-node 3 --straggler-interval 0 --job-id gloo --json -- python3 "$SW"
Q finding launch.job.straggler >"$T/f"
expect "named from Gloo's collectives" "$T/f" "rank 2 arrives last at"
# Workers that never use torch.distributed answer each snapshot at once with "none" (no 5 s wait), and no
# answer is left in the run folder.
mkdir -p "$T/s4"
check "no torch.distributed: snapshots answered, nothing left" 0 L CASE=notorch --nproc-per-node 2 \
  --straggler-interval 1 --job-id notorch --json -- python3 -c "import time; time.sleep(3.5)"
if ls "$T/logs/notorch/0/flight_recorder/" | grep -q 'live'; then echo "FAIL: a snapshot answer was left"; ls "$T/logs/notorch/0/flight_recorder/"; fails=$((fails + 1)); else echo "ok: no snapshot answer left"; fi
cli_finish launch_straggler_test
