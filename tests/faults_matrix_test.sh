#!/bin/bash
# The fault matrix (tests/faults/run_matrix.sh) as one ctest: every cell of tests/faults/cells.txt, in parallel,
# each under a hard timeout; fails when a cell fails or hangs and prints the table. Needs root (network
# namespaces); exits 77 (skipped) otherwise. Usage: faults_matrix_test.sh path/to/distdoctor
set -u
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (network namespaces)"; exit 77; }
for t in ip tc python3 unshare; do command -v $t >/dev/null || { echo "SKIP: $t not installed"; exit 77; }; done
# Under ASan/TSan (scripts/sanitizers/run.sh sets DD_TIME_SCALE) every process is 2-15x slower, so the cells'
# detection deadlines say nothing: the matrix runs in `make test`, the sanitizers run every other test.
if [ -n "${DD_TIME_SCALE:-}" ]; then
  echo "SKIP: under a sanitizer (DD_TIME_SCALE=$DD_TIME_SCALE) the cells' detection deadlines do not hold"
  exit 77
fi
BIN=$(realpath "${1:-build/distdoctor}")
bash "$(dirname "$0")/faults/run_matrix.sh" "$BIN"
rc=$?
[ $rc = 0 ] && echo PASS || echo "FAIL: the fault matrix has failed or hung cells (table above)"
exit $rc
