#!/usr/bin/env bash
# `distdoctor launch` against torchrun on the same failures: the PyTorch job of launch_train.py under each
# launcher, for each fault case (healthy, kill, sleep, bad_ifname, dup_gpu; launch_compare.py runs them): exit
# code, the time from the fault to the launcher's report and to the last process gone, and what each report
# says. Usage (repo root on the device): tools/device/launch_vs_torchrun.sh DIR [CASE...] (DIR: a stripped
# distdoctor and lib/, tools/device/stage_binary.sh; NPROC ranks, default 2). Results under $OUT:
# launch_compare.json, summary.txt, runs.tgz (each launcher's output, the fault moments, the per-rank logs).
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
DIR=$(cd "${1:?distdoctor dir}" && pwd)
O=${OUT:-device_out}
mkdir -p "$O"
python3 -c 'import torch' 2>/dev/null || { echo "needs python3 with torch"; exit 1; }
export LD_LIBRARY_PATH=$DIR/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
{
  nvidia-smi -L
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())'
} >"$O/summary.txt" 2>&1
shift
python3 "$(dirname "$0")/launch_compare.py" "$DIR/distdoctor" "$O" "$@" | tee -a "$O/summary.txt"
# At most a few files come back from the device: pack the per-run outputs and logs.
(cd "$O" && tar czf runs.tgz out.*.txt fault.* logs 2>/dev/null && rm -rf out.*.txt fault.* logs)
