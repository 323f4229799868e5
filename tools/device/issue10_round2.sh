#!/bin/bash
# Issue 10's speed targets on 2 GPUs (nvidia-h200-x2), side by side in one run: busbw of the six collectives
# at 1-8 GiB against nccl-tests (same NCCL, the one PyTorch ships; built here from its source, with and
# without MPI), ROUNDS rounds with the two tools interleaved, in two like-for-like modes: one process driving
# both GPUs (distdoctor --threads vs nccl-tests -g 2) and one process per GPU (distdoctor's default vs
# nccl-tests under mpirun -np 2); busbw_compare.py gives medians and ratios. Then `bench --tune` at 8 GiB
# and at a list of sizes (time, best), and `check --collectives --timing` wall times.
# Usage (repo root on the device): tools/device/issue10_round2.sh DD_DIR NCCL_TESTS_SRC. Writes under $OUT
# (summary.txt, the comparison tables, and all.tar.gz with every output).
set -u
DIR=$(cd "${1:?distdoctor dir}" && pwd)
NT_SRC=$(cd "${2:?nccl-tests source}" && pwd)
ROUNDS=${ROUNDS:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
FINAL=${OUT:-${TMPDIR:-/tmp}/dd-issue10}
mkdir -p "$FINAL"
O=$(mktemp -d)  # everything here; $FINAL gets the summary, the tables and one tarball
S=$O/summary.txt
: >"$S"
. "$(dirname "$0")/torch_nccl_env.sh" "$DIR"
nvidia-smi --query-gpu=index,name --format=csv,noheader >>"$S"
# The comparison with nccl-tests: the one script for it, on every GPU of this node (2 here).
MODES=${MODES:-threads procs} ROUNDS=$ROUNDS BENCH_OUT=$O/bench "$HERE/bench_vs_nccl_tests.sh" "$DIR" "$NT_SRC" \
  >"$O/bench_vs_nccl_tests.txt" 2>&1
echo "bench_vs_nccl_tests.sh: rc=$?" >>"$S"
timeout 200 "$DIR/distdoctor" bench -c all_reduce -b 1G -e 8G -f 2 --symmetric-window --nccl-lib "$NCCL" >"$O/window.txt" 2>&1
echo "bench all_reduce --symmetric-window 1-8G: rc=$?" >>"$S"
t0=$EPOCHREALTIME
timeout 200 "$DIR/distdoctor" bench -c all_reduce --tune --tune-bytes 8G -b 8G -e 8G --nccl-lib "$NCCL" >"$O/tune_8g.txt" 2>&1
echo "bench --tune --tune-bytes 8G: rc=$? $(secs "$t0") s" >>"$S"
t0=$EPOCHREALTIME
timeout 200 "$DIR/distdoctor" bench -c all_reduce --tune --tune-bytes 64M,512M,4G -e 4G --nccl-lib "$NCCL" >"$O/tune_list.txt" 2>&1
echo "bench --tune --tune-bytes 64M,512M,4G: rc=$? $(secs "$t0") s" >>"$S"
for i in 1 2 3 4 5; do
  t0=$EPOCHREALTIME
  "$DIR/distdoctor" check --local --collectives --timing --nccl-lib "$NCCL" >"$O/coll_$i.txt" 2>&1
  echo "check --collectives #$i: rc=$? wall $(secs "$t0") s" >>"$S"
done
grep '#' "$O/coll_5.txt" >>"$S"
(cd "$O" && tar czf all.tar.gz --exclude=all.tar.gz bench tune_*.txt coll_*.txt window.txt 2>/dev/null)
cp "$S" "$O"/bench/busbw_vs_nccl_tests_*.md "$O/all.tar.gz" "$FINAL"/
cat "$S" "$O"/bench/summary.txt "$O"/bench/busbw_vs_nccl_tests_*.md "$O/window.txt"
grep -A3 "recommended\|comm.tune" "$O/tune_8g.txt" "$O/tune_list.txt" | head -30
