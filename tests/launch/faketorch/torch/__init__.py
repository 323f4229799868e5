# A stand-in for PyTorch in launch's tests (no GPU, no torch in CI): only what launch's stack hook touches,
# torch._C._distributed_c10d._dump_nccl_trace, which returns the bytes of a real recorded dump of this rank
# ($FAKE_FR_PREFIX$RANK) as PyTorch 2.11 does, and notes each call in $FAKE_FR_LOG when that is set. Without
# FAKE_FR_PREFIX it pickles the collectives the worker recorded in `collectives` (a live recorder for
# tests/launch/straggler.py: its entries carry the time the worker issued each collective). FAKE_BACKEND=gloo:
# those collectives are Gloo's, which PyTorch 2.11 records apart: _dump_fr_trace returns them and
# _dump_nccl_trace a dump with no entries (as a real Gloo job's recorders answer); otherwise the reverse.
import os
import pickle
import threading
import time
import types

collectives = []  # (seq, time_created_ns) the stand-in worker issued
_lock = threading.Lock()


def record_collective(seq):
    with _lock:
        collectives.append((seq, time.time_ns()))


def _live_dump(backend):
    with _lock:
        done = list(collectives) if os.environ.get("FAKE_BACKEND", "nccl") == backend else []
    entries = [{"record_id": i, "pg_id": 0, "process_group": ("0", "default_pg"), "collective_seq_id": seq,
                "p2p_seq_id": 0, "op_id": seq, "profiling_name": backend + ":all_reduce", "time_created_ns": t,
                "input_sizes": [[1024]], "input_dtypes": ["Float"], "output_sizes": [[1024]],
                "output_dtypes": ["Float"], "state": "completed", "time_discovered_started_ns": None,
                "time_discovered_completed_ns": None, "retired": True, "timeout_ms": 600000, "is_p2p": False,
                "thread_name": "pt_main_thread", "thread_id": "1", "frames": []}
               for i, (seq, t) in enumerate(done[-2000:])]
    world = int(os.environ.get("WORLD_SIZE", "1"))
    return pickle.dumps({"version": "2.10", "comm_lib_version": "2.28.9",
                         "pg_config": {"0": {"name": "0", "desc": "default_pg",
                                             "ranks": "[" + ", ".join(map(str, range(world))) + "]"}},
                         "pg_status": {}, "entries": entries}, protocol=2)

_C = types.SimpleNamespace()


def _dump_nccl_trace(includeCollectives=None, includeStackTraces=None, onlyActive=None):
    log = os.environ.get("FAKE_FR_LOG")
    if log:
        with open(log, "a") as f:
            f.write(f"rank {os.environ['RANK']} stacks={includeStackTraces}\n")
    if "FAKE_FR_PREFIX" not in os.environ:
        return _live_dump("nccl")
    with open(os.environ["FAKE_FR_PREFIX"] + os.environ["RANK"], "rb") as f:
        return f.read()


def _dump_fr_trace(includeCollectives=None, includeStackTraces=None, onlyActive=None):
    return _live_dump("gloo")


_C._distributed_c10d = types.SimpleNamespace(_dump_nccl_trace=_dump_nccl_trace, _dump_fr_trace=_dump_fr_trace)
