#!/bin/bash
# How CUDA init scales with processes started together: N = 1, 2, 4 (up to the GPU count) Python processes
# each timing cuInit and its primary context, each seeing all GPUs or only its own (CUDA_VISIBLE_DEVICES=i),
# then `bench --quick` (the check pass) in process and --threads mode, with --timing.
# Usage (repo root on the device): tools/device/cuda_init_scaling.sh DD_DIR. Writes $OUT/scaling.txt.
set -u
DIR=$(cd "${1:?distdoctor dir}" && pwd)
O=${OUT:-${TMPDIR:-/tmp}/dd-scaling}
mkdir -p "$O"
S=$O/scaling.txt
: >"$S"
. "$(dirname "$0")/torch_nccl_env.sh" "$DIR"
PY=$O/cuinit.py
cat >"$PY" <<'PYEOF'
import ctypes, time, sys
cu = ctypes.CDLL("libcuda.so.1")
t1 = time.time(); cu.cuInit(0); t2 = time.time()
dev = ctypes.c_int(); cu.cuDeviceGet(ctypes.byref(dev), 0)
ctx = ctypes.c_void_p(); cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev); cu.cuCtxSetCurrent(ctx); t3 = time.time()
print("%s cuInit %.3f s, primary context %.3f s" % (sys.argv[1], t2 - t1, t3 - t2))
PYEOF
NGPU=$(nvidia-smi -L | wc -l)
for n in 1 2 4 8; do
  [ "$n" -le "$NGPU" ] || continue
  for view in all own; do
    for rep in 1 2; do
      for i in $(seq 0 $((n - 1))); do
        if [ $view = own ]; then CUDA_VISIBLE_DEVICES=$i python3 "$PY" "n=$n $view gpu$i rep$rep" &
        else python3 "$PY" "n=$n $view gpu$i rep$rep" & fi
      done >>"$S"
      wait
    done
  done
done
for mode in processes threads; do
  for rep in 1 2 3; do
    extra=; [ $mode = threads ] && extra=--threads
    t0=$EPOCHREALTIME
    "$DIR/distdoctor" bench --quick $extra --timing --nccl-lib "$NCCL" >"$O/quick.out" 2>&1
    echo "bench --quick $mode rep$rep: rc=$? wall $(secs "$t0") s" >>"$S"
    grep -E '^#' "$O/quick.out" | grep -E 'CUDA init|communicator init|warm-up|collectives \(|alltoall|engine init|exit' >>"$S"
  done
done
rm -f "$O/quick.out" "$PY"
cat "$S"
