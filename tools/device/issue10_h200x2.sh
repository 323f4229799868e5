#!/bin/bash
# Issue 10's speed targets on 2 GPUs, side by side in one run (nvidia-h200-x2): busbw of all six collectives
# at 1-8 GiB, in and out of place, against nccl-tests built here from its source (same NCCL: the one PyTorch
# ships), `bench --tune` at 8 GiB (time and best all_reduce), and `check --collectives` wall time with
# --timing. Usage (repo root on the device): tools/device/issue10_h200x2.sh DD_DIR NCCL_TESTS_SRC
# (DD_DIR: distdoctor + lib/). Writes under $OUT: summary.txt, nt_*.txt, dd_bench.json, tune.txt, coll_*.txt.
set -u
export NCCL_NVLS_ENABLE=0 NCCL_MNNVL_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
DIR=$(cd "${1:?distdoctor dir}" && pwd)
NT_SRC=$(cd "${2:?nccl-tests source}" && pwd)
O=${OUT:-${TMPDIR:-/tmp}/dd-issue10}
mkdir -p "$O"
S=$O/summary.txt
: >"$S"
NCCL_DIR=$(python3 -c "import nvidia.nccl,os;print(list(nvidia.nccl.__path__)[0])")
NCCL=$NCCL_DIR/lib/libnccl.so.2
export LD_LIBRARY_PATH=$DIR/lib:$NCCL_DIR/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=index,name --format=csv,noheader >>"$S"
echo "NCCL: $(basename "$(dirname "$NCCL_DIR")")/nccl $(ls "$NCCL_DIR/lib")" >>"$S"
# nccl-tests against the same NCCL (its headers come with the wheel).
NT=$(mktemp -d)
cp -r "$NT_SRC"/. "$NT"/
[ -e "$NCCL_DIR/lib/libnccl.so" ] || ln -sf libnccl.so.2 "$NCCL_DIR/lib/libnccl.so" 2>/dev/null || {
  mkdir -p "$NT/ncclhome/lib" && ln -sf "$NCCL" "$NT/ncclhome/lib/libnccl.so" && ln -sf "$NCCL_DIR/include" "$NT/ncclhome/include"; }
HOME_DIR=$NCCL_DIR
[ -d "$NT/ncclhome" ] && HOME_DIR=$NT/ncclhome
t0=$SECONDS
make -C "$NT" -j 32 CUDA_HOME=/usr/local/cuda NCCL_HOME="$HOME_DIR" NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" \
  >"$O/nt_build.txt" 2>&1 || { echo "nccl-tests build failed (see nt_build.txt)" >>"$S"; tail -20 "$O/nt_build.txt" >>"$S"; }
echo "nccl-tests built in $((SECONDS - t0)) s" >>"$S"
for c in all_reduce reduce_scatter all_gather broadcast reduce alltoall; do
  timeout 120 "$NT/build/${c}_perf" -b 1G -e 8G -f 2 -g 2 -w 5 -n 20 >"$O/nt_$c.txt" 2>&1
  echo "nccl-tests $c: rc=$?" >>"$S"
done
t0=$EPOCHREALTIME
timeout 400 "$DIR/distdoctor" bench -c all_reduce,reduce_scatter,all_gather,broadcast,reduce,alltoall -b 1G -e 8G -f 2 \
  -w 5 -n 20 --nccl-lib "$NCCL" --json >"$O/dd_bench.json" 2>"$O/dd_bench.err"
echo "distdoctor bench: rc=$? $(python3 -c "print('%.1f s' % ($EPOCHREALTIME - $t0))")" >>"$S"
t0=$EPOCHREALTIME
timeout 200 "$DIR/distdoctor" bench -c all_reduce --tune --tune-bytes 8G -b 8G -e 8G --nccl-lib "$NCCL" >"$O/tune.txt" 2>&1
echo "bench --tune 8G: rc=$? $(python3 -c "print('%.1f s' % ($EPOCHREALTIME - $t0))")" >>"$S"
for i in 1 2 3 4 5; do
  t0=$EPOCHREALTIME
  "$DIR/distdoctor" check --local --collectives --timing --nccl-lib "$NCCL" >"$O/coll_$i.txt" 2>&1
  echo "check --collectives #$i: rc=$? wall $(python3 -c "print('%.2f s' % ($EPOCHREALTIME - $t0))")" >>"$S"
done
grep -i 'time\|phase\|init' "$O/coll_5.txt" | head -12 >>"$S"
rm -rf "$NT"
cat "$S"
