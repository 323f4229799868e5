# Issue 38: which NVML calls make `check`'s GPU probe slow on a multi-GPU node. Times each query the probe
# makes (src/probe/gpu_device.cc), per GPU, first with every GPU in its own thread (as the probe runs them),
# then one GPU after another, and prints the calls sorted by their worst time; then the P2P status of every
# pair and the shutdown (bench/results/healthy_h100x4.md, speed.md). ctypes only (no pynvml).
# Usage: python3 tools/device/nvml_call_times.py [ROUNDS] [MODES]; MODES, comma-separated, in order (default
# threads,serial): threads, serial, or handles (every handle got serially first, then each GPU's queries in
# its own thread). Run a mode first in a fresh process to see its cost with the GPUs' first attach.
import ctypes, sys, threading, time

nv = ctypes.CDLL("libnvidia-ml.so.1")
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
modes = sys.argv[2].split(",") if len(sys.argv) > 2 else ["threads", "serial"]
t = time.perf_counter()
assert nv.nvmlInit_v2() == 0
print(f"nvmlInit_v2: {1000 * (time.perf_counter() - t):.1f} ms")
count = ctypes.c_uint()
nv.nvmlDeviceGetCount_v2(ctypes.byref(count))
u = ctypes.c_uint
ull = ctypes.c_ulonglong
buf = lambda: ctypes.create_string_buffer(256)

def calls(h):
    i1, i2, i3, i4 = u(), u(), u(), u()
    v = ull()
    b = buf()
    big = (ctypes.c_ulonglong * 8)()
    mask = (ctypes.c_ulong * 64)()
    out = [
        ("GetName", lambda: nv.nvmlDeviceGetName(h, b, 255)),
        ("GetUUID", lambda: nv.nvmlDeviceGetUUID(h, b, 255)),
        ("GetPciInfo_v3", lambda: nv.nvmlDeviceGetPciInfo_v3(h, ctypes.byref(ctypes.create_string_buffer(128)))),
        ("GetMemoryInfo", lambda: nv.nvmlDeviceGetMemoryInfo(h, big)),
        ("GetUtilizationRates", lambda: nv.nvmlDeviceGetUtilizationRates(h, big)),
        ("GetComputeRunningProcesses_v3", lambda: nv.nvmlDeviceGetComputeRunningProcesses_v3(h, ctypes.byref(i1), None)),
        ("GetEccMode", lambda: nv.nvmlDeviceGetEccMode(h, ctypes.byref(i1), ctypes.byref(i2))),
        ("GetTotalEccErrors(volatile)", lambda: nv.nvmlDeviceGetTotalEccErrors(h, 1, 0, ctypes.byref(v))),
        ("GetTotalEccErrors(aggregate)", lambda: nv.nvmlDeviceGetTotalEccErrors(h, 1, 1, ctypes.byref(v))),
        ("GetRetiredPagesPendingStatus", lambda: nv.nvmlDeviceGetRetiredPagesPendingStatus(h, ctypes.byref(i1))),
        ("GetRemappedRows", lambda: nv.nvmlDeviceGetRemappedRows(h, ctypes.byref(i1), ctypes.byref(i2), ctypes.byref(i3), ctypes.byref(i4))),
        ("GetMigMode", lambda: nv.nvmlDeviceGetMigMode(h, ctypes.byref(i1), ctypes.byref(i2))),
        ("GetNvLinkState(0..17)", lambda: [nv.nvmlDeviceGetNvLinkState(h, l, ctypes.byref(i1)) for l in range(18)]),
        ("GetCurrPcieLinkGeneration", lambda: nv.nvmlDeviceGetCurrPcieLinkGeneration(h, ctypes.byref(i1))),
        ("GetCurrPcieLinkWidth", lambda: nv.nvmlDeviceGetCurrPcieLinkWidth(h, ctypes.byref(i1))),
        ("GetMaxPcieLinkGeneration", lambda: nv.nvmlDeviceGetMaxPcieLinkGeneration(h, ctypes.byref(i1))),
        ("GetMaxPcieLinkWidth", lambda: nv.nvmlDeviceGetMaxPcieLinkWidth(h, ctypes.byref(i1))),
        ("GetCpuAffinity", lambda: nv.nvmlDeviceGetCpuAffinity(h, 64, mask)),
    ]
    return out

times = {}  # name -> list of ms

def handle(i, sink):
    h = ctypes.c_void_p()
    t = time.perf_counter()
    nv.nvmlDeviceGetHandleByIndex_v2(i, ctypes.byref(h))
    sink.append(("GetHandleByIndex", i, 1000 * (time.perf_counter() - t)))
    return h

def probe(i, sink, h=None):
    if h is None:
        h = handle(i, sink)
    for name, fn in calls(h):
        t = time.perf_counter()
        fn()
        sink.append((name, i, 1000 * (time.perf_counter() - t)))

for mode in modes:
    for r in range(rounds):
        sink = []
        t = time.perf_counter()
        if mode in ("threads", "handles"):
            hs = [handle(i, sink) for i in range(count.value)] if mode == "handles" else [None] * count.value
            ts = [threading.Thread(target=probe, args=(i, sink, hs[i])) for i in range(count.value)]
            [x.start() for x in ts]
            [x.join() for x in ts]
        else:
            for i in range(count.value):
                probe(i, sink)
        wall = 1000 * (time.perf_counter() - t)
        for name, i, ms in sink:
            times.setdefault((mode, name), []).append(ms)
        print(f"{mode} round {r}: {count.value} GPUs in {wall:.1f} ms")
for mode in modes:
    print(f"\n{mode}: call, max ms, median ms (over GPUs and rounds)")
    rows = [(name, max(v), sorted(v)[len(v) // 2]) for (m, name), v in times.items() if m == mode]
    for name, mx, med in sorted(rows, key=lambda x: -x[1]):
        print(f"  {name:34s} {mx:8.2f} {med:8.2f}")
i = ctypes.c_int()
t = time.perf_counter()
for a in range(count.value):
    for b in range(a + 1, count.value):
        ha, hb = ctypes.c_void_p(), ctypes.c_void_p()
        nv.nvmlDeviceGetHandleByIndex_v2(a, ctypes.byref(ha))
        nv.nvmlDeviceGetHandleByIndex_v2(b, ctypes.byref(hb))
        nv.nvmlDeviceGetP2PStatus(ha, hb, 0, ctypes.byref(i))
print(f"\nGetP2PStatus, every pair: {1000 * (time.perf_counter() - t):.1f} ms")
t = time.perf_counter()
nv.nvmlShutdown()
print(f"nvmlShutdown: {1000 * (time.perf_counter() - t):.1f} ms")
