#!/bin/bash
# The fault matrix (tests/faults/run_matrix.sh) as one ctest: every cell of tests/faults/cells.txt, in parallel,
# each under a hard timeout; fails when a cell fails or hangs and prints the table. Needs root (network
# namespaces); exits 77 (skipped) otherwise. Usage: faults_matrix_test.sh path/to/distdoctor
set -u
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (network namespaces)"; exit 77; }
for t in ip tc python3 unshare; do command -v $t >/dev/null || { echo "SKIP: $t not installed"; exit 77; }; done
BIN=$(realpath "${1:-build/distdoctor}")
bash "$(dirname "$0")/faults/run_matrix.sh" "$BIN"
rc=$?
[ $rc = 0 ] && echo PASS || echo "FAIL: the fault matrix has failed or hung cells (table above)"
exit $rc
