#!/bin/bash
# sendrecv on every GPU of this node: distdoctor `bench -c sendrecv` (threads and one process per GPU) against
# nccl-tests' sendrecv_perf -g N (same NCCL, PyTorch's; built here from its source), 64 MiB to 1 GiB, healthy
# and with NCCL_P2P_DISABLE=1 (the copy through host memory a broken P2P path gives): what busbw a healthy
# pair reaches, against the link bench judges it by. Usage (repo root on the device):
# tools/device/sendrecv_vs_nccl_tests.sh DD_DIR NCCL_TESTS_SRC
set -u
DIR=$(cd "${1:?distdoctor dir}" && pwd)
NT_SRC=$(cd "${2:?nccl-tests source}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/torch_nccl_env.sh" "$DIR"
NG=$(nvidia-smi -L | wc -l)
NT=$PWD/.devcarry/nt-build
if [ ! -x "$NT/build/sendrecv_perf" ]; then
  rm -rf "$NT" && mkdir -p "$NT" && cp -r "$NT_SRC"/. "$NT"/
  mkdir -p "$NT/ncclhome/lib" && ln -sf "$NCCL" "$NT/ncclhome/lib/libnccl.so" && ln -sf "$NCCL_DIR/include" "$NT/ncclhome/include"
  make -C "$NT" -j 64 CUDA_HOME=/usr/local/cuda NCCL_HOME="$NT/ncclhome" \
    NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" >"${TMPDIR:-/tmp}/nt_build.txt" 2>&1 ||
    { echo "nccl-tests build failed"; tail -20 "${TMPDIR:-/tmp}/nt_build.txt"; exit 1; }
fi
dd_rows() {  # bench JSON -> "size busbw" per out-of-place row, and the link bench judged by
  python3 -c "
import json,sys
j=json.load(open(sys.argv[1]))
print('link', j.get('link',{}).get('gbps'), j.get('link',{}).get('description'))
for r in j['results']:
  if not r['in_place']: print('  %5d MiB %7.1f GB/s' % (r['bytes']>>20, r['busbw_gbps']))
print('  findings:', [(f['id'], f['severity']) for f in j['findings'] if f['id'].startswith('comm.bw')])" "$1"
}
for p2p in on off; do
  env=()
  [ $p2p = off ] && env=(NCCL_P2P_DISABLE=1)
  echo "== P2P $p2p: nccl-tests sendrecv_perf -g $NG"
  env "${env[@]}" timeout 120 "$NT/build/sendrecv_perf" -b 64M -e 1G -f 4 -g "$NG" -w 5 -n 20 2>&1 |
    grep -E "^ +[0-9]+ " | awk '{printf "  %5d MiB %7s GB/s (busbw out of place)\n", $1/1048576, $8}'
  for mode in threads procs; do
    flags=()
    [ $mode = threads ] && flags=(--threads)
    echo "== P2P $p2p: distdoctor bench -c sendrecv ($mode)"
    env "${env[@]}" timeout 120 "$DIR/distdoctor" bench -c sendrecv -b 64M -e 1G -f 4 "${flags[@]}" --nccl-lib "$NCCL" \
      --json >"${TMPDIR:-/tmp}/sr.json" 2>/dev/null
    echo "  rc=$?"
    dd_rows "${TMPDIR:-/tmp}/sr.json"
  done
done
