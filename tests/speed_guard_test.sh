#!/usr/bin/env bash
# The speed guard (bench/speed_guard.sh, issue 38) can fail: a "distdoctor" more than 2x slower than its committed
# ratio fails it (exit 1, FAIL in the table), one within it passes; a distdoctor that exits 3 or dies of a signal,
# or a baseline command that fails, fails it and is named; a case with no committed ratio is not a failure;
# --record writes the ratios it measured; a bad baseline file stops it (exit 3). The verdicts do not depend on the
# machine's speed: the timed cases are sleeps of 0.2 s against 0.2 s (ratio ~1) and 0.7 s (ratio ~3.5), and the
# real guard runs on 1 MB of data with no committed ratios (it must only run through, with the real binary).
# Usage: tests/speed_guard_test.sh path/to/distdoctor
set -u
BIN=${1:?usage: $0 path/to/distdoctor}
. "$(dirname "$0")/cli_test_lib.sh"
BENCH=$(cd "$(dirname "$0")/../bench" && pwd)
ENGINE=$BENCH/speed_guard.py

fake() {  # NAME, shell lines: a "distdoctor" at $T/NAME/distdoctor that runs them, then the real binary
  mkdir -p "$T/$1"
  printf '#!/bin/sh\n%s\nexec "%s" "$@"\n' "$2" "$BIN" >"$T/$1/distdoctor"
  chmod +x "$T/$1/distdoctor"
}
cases() {  # DISTDOCTOR, baseline argv as JSON: one case, 3 rounds, `DISTDOCTOR --version` against that baseline
  printf '[{"name": "fake --version", "reps": 3, "measured": ["%s", "--version"], "ok": [0, 1, 2],
            "baselines": [{"name": "base", "argv": %s}]}]\n' "$1" "$2" >"$T/cases.json"
}
printf '# committed ratios for this test\nfake --version / base\t1.0\t200\t200\tthe test\n' >"$T/baseline.tsv"

# The timed fakes only sleep (a sanitizer build's start-up would blur the ratio of one that ran the binary).
fake fast 'sleep 0.2; exit 0'
fake slow 'sleep 0.7; exit 0'
cases "$T/fast/distdoctor" '["sleep", "0.2"]'
check "same speed as its committed ratio: passes" 0 python3 "$ENGINE" --baseline "$T/baseline.tsv" --cases "$T/cases.json"
expect_out "the row passes" "PASS"
expect_out "the limit is 2x the committed ratio" "   2.00  PASS"
cases "$T/slow/distdoctor" '["sleep", "0.2"]'
check "3.5x its committed ratio: fails" 1 python3 "$ENGINE" --baseline "$T/baseline.tsv" --cases "$T/cases.json"
expect_out "the row fails" "   2.00  FAIL"
expect_out "the summary names the case" "1 over the limit: fake --version / base"

cases "$T/fast/distdoctor" '["false"]'
check "a baseline command that fails: fails" 1 python3 "$ENGINE" --baseline "$T/baseline.tsv" --cases "$T/cases.json"
expect_out "it names the baseline and its exit" "FAIL: fake --version: baseline 'base': exit 1"

: >"$T/empty.tsv"
cases "$T/fast/distdoctor" '["sleep", "0.2"]'
check "no committed ratio: not a failure" 0 python3 "$ENGINE" --baseline "$T/empty.tsv" --cases "$T/cases.json"
expect_out "the row says so" "no baseline"
check "--record" 0 python3 "$ENGINE" --baseline "$T/recorded.tsv" --record --cases "$T/cases.json"
expect "--record writes the case and its ratio" "$T/recorded.tsv" "fake --version / base$(printf '\t')"
expect "--record writes the header" "$T/recorded.tsv" "# Committed ratios of bench/speed_guard.sh"
printf 'fake --version / base\tfast\n' >"$T/bad.tsv"
check "a bad baseline file: could not run" 3 python3 "$ENGINE" --baseline "$T/bad.tsv" --cases "$T/cases.json"
expect "it names the line" "$T/err" "bad.tsv:1"

# The whole guard on 1 MB of data, one round a case: the real binary runs through (its verdicts 0-2 are not
# failures); a distdoctor whose logs exits 3, or that dies of a signal, fails it.
export SIZE_MB=1 FILES=4 REPS=1
check "the guard on the real binary, no committed ratios" 0 "$BENCH/speed_guard.sh" --cpu --baseline "$T/empty.tsv" "$BIN"
expect_out "it measured logs" "logs one 1 MB file, --jobs 1 / grep -c NCCL"
expect_out "it measured check" "check --json, "
expect_out "it ends with its verdict" "speed guard: PASS"
# shellcheck disable=SC2016 # the fakes expand their own $1 and $$
fake broken 'case $1 in logs) exit 3 ;; esac'
check "a distdoctor that cannot run logs" 1 "$BENCH/speed_guard.sh" --cpu --baseline "$T/empty.tsv" "$T/broken/distdoctor"
expect_out "it names the case and the exit" "FAIL: logs one 1 MB file, --jobs 1: measured command: exit 3"
# shellcheck disable=SC2016
fake crashing 'case $1 in check) kill -s SEGV $$ ;; esac'
check "a distdoctor whose check dies of a signal" 1 "$BENCH/speed_guard.sh" --cpu --baseline "$T/empty.tsv" \
  "$T/crashing/distdoctor"
expect_out "it names the signal" "measured command: killed by signal 11"
check "no binary: could not run" 3 "$BENCH/speed_guard.sh" --cpu "$T/none/distdoctor"
cli_finish speed_guard_test
