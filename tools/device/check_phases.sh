#!/bin/bash
# Where `check --collectives` spends its time on a GPU node: the probe's per-child times, NCCL's own
# "Init timings" lines, cuInit and context creation alone, and the wall time under a few CUDA/NCCL settings.
# Usage (repo root on the device): tools/device/check_phases.sh DD_DIR (distdoctor + lib/). Writes $OUT/phases.txt.
set -u
DIR=$(cd "${1:?distdoctor dir}" && pwd)
O=${OUT:-${TMPDIR:-/tmp}/dd-phases}
mkdir -p "$O"
S=$O/phases.txt
: >"$S"
. "$(dirname "$0")/torch_nccl_env.sh" "$DIR"
nvidia-smi --query-gpu=index,name --format=csv,noheader >>"$S"
python3 - >>"$S" 2>&1 <<'PY'
import ctypes, time
t = time.time(); cu = ctypes.CDLL("libcuda.so.1"); t1 = time.time()
cu.cuInit(0); t2 = time.time()
dev = ctypes.c_int(); cu.cuDeviceGet(ctypes.byref(dev), 0)
ctx = ctypes.c_void_p(); cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev); cu.cuCtxSetCurrent(ctx); t3 = time.time()
p = ctypes.c_uint64(); cu.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(1 << 20)); t4 = time.time()
print("python ctypes: dlopen libcuda %.3f s, cuInit %.3f s, primary context %.3f s, first cuMemAlloc %.3f s" % (t1 - t, t2 - t1, t3 - t2, t4 - t3))
PY
for i in 1 2 3; do
  t0=$EPOCHREALTIME
  DISTDOCTOR_PROBE_TIMING=1 "$DIR/distdoctor" facts --nccl-lib "$NCCL" --json >/dev/null 2>"$O/probe.err"
  echo "facts #$i: wall $(secs "$t0") s; $(grep 'probe timing' "$O/probe.err")" >>"$S"
done
run_check() {  # label, then env assignments
  local label=$1; shift
  rm -rf "$O/tmp"; mkdir -p "$O/tmp"
  t0=$EPOCHREALTIME
  env "$@" TMPDIR="$O/tmp" DD_KEEP_TMP=1 DISTDOCTOR_PROBE_TIMING=1 "$DIR/distdoctor" check --local --collectives --timing \
    --nccl-lib "$NCCL" >"$O/check.out" 2>"$O/check.err"
  local rc=$? w; w=$(secs "$t0")
  echo "check --collectives [$label]: rc=$rc wall $w s; $(grep -h 'probe timing' "$O/check.err" | head -1)" >>"$S"
  grep -h 'Init timings\|init.cc.*Init COMPLETE' -r "$O/tmp" 2>/dev/null | sed 's/^.*NCCL INFO/  NCCL/' | head -4 >>"$S"
}
for i in 1 2; do run_check "default #$i" X=1; done
sed 's/\\n/\n/g' "$O/check.out" | grep '^#' >>"$S"
run_check "NCCL_DEBUG=INFO" NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT
run_check "CUDA_MODULE_LOADING=EAGER" CUDA_MODULE_LOADING=EAGER
run_check "NCCL_RUNTIME_CONNECT=0" NCCL_RUNTIME_CONNECT=0
run_check "NCCL_CUMEM_ENABLE=0" NCCL_CUMEM_ENABLE=0
run_check "NCCL_DEBUG=WARN (no INFO log capture)" NCCL_DEBUG=WARN
t0=$EPOCHREALTIME
"$DIR/distdoctor" check --local --nccl-lib "$NCCL" >/dev/null 2>&1
echo "check (no collectives): wall $(secs "$t0") s" >>"$S"
cat "$S"
