#!/bin/bash
# The rank that is different (issue 37), with real processes and no GPU: a rank that exits 0 while the others
# wait is named as the hang's cause; a rank with an NCCL variable of its own (set by a wrapper script) is
# warned about at once and in the report of a healthy run; launch saves its attempt record beside the logs and
# `distdoctor logs RUN_FOLDER` leads with the same findings, in the same order. (The committed run folders
# recorded on an H200 are checked by RunFolders.* in src/cli/run_records_test.cc.)
set -u
BIN=$(realpath "${1:-build/distdoctor}")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/launch/launch_test_lib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed for the test workers"; exit 77; }
DW="$HERE/launch/different.py"
WRAP="$HERE/../tools/device/rank_env.sh"

check "rank 1 exits 0, the others wait: a hang (124)" 124 L CASE=exit0 --nproc-per-node 3 --job-id exit0 \
  --hang-timeout 2 --json -- python3 "$DW"
Q finding launch.hang >"$T/f"
expect "rank 1 is named for leaving" "$T/f" "the job hung: rank 1 exited with status 0 at"
expect "the ranks it left waiting" "$T/f" "while ranks 0,2 went on"
expect "its last line" "$T/f" 'its last line: "rank 1 leaves early"'
[ -f "$T/logs/exit0/0/attempt.json" ] && echo "ok: attempt.json beside the logs" ||
  { echo "FAIL: no attempt.json in $T/logs/exit0/0"; fails=$((fails + 1)); }
"$BIN" logs --json "$T/logs/exit0" >"$T/logs.json" 2>"$T/logs.err"
python3 - "$T/out" "$T/logs.json" <<'PY' && echo "ok: logs on the run folder leads with launch's findings" || fails=$((fails + 1))
import json, sys
launch = [f["id"] + "|" + f["title"] for f in json.load(open(sys.argv[1]))["findings"]]
logs = [f["id"] + "|" + f["title"] for f in json.load(open(sys.argv[2]))["findings"]]
if logs[:len(launch)] != launch:
    print("FAIL: logs does not lead with launch's findings:\n  launch:", launch, "\n  logs:  ", logs[:len(launch)])
    sys.exit(1)
PY

check "rank 1 with its own NCCL_PROTO, a healthy job: exit 0" 0 L CASE=healthy DIFF_RANK=1 DIFF_ENV=NCCL_PROTO=LL \
  --nproc-per-node 3 --job-id own --json -- "$WRAP" python3 "$DW"
Q finding launch.rank.differs >"$T/f"
expect "the odd rank in the report" "$T/f" "rank 1 has NCCL_PROTO=LL where ranks 0,2 leave it unset"
expect "and at once, on stderr" "$T/err" "distdoctor launch: warning: rank 1 has NCCL_PROTO=LL where ranks 0,2 leave it unset"
Q ids >"$T/ids"
expect "the job itself is fine" "$T/ids" "launch.job.ok"

check "the same NCCL settings everywhere: no warning" 0 L CASE=healthy --nproc-per-node 2 --job-id same --json -- \
  "$WRAP" python3 "$DW"
Q ids >"$T/ids"
if grep -q "launch.rank.differs" "$T/ids"; then echo "FAIL: a healthy uniform run warned"; fails=$((fails + 1)); else
  echo "ok: a uniform run stays clean"; fi

cli_finish different_rank_test
