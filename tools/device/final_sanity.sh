#!/bin/bash
# A short check of a build on a GPU node before a stop: `check --collectives --timing`, a sweep of every
# collective, and a 20 s `--tune`; rc of each in $OUT/sanity.txt. Usage: tools/device/final_sanity.sh DD_DIR
set -u
DIR=$(cd "${1:?distdoctor dir}" && pwd)
. "$(dirname "$0")/torch_nccl_env.sh" "$DIR"
O=${OUT:-${TMPDIR:-/tmp}/dd-sanity}
mkdir -p "$O"
S=$O/sanity.txt
: >"$S"
t0=$EPOCHREALTIME
"$DIR/distdoctor" check --local --collectives --timing --nccl-lib "$NCCL" >"$O/check.txt" 2>&1
echo "check --collectives: rc=$? $(secs "$t0") s" >>"$S"
t0=$EPOCHREALTIME
"$DIR/distdoctor" bench -c all -b 1M -e 1G -f 32 --nccl-lib "$NCCL" >"$O/bench.txt" 2>&1
echo "bench -c all 1M-1G: rc=$? $(secs "$t0") s" >>"$S"
t0=$EPOCHREALTIME
"$DIR/distdoctor" bench -c all_reduce --tune --tune-bytes 256M,1G --tune-seconds 20 --nccl-lib "$NCCL" >"$O/tune.txt" 2>&1
echo "bench --tune 256M,1G in 20 s: rc=$? $(secs "$t0") s" >>"$S"
cat "$S"; grep -h "verdict\|FAIL\|warn\]" "$O"/*.txt | head -20
