#!/usr/bin/env bash
# Runs every ctest of a build dir and ends with the summary line from ctest's own results (JUnit file):
# "N passed, M failed, K skipped", then "skipped: NAME: REASON" per skip. Exit non-zero when a test failed.
# Usage: scripts/run-tests.sh [BUILD_DIR] [JOBS]
set -uo pipefail
build=${1:-build}
jobs=${2:-$(nproc)}
here=$(cd "$(dirname "$0")" && pwd)
junit="$build/Testing/ctest-junit.xml"
rm -f "$junit"
# Keep whole outputs of skipped tests (ctest cuts passed/skipped output at 1 KB by default): the reason is in them.
(cd "$build" && ctest --output-on-failure -j "$jobs" --output-junit Testing/ctest-junit.xml \
  --test-output-size-passed 65536 --test-output-size-failed 1048576)
ctest_rc=$?
[ -s "$junit" ] || { echo "run-tests: ctest wrote no results ($junit), exit $ctest_rc"; exit 1; }
echo
python3 "$here/test_summary.py" "$junit"
summary_rc=$?
[ "$ctest_rc" -eq 0 ] && [ "$summary_rc" -eq 0 ]
