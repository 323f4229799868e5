# A stand-in for PyTorch in launch's tests (no GPU, no torch in CI): only what launch's stack hook touches,
# torch._C._distributed_c10d._dump_nccl_trace, which returns the bytes of a real recorded dump of this rank
# ($FAKE_FR_PREFIX$RANK) as PyTorch 2.11 does, and notes each call in $FAKE_FR_LOG when that is set.
import os
import types

_C = types.SimpleNamespace()


def _dump_nccl_trace(includeCollectives=None, includeStackTraces=None, onlyActive=None):
    log = os.environ.get("FAKE_FR_LOG")
    if log:
        with open(log, "a") as f:
            f.write(f"rank {os.environ['RANK']} stacks={includeStackTraces}\n")
    with open(os.environ["FAKE_FR_PREFIX"] + os.environ["RANK"], "rb") as f:
        return f.read()


_C._distributed_c10d = types.SimpleNamespace(_dump_nccl_trace=_dump_nccl_trace)
