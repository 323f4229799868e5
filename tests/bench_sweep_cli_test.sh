#!/usr/bin/env bash
# `distdoctor bench` on the CPU engine, end to end: a sweep of every collective in both modes with every
# timed run checked (--check all) has every row ok and every checkable row 0 wrong (in-place alltoall and
# sendrecv: N/A, as nccl-tests); a rank killed mid-sweep gives a FAILED row with its error and "not run"
# rows after it, never rows of zeros; --timing puts the phase times in text and JSON.
set -u
BIN=$(readlink -f "${1:-build/distdoctor}")
command -v jq >/dev/null || { echo "SKIP: jq not installed"; exit 77; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dd_bench_sweep.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
ok() { echo "ok    $*"; }

# 1. Every collective, both modes, 1K..1M by 4x, 3 ranks, every timed run checked.
"$BIN" bench --engine gloo --nproc 3 -c all -b 1K -e 1M -f 4 -w 1 -n 2 --check all --json >"$TMP/sweep" 2>"$TMP/err"
rc=$?
[ $rc = 0 ] && ok "sweep exit 0" || { fail "sweep exit $rc"; head -5 "$TMP/err"; }
rows=$(jq '.results | length' "$TMP/sweep")
[ "$rows" = 84 ] && ok "84 rows (7 collectives x 6 sizes x 2 modes)" || fail "rows $rows, want 84"
bad=$(jq '[.results[] | select(.status != "ok")] | length' "$TMP/sweep")
[ "$bad" = 0 ] && ok "every row ok" || fail "$bad rows not ok"
wrong=$(jq '[.results[] | select(.wrong != null and .wrong != 0)] | length' "$TMP/sweep")
[ "$wrong" = 0 ] && ok "no wrong element" || fail "$wrong rows with wrong elements"
na=$(jq -c '[.results[] | select(.wrong == null) | .collective + (if .in_place then "/in" else "/out" end)] | unique' "$TMP/sweep")
[ "$na" = '["alltoall/in","sendrecv/in"]' ] && ok "N/A only for in-place alltoall and sendrecv" || fail "N/A rows: $na"
# --check all: each checked rank compared its output once per timed run (2) plus... nothing else.
per=$(jq '[.results[] | select(.collective == "all_reduce" and .bytes == 1024 and .in_place == false) | .ranks[].checked] | unique' "$TMP/sweep")
[ "$(echo $per | tr -d ' \n')" = "[512]" ] && ok "all_reduce 1K: 256 elements x 2 timed runs checked per rank" ||
  fail "all_reduce 1K checked per rank: $per"
jq -e '.findings[] | select(.id == "comm.collectives.ok") | .title | test("every timed run")' "$TMP/sweep" >/dev/null &&
  ok "ok finding says every timed run was verified" || fail "ok finding does not say what was checked"

# 2. Rank 1 dies at op 5 (all_reduce 16K out-of-place): that row FAILED with the reason, the rest not run.
"$BIN" bench --engine gloo --nproc 2 -c all_reduce -b 1K -e 64K -f 4 -w 1 -n 1 --fault "1:die@4" --json \
  >"$TMP/fail" 2>/dev/null
# (op 3 may be failed too: rank 0 can still be in it when its peer dies)
st=$(jq -c '[.results[].status]' "$TMP/fail")
[[ "$st" =~ ^\[\"ok\",\"ok\",\"ok\",\"(ok|failed)\",\"failed\",\"not_run\",\"not_run\",\"not_run\"\]$ ]] &&
  ok "statuses $st" || fail "statuses $st"
jq -e '.results[4].error | test("rank 1 died")' "$TMP/fail" >/dev/null && ok "failed row names the dead rank" ||
  fail "failed row error: $(jq -c '.results[4].error' "$TMP/fail")"
jq -e '.results[4].busbw_gbps == null and .results[4].wrong == null' "$TMP/fail" >/dev/null &&
  ok "failed row has no busbw/wrong numbers" || fail "failed row shows numbers"
"$BIN" bench --engine gloo --nproc 2 -c all_reduce -b 1K -e 64K -f 4 -w 1 -n 1 --fault "1:die@4" >"$TMP/failtxt" 2>&1
grep -q "FAILED" "$TMP/failtxt" && grep -q "not run" "$TMP/failtxt" && grep -q "^# FAILED: all_reduce 16 KiB" "$TMP/failtxt" &&
  ok "text table shows FAILED / not run and the error" || { fail "text table"; cat "$TMP/failtxt"; }

# 3. --timing: text table and JSON phases. Under the sanitizers (DD_TIME_SCALE, scripts/sanitizers/run.sh) the
# 256 MiB bandwidth point gets a longer deadline: under TSan, next to another test, it took over 44 s (10.9 s allowed).
slow=(${DD_TIME_SCALE:+--timeout $((30 * DD_TIME_SCALE))})
"$BIN" bench --engine gloo --nproc 2 --quick --timing "${slow[@]}" >"$TMP/tt" 2>&1
# Process exit: measured, or (the workers all left) not waited for.
grep -q "engine init" "$TMP/tt" && grep -q "process exit" "$TMP/tt" && ok "bench --quick --timing text" ||
  { fail "bench --quick --timing text"; cat "$TMP/tt"; }
"$BIN" bench --engine gloo --nproc 2 --quick --timing --json "${slow[@]}" >"$TMP/tj" 2>/dev/null
n=$(jq '.measurements.collectives.timing.phases | length' "$TMP/tj")
[ "${n:-0}" -ge 7 ] && ok "bench --quick --timing --json: $n phases" || fail "timing phases: $n"
"$BIN" check --local --collectives --engine gloo --timing --json >"$TMP/cj" 2>/dev/null
jq -e '.measurements.collectives.timing.probe_s >= 0 and (.measurements.collectives.timing.phases | length) >= 7' \
  "$TMP/cj" >/dev/null && ok "check --collectives --timing --json" || fail "check --collectives timing JSON"

# Killed while its workers still start (the orphan guard knows none yet): every worker dies with it (their
# parent-death signal). Before: a TERM 3 s into a 200-rank start left 91 workers spinning for 20 s.
mkdir -p "$TMP/killed"
TMPDIR="$TMP/killed" timeout -s TERM 2 "$BIN" bench --engine gloo --nproc 150 -b 1K -e 1K -c all_reduce >/dev/null 2>&1
sleep 1
left=$(ps -eo args | grep -c "[-]-as-worker $TMP/killed/")
[ "$left" = 0 ] && ok "killed during the start: no worker left" || fail "$left workers outlived a killed bench"

echo "bench_sweep_cli_test: $FAILS failure(s)"
[ $FAILS = 0 ]
