#!/usr/bin/env bash
# Issue 40, "every report": the verdict and the root cause first, the tables per file and rank after (behind
# --verbose), one FAIL per failure on recorded fixtures (its consequences and restatements folded in, the
# culprit rank kept), a file with nothing to read said so with exit 3, and `explain` answering the messages
# people paste (with the fix) and a finding id's fix. Usage: tests/report_order_test.sh path/to/distdoctor
set -u
BIN=${1:?usage: $0 path/to/distdoctor}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
L=$ROOT/fixtures/logs
. "$(dirname "$0")/cli_test_lib.sh"

# py DESCRIPTION EXPR over the last --json output: j, f (findings), fails (the fail findings), get(id).
py() {
  if python3 - "$T/out" "$2" <<'PY'; then echo "ok: $1"; else echo "FAIL: $1 [$2]"; fails=$((fails + 1)); fi
import json, sys
j = json.load(open(sys.argv[1]))
f = j["findings"]
fails = [x for x in f if x["severity"] == "fail"]
def get(i): return next(x for x in f if x["id"] == i)
ok = eval(sys.argv[2])
if not ok: print("  findings:", [(x["id"], x["severity"], x.get("rank"), x.get("consequence_of"), x["title"][:80]) for x in f])
sys.exit(0 if ok else 1)
PY
}
line_of() { grep -nF -- "$2" "$1" | head -1 | cut -d: -f1; }  # FILE TEXT: the first line holding TEXT

# 1. The answer first: the verdict and root cause lead, the findings, then the tables per file and rank.
check "invalid device ordinal, text" 2 "$BIN" logs "$L/real/invalid_device_ordinal.log"
head -4 "$T/out" | grep -q "^root cause: A process asked for a GPU index that does not exist" &&
  echo "ok: the verdict and root cause lead" || { echo "FAIL: no verdict first"; head -8 "$T/out"; fails=$((fails + 1)); }
first_fail=$(line_of "$T/out" "[FAIL]")
files=$(grep -n "^files$" "$T/out" | head -1 | cut -d: -f1)
[ -n "$first_fail" ] && [ -n "$files" ] && [ "$first_fail" -lt "$files" ] && echo "ok: findings before the tables" ||
  { echo "FAIL: findings (line $first_fail) not before the tables (line $files)"; fails=$((fails + 1)); }
check "Flight Recorder dumps in the table" 2 "$BIN" logs "$L/h100x4_hangs/stall_idle"
expect_out "a dump is said to be one" "fr_trace_3  Flight Recorder dump (pickle), "
grep -q "fr_trace_0  0 lines" "$T/out" && { echo "FAIL: a dump listed as 0 lines"; fails=$((fails + 1)); } ||
  echo "ok: no dump listed as 0 lines"

# 2. One FAIL per failure, on recorded fixtures, the culprit kept.
check "invalid device ordinal, JSON" 2 "$BIN" logs --json "$L/real/invalid_device_ordinal.log"
py "one FAIL: the invalid ordinal leads" 'len(fails) == 1 and fails[0]["id"] == "cuda.invalid_device_ordinal" and f[0] is fails[0]'
py "rank 1's stop is its evidence" 'any("rank 1 stopped first: exited with code 1" in e for e in f[0]["evidence"])'
py "the stop kept, folded" 'get("logs.rank.stopped_first")["rank"] == 1 and get("logs.rank.stopped_first")["consequence_of"] == "cuda.invalid_device_ordinal"'
check "invalid device ordinal, --brief" 2 "$BIN" logs --brief "$L/real/invalid_device_ordinal.log"
[ "$(grep -c '\[FAIL\]' "$T/out")" = 1 ] && echo "ok: one [FAIL] line" || { echo "FAIL: $(grep -c '\[FAIL\]' "$T/out") [FAIL] lines"; fails=$((fails + 1)); }

check "OOM under torchrun" 2 "$BIN" logs --json "$L/h200x2_different/oom"
py "one FAIL: the OOM on rank 1" 'len(fails) == 1 and fails[0]["id"] == "cuda.out_of_memory" and fails[0]["rank"] == 1'
py "rank 1 exited 1, as evidence" 'any("rank 1 stopped first: exited with code 1" in e for e in fails[0]["evidence"])'

check "OOM under launch (run folder)" 2 "$BIN" logs --json "$ROOT/fixtures/launch/h200x1_gloo_different/oom/run"
py "one FAIL: rank 1 ran out of GPU memory" 'len(fails) == 1 and fails[0]["id"] == "launch.rank.failed" and fails[0]["rank"] == 1 and "ran out of GPU memory" in fails[0]["title"]'
py "the OOM diagnoses folded into it" 'all(x.get("consequence_of") in ("launch.rank.failed", "cuda.out_of_memory") for x in f if x["id"] in ("cuda.out_of_memory", "logs.rank.stopped_first"))'

for c in stall_idle stall_busy; do
  check "late rank ($c)" 2 "$BIN" logs --json "$L/h100x4_hangs/$c"
  py "one FAIL: rank 3 late ($c)" 'len(fails) == 1 and fails[0]["id"] == "logs.hang.late" and fails[0]["rank"] == 3'
  py "the Flight Recorder's view folded in ($c)" 'get("logs.fr.behind")["consequence_of"] == "logs.hang.late" and get("logs.fr.behind")["rank"] == 3'
  py "torchrun's root cause said as the first to exit ($c)" '"root cause: rank 0" not in get("logs.torchrun.failures")["title"] and "the first to exit" in get("logs.torchrun.failures")["title"]'
done
check "desync, two views" 2 "$BIN" logs --json "$L/h100x4_hangs/desync_op"
py "one FAIL: rank 3 desync" 'len(fails) == 1 and fails[0]["id"] == "logs.hang.desync" and fails[0]["rank"] == 3'
# Two failures of two ranks stay two: a folded finding is only ever one of the root's rank (or of none).
check "launch, rank 1 left early, rank 0 failed for it" 2 "$BIN" logs --json "$ROOT/fixtures/launch/h200x1_gloo_different/exit0/run"
py "the rank that left leads" 'fails[0]["id"] == "launch.rank.left_early" and fails[0]["rank"] == 1'
py "nothing of another rank folded" 'all(x.get("rank") in (None, 1) for x in f if x.get("consequence_of") and "same failure as" in x["evidence"][-1])'

# 3. Nothing to read: said so, exit 3 (text and JSON).
printf 'gpu-node-7\nsome notes, nothing of a job\n' >"$T/plain.txt"
check "plain text file" 3 "$BIN" logs "$T/plain.txt"
expect "said so" "$T/err" "nothing to diagnose: $T/plain.txt holds no NCCL, framework or Flight Recorder lines"
check "plain text file, JSON" 3 "$BIN" logs --json "$T/plain.txt"
py "JSON: could not run" 'j["verdict"] == "could not run" and "nothing to diagnose" in j["error"]'

# 4. explain: the messages people paste, each with its fix; a finding id's fix; JSON without a match.
check "no interface in NCCL_COMM_ID's subnet" 0 "$BIN" explain "NCCL WARN Net : No interface found in the same subnet as remote address 10.1.2.3<29500>"
expect_out "matched" "matches nccl.comm_id_no_subnet"
expect_out "its fix" "Fix: Unset NCCL_COMM_ID"
expect_out "the rule's long form named" "See: distdoctor explain net.nccl_comm_id.no_subnet"
check "ibv_reg_mr ENOMEM" 0 "$BIN" explain "NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory"
expect_out "matched" "matches nccl.ib_reg_mr_memlock"
expect_out "its fix" "ulimit -l unlimited"
expect_out "containers" "--ulimit memlock=-1:-1"
check "connection abort" 0 "$BIN" explain "socketStartConnect: Connect to 10.0.0.2<43211> failed : Software caused connection abort"
expect_out "matched" "matches nccl.connect_aborted"
expect_out "its fix" "Fix: Look at the peer rank first"
check "a finding id" 0 "$BIN" explain logs.fr.behind
expect_out "its fix" "Fix: Take that rank's Python stack while the others wait"
check "a launch finding id" 0 "$BIN" explain launch.rank.failed
expect_out "its fix" "Fix: Read that rank's error in the report"
check "no match, JSON" 1 "$BIN" explain --json "zq nothing known here"
py "no match, not pass" 'j["verdict"] == "no match" and f == [] and "no reading" in j["message"]'

cli_finish report_order_test
