#!/bin/bash
# busbw of distdoctor `bench` against nccl-tests on every GPU of this node (same NCCL, PyTorch's; nccl-tests built
# here from its source, with and without MPI, kept in .devcarry/nt-build for the next call while the machine
# stays warm): COLLS (the six collectives; sendrecv too) from MIN to MAX bytes (1G, 8G), ROUNDS rounds (3) per
# mode with the tools interleaved, in two like-for-like modes (MODES: procs threads): one process per GPU (the
# default vs nccl-tests under mpirun -np N) and one process driving every GPU (--threads vs nccl-tests -g N);
# busbw_compare.py gives the medians and ratios. About 5 min per mode and round on 4 GPUs at 1-8 GiB.
# Usage (repo root on the device): tools/device/bench_vs_nccl_tests.sh DD_DIR NCCL_TESTS_SRC (DD_DIR: a stripped
# distdoctor and lib/, tools/device/stage_binary.sh). Writes $BENCH_OUT (default $OUT/bench): summary.txt,
# busbw_vs_nccl_tests_MODE.md, raw.tar.gz.
set -u
DIR=$(cd "${1:?distdoctor dir}" && pwd)
NT_SRC=$(cd "${2:?nccl-tests source}" && pwd)
ROUNDS=${ROUNDS:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
FINAL=${BENCH_OUT:-${OUT:-${TMPDIR:-/tmp}/dd-bench}/bench}
mkdir -p "$FINAL"
O=$(mktemp -d)
S=$O/summary.txt
: >"$S"
. "$HERE/torch_nccl_env.sh" "$DIR"
NG=$(nvidia-smi -L | wc -l)
nvidia-smi --query-gpu=index,name --format=csv,noheader >>"$S"
NT=$PWD/.devcarry/nt-build
if [ ! -x "$NT/build/all_reduce_perf_mpi" ]; then
  rm -rf "$NT" && mkdir -p "$NT" && cp -r "$NT_SRC"/. "$NT"/
  mkdir -p "$NT/ncclhome/lib" && ln -sf "$NCCL" "$NT/ncclhome/lib/libnccl.so" && ln -sf "$NCCL_DIR/include" "$NT/ncclhome/include"
  GEN="-gencode=arch=compute_90,code=sm_90"
  make -C "$NT" -j 64 CUDA_HOME=/usr/local/cuda NCCL_HOME="$NT/ncclhome" NVCC_GENCODE="$GEN" >"$O/nt_build.txt" 2>&1 ||
    { echo "nccl-tests build failed" >>"$S"; tail -20 "$O/nt_build.txt" >>"$S"; }
  MPI_INC=$(mpicc --showme:incdirs 2>/dev/null | cut -d' ' -f1)
  make -C "$NT" -j 64 MPI=1 MPI_HOME="$(dirname "$MPI_INC")" NAME_SUFFIX=_mpi CUDA_HOME=/usr/local/cuda \
    NCCL_HOME="$NT/ncclhome" NVCC_GENCODE="$GEN" >"$O/nt_build_mpi.txt" 2>&1 || echo "nccl-tests MPI build failed" >>"$S"
fi
COLLS=${COLLS:-all_reduce reduce_scatter all_gather broadcast reduce alltoall}
MIN=${MIN:-1G} MAX=${MAX:-8G}
run_nt() {  # mode, round dir, round
  for c in $COLLS; do
    if [ "$1" = threads ]; then
      timeout 120 "$NT/build/${c}_perf" -b "$MIN" -e "$MAX" -f 2 -g "$NG" -w 5 -n 20 >"$2/nt_$c.txt" 2>&1
    else
      timeout 120 mpirun --allow-run-as-root -np "$NG" -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE -x NCCL_MNNVL_ENABLE \
        "$NT/build/${c}_perf_mpi" -b "$MIN" -e "$MAX" -f 2 -g 1 -w 5 -n 20 >"$2/nt_$c.txt" 2>&1
    fi || echo "$1 round $3 nccl-tests $c: rc=$?" >>"$S"
  done
}
run_dd() {  # mode, round dir, round
  local t0=$EPOCHREALTIME extra=""
  [ "$1" = threads ] && extra=--threads
  timeout 300 "$DIR/distdoctor" bench -c "${COLLS// /,}" -b "$MIN" -e "$MAX" -f 2 -w 5 -n 20 $extra --nccl-lib "$NCCL" \
    --json >"$2/dd.json" 2>"$2/dd.err"
  echo "$1 round $3 distdoctor bench $extra: rc=$? $(secs "$t0") s" >>"$S"
}
for mode in ${MODES:-procs threads}; do
  for i in $(seq 1 "$ROUNDS"); do
    R=$O/$mode/round$i
    mkdir -p "$R"
    # Odd rounds run nccl-tests first, even rounds distdoctor first: neither always gets the cooler GPU.
    if [ $((i % 2)) = 1 ]; then run_nt "$mode" "$R" "$i"; run_dd "$mode" "$R" "$i"; else run_dd "$mode" "$R" "$i"; run_nt "$mode" "$R" "$i"; fi
  done
  python3 "$HERE/busbw_compare.py" "$O/$mode" >"$O/busbw_vs_nccl_tests_$mode.md" 2>&1
  echo "busbw compare $mode: rc=$?" >>"$S"
done
(cd "$O" && tar czf raw.tar.gz --exclude=raw.tar.gz $(ls -d procs threads nt_build*.txt 2>/dev/null))
cp "$S" "$O"/busbw_vs_nccl_tests_*.md "$O/raw.tar.gz" "$FINAL"/
cat "$S" "$O"/busbw_vs_nccl_tests_*.md
rm -rf "$O"
