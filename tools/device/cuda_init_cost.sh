#!/bin/bash
# What CUDA start-up costs one process on this node: cuInit and the primary context with every GPU visible
# and with one (CUDA_VISIBLE_DEVICES), alone and two processes at once; and a 2-rank PyTorch all_reduce
# start-to-end (torchrun) as the peer for `check --collectives`. Writes $OUT/cuda_init.txt.
set -u
O=${OUT:-${TMPDIR:-/tmp}/dd-cuda-init}
mkdir -p "$O"
S=$O/cuda_init.txt
: >"$S"
cat >"$O/cuinit.py" <<'PY'
import ctypes, os, sys, time
t = time.time(); cu = ctypes.CDLL("libcuda.so.1"); cu.cuInit(0); t1 = time.time()
dev = ctypes.c_int(); cu.cuDeviceGet(ctypes.byref(dev), 0)
ctx = ctypes.c_void_p(); cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev); cu.cuCtxSetCurrent(ctx); t2 = time.time()
n = ctypes.c_int(); cu.cuDeviceGetCount(ctypes.byref(n))
print("%s CVD=%s: %d device(s), cuInit %.3f s, primary context %.3f s" % (sys.argv[1], os.environ.get("CUDA_VISIBLE_DEVICES", "unset"), n.value, t1 - t, t2 - t1))
PY
for i in 1 2; do python3 "$O/cuinit.py" alone >>"$S"; done
for i in 1 2; do CUDA_VISIBLE_DEVICES=0 python3 "$O/cuinit.py" alone >>"$S"; done
python3 "$O/cuinit.py" pair-all-a >>"$S" & python3 "$O/cuinit.py" pair-all-b >>"$S"; wait
CUDA_VISIBLE_DEVICES=0 python3 "$O/cuinit.py" pair-one-a >>"$S" & CUDA_VISIBLE_DEVICES=1 python3 "$O/cuinit.py" pair-one-b >>"$S"; wait
cat >"$O/ar.py" <<'PY'
import os, time, torch, torch.distributed as dist
t = time.time()
r = int(os.environ["LOCAL_RANK"]); torch.cuda.set_device(r)
dist.init_process_group("nccl", device_id=torch.device("cuda", r))
x = torch.ones(1 << 20, device="cuda"); dist.all_reduce(x); torch.cuda.synchronize()
assert x[0].item() == dist.get_world_size()
dist.destroy_process_group()
if r == 0: print("torch in-process: %.3f s from rank start to all_reduce checked" % (time.time() - t))
PY
export NCCL_NVLS_ENABLE=0 NCCL_MNNVL_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
for i in 1 2; do
  t0=$EPOCHREALTIME
  torchrun --standalone --nproc-per-node 2 "$O/ar.py" >>"$S" 2>"$O/torchrun.err"
  echo "torchrun 2 ranks, one 4 MiB all_reduce checked: rc=$? wall $(python3 -c "import sys;print('%.2f s' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$EPOCHREALTIME")" >>"$S"
done
cat "$S"
