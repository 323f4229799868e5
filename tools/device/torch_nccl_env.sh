# Sourced by the device scripts: multicast off (the machine's rule), the NCCL that PyTorch's wheel ships as
# $NCCL (its directory $NCCL_DIR) on LD_LIBRARY_PATH after distdoctor's own libraries in $1/lib, and
# `secs T0`: seconds since $EPOCHREALTIME was T0, to 2 decimals.
export NCCL_NVLS_ENABLE=0 NCCL_MNNVL_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
NCCL_DIR=$(python3 -c "import nvidia.nccl,os;print(list(nvidia.nccl.__path__)[0])")
NCCL=$NCCL_DIR/lib/libnccl.so.2
export LD_LIBRARY_PATH=$1/lib:$NCCL_DIR/lib:${LD_LIBRARY_PATH:-}
secs() { python3 -c "import sys;print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$EPOCHREALTIME"; }
