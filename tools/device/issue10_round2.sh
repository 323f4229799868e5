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
NT=$(mktemp -d)
cp -r "$NT_SRC"/. "$NT"/
mkdir -p "$NT/ncclhome/lib" && ln -sf "$NCCL" "$NT/ncclhome/lib/libnccl.so" && ln -sf "$NCCL_DIR/include" "$NT/ncclhome/include"
make -C "$NT" -j 32 CUDA_HOME=/usr/local/cuda NCCL_HOME="$NT/ncclhome" NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" \
  >"$O/nt_build.txt" 2>&1 || { echo "nccl-tests build failed" >>"$S"; tail -20 "$O/nt_build.txt" >>"$S"; }
run_nt() {  # mode, round dir, round
  for c in all_reduce reduce_scatter all_gather broadcast reduce alltoall; do
    if [ "$1" = threads ]; then
      timeout 120 "$NT/build/${c}_perf" -b 1G -e 8G -f 2 -g 2 -w 5 -n 20 >"$2/nt_$c.txt" 2>&1
    else
      timeout 120 mpirun --allow-run-as-root -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE -x NCCL_MNNVL_ENABLE \
        "$NT/build/${c}_perf_mpi" -b 1G -e 8G -f 2 -g 1 -w 5 -n 20 >"$2/nt_$c.txt" 2>&1
    fi || echo "$1 round $3 nccl-tests $c: rc=$?" >>"$S"
  done
}
run_dd() {  # mode, round dir, round
  local t0=$EPOCHREALTIME extra=""
  [ "$1" = threads ] && extra=--threads
  timeout 400 "$DIR/distdoctor" bench -c all_reduce,reduce_scatter,all_gather,broadcast,reduce,alltoall -b 1G -e 8G -f 2 \
    -w 5 -n 20 $extra --nccl-lib "$NCCL" --json >"$2/dd.json" 2>"$2/dd.err"
  echo "$1 round $3 distdoctor bench $extra: rc=$? $(secs "$t0") s" >>"$S"
}
MPI_INC=$(mpicc --showme:incdirs 2>/dev/null | cut -d' ' -f1)
[ -n "$MPI_INC" ] || MPI_INC=$(dirname "$(find / -name mpi.h -path '*include*' 2>/dev/null | head -1)")
MPI_HOME=$(dirname "$MPI_INC")
make -C "$NT" -j 32 MPI=1 MPI_HOME="$MPI_HOME" NAME_SUFFIX=_mpi CUDA_HOME=/usr/local/cuda NCCL_HOME="$NT/ncclhome" \
  NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" >"$O/nt_build_mpi.txt" 2>&1 || echo "nccl-tests MPI build failed" >>"$S"
for mode in ${MODES:-threads procs}; do
  if [ $mode = procs ] && [ ! -x "$NT/build/all_reduce_perf_mpi" ]; then echo "procs mode skipped: no MPI build" >>"$S"; continue; fi
  for i in $(seq 1 "$ROUNDS"); do
    R=$O/$mode/round$i
    mkdir -p "$R"
    # Odd rounds run nccl-tests first, even rounds distdoctor first: neither always gets the cooler GPU.
    if [ $((i % 2)) = 1 ]; then run_nt "$mode" "$R" "$i"; run_dd "$mode" "$R" "$i"; else run_dd "$mode" "$R" "$i"; run_nt "$mode" "$R" "$i"; fi
  done
  python3 "$HERE/busbw_compare.py" "$O/$mode" >"$O/busbw_vs_nccl_tests_$mode.md" 2>&1
  echo "busbw compare $mode: rc=$?" >>"$S"
done
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
rm -rf "$NT"
(cd "$O" && tar czf all.tar.gz --exclude=all.tar.gz threads procs tune_*.txt coll_*.txt window.txt nt_build*.txt 2>/dev/null)
cp "$S" "$O"/busbw_vs_nccl_tests_*.md "$O/all.tar.gz" "$FINAL"/
cat "$S" "$O"/busbw_vs_nccl_tests_*.md "$O/window.txt"
grep -A3 "recommended\|comm.tune" "$O/tune_8g.txt" "$O/tune_list.txt" | head -30
