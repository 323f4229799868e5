#!/bin/bash
# Issue 36 on a GPU node: launch on every GPU with real PyTorch/NCCL workers (tools/device/usr1_ckpt.py):
# healthy run stopped by SIGUSR1 (forwarded; every rank saves its checkpoint and exits 0), and a rank stopped
# with SIGSTOP in a hang (named by its state). Usage: tools/device/round3_gpu.sh DD_DIR (distdoctor + lib/).
set -u
DIR=$(cd "${1:?distdoctor dir}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/torch_nccl_env.sh" "$DIR"
O=${OUT:-${TMPDIR:-/tmp}/dd-round3}
mkdir -p "$O/ckpt"
N=$(nvidia-smi -L | wc -l)
export CKPT_DIR=$O/ckpt NO_COLOR=1
"$DIR/distdoctor" launch --nproc-per-node "$N" --log-dir "$O/logs" --job-id usr1 -- python3 "$HERE/usr1_ckpt.py" \
  >"$O/usr1.out" 2>"$O/usr1.err" &
L=$!
for _ in $(seq 600); do grep -qs "rank" "$O/logs/usr1/0/node0.rank0.log" && break; sleep 0.1; done
sleep 8
t0=$EPOCHREALTIME
kill -USR1 $L
wait $L
echo "usr1: rc=$? $(secs "$t0") s after SIGUSR1; checkpoints: $(ls "$O/ckpt" | wc -l) of $N" | tee "$O/summary.txt"
t0=$EPOCHREALTIME
CASE=stop timeout 120 "$DIR/distdoctor" launch --nproc-per-node "$N" --hang-timeout 10 --log-dir "$O/logs" \
  --job-id stop -- python3 "$HERE/usr1_ckpt.py" >"$O/stop.out" 2>"$O/stop.err"
echo "stop: rc=$? $(secs "$t0") s" | tee -a "$O/summary.txt"
grep -h "stopped (state T)\|culprit\|verdict" "$O/stop.out" | head -5 | tee -a "$O/summary.txt"
grep -h "SIGUSR1\|verdict" "$O/usr1.out" | head -4 | tee -a "$O/summary.txt"
