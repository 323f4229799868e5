#!/bin/bash
# launch's Flight Recorder hook end to end, without a GPU: the workers import a stand-in torch
# (tests/launch/faketorch) whose dump function returns real recorded dumps. At a hang launch writes a byte into
# each rank's request FIFO and the hook's thread answers in milliseconds, without Python stacks: the culprit
# comes from the dumps (rank 3's broadcast of the 4x H100 recording); a job that ends well leaves exit dumps,
# and ranks that passed different sizes to one collective are a warning (exit 0 stays; the real exit dumps of
# fixtures/launch/h100x4_exit_dumps), PyTorch's uneven all_gather is not; a rank that raised
# writes none; a worker without torch.distributed answers at once instead of keeping launch waiting.
set -u
BIN=$(realpath "${1:-build/distdoctor}")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/launch/launch_test_lib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed for the test workers"; exit 77; }
FW="$HERE/launch/fr_worker.py"
FAKE="PYTHONPATH=$HERE/launch/faketorch"
REAL="$HERE/../fixtures/logs/h100x4_hangs/desync_op/fr/fr_trace_"
EXITS="$HERE/../fixtures/launch/h100x4_exit_dumps"

start=$SECONDS
check "a silent hang: exit 124" 124 L CASE=hang "$FAKE" FAKE_FR_PREFIX="$REAL" FAKE_FR_LOG="$T/calls" \
  --nproc-per-node 4 --job-id hang --hang-timeout 2 --json -- python3 "$FW"
took=$((SECONDS - start))
Q finding launch.hang >"$T/f"
expect "the culprit from the dumps" "$T/f" "(found by: flight recorder)"
expect "rank 3's broadcast at seq 7" "$T/f" "at seq 7 of group 0 rank(s) 3 called broadcast"
expect "the dump launch asked for" "$T/f" "rank 3 Flight Recorder dump: $T/logs/hang/0/flight_recorder/asked_rank3"
expect "asked without Python stacks" "$T/calls" "rank 3 stacks=False"
[ "$(grep -c stacks "$T/calls")" = 4 ] && echo "ok: one dump per rank" ||
  { echo "FAIL: $(grep -c stacks "$T/calls") dumps"; fails=$((fails + 1)); }
[ $took -le 7 ] && echo "ok: declared and stopped in $took s" || { echo "FAIL: took $took s"; fails=$((fails + 1)); }

check "a clean end with different sizes: exit 0" 0 L CASE=clean "$FAKE" FAKE_FR_PREFIX="$EXITS/desync_size/exit_rank" \
  --nproc-per-node 4 \
  --job-id clean --json -- python3 "$FW"
Q finding launch.job.mismatch >"$T/f"
expect "a warning that names the rank" "$T/f" "rank 3 called all_gather of 2,097,152 float32 (8 MiB) into 8,388,608 at seq 8"
expect "from the exit dumps" "$T/f" "rank 3 Flight Recorder dump: $T/logs/clean/0/flight_recorder/exit_rank3"
Q ids >"$T/ids"
expect "the job itself is fine" "$T/ids" "launch.job.ok"
check "PyTorch's uneven all_gather: clean" 0 L CASE=clean "$FAKE" FAKE_FR_PREFIX="$EXITS/uneven_gather/exit_rank" \
  --nproc-per-node 4 --job-id uneven --json -- python3 "$FW"
Q ids >"$T/ids"
[ "$(cat "$T/ids")" = "launch.job.ok" ] && echo "ok: only launch.job.ok" || { echo "FAIL: $(cat "$T/ids")"; fails=$((fails + 1)); }

check "a rank that raised: no exit dump from it" 4 L CASE=raise "$FAKE" FAKE_FR_PREFIX="$EXITS/desync_size/exit_rank" --nproc-per-node 2 \
  --job-id raise --json -- python3 "$FW"
[ ! -e "$T/logs/raise/0/flight_recorder/exit_rank1" ] && echo "ok: rank 1 wrote no exit dump" ||
  { echo "FAIL: rank 1 wrote an exit dump"; fails=$((fails + 1)); }

start=$SECONDS
check "no torch.distributed: hung, answered at once" 124 L CASE=notorch --nproc-per-node 2 --job-id notorch \
  --hang-timeout 2 --json -- python3 "$FW"
took=$((SECONDS - start))
[ -f "$T/logs/notorch/0/flight_recorder/asked_rank0.none" ] && echo "ok: the hook said it has no recorder" ||
  { echo "FAIL: no asked_rank0.none"; fails=$((fails + 1)); }
[ $took -le 5 ] && echo "ok: stopped in $took s" || { echo "FAIL: took $took s"; fails=$((fails + 1)); }
cli_finish launch_flight_recorder_test
