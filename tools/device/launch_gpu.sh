#!/usr/bin/env bash
# GPU-machine batch for `distdoctor launch` (issue 11): the PyTorch job of launch_train.py under distdoctor launch
# and torchrun, for each fault case (launch_compare.py). Usage (repo root on the device):
#   tools/device/launch_gpu.sh DIR   (DIR holds distdoctor + lib/)
# Results under $OUT: launch_compare.json, summary.txt, out.*.txt (each launcher's output), logs/ (per rank).
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
DIR=$(cd "$1" && pwd)
O=${OUT:-device_out}
mkdir -p "$O"
python3 -c 'import torch' 2>/dev/null || { echo "needs python3 with torch"; exit 1; }
export LD_LIBRARY_PATH=$DIR/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
{
  nvidia-smi -L
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())'
} >"$O/summary.txt" 2>&1
shift
python3 tools/device/launch_compare.py "$DIR/distdoctor" "$O" "$@" | tee -a "$O/summary.txt"
# At most a few files come back from the device: pack the per-run outputs and logs.
(cd "$O" && tar czf runs.tgz out.*.txt fault.* logs 2>/dev/null && rm -rf out.*.txt fault.* logs)
