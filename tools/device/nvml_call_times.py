# Times each NVML call `distdoctor check`'s GPU probe makes, per GPU, serially, through ctypes (no build): which
# calls make the probe's cost (bench/results/healthy_h100x4.md). Usage: python3 nvml_call_times.py [ROUNDS]
import ctypes
import sys
import time

nv = ctypes.CDLL("libnvidia-ml.so.1")
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3


def timed(name, fn, *args):
    t = time.perf_counter()
    rc = fn(*args)
    return name, (time.perf_counter() - t) * 1000, rc


t = time.perf_counter()
nv.nvmlInit_v2()
print(f"nvmlInit_v2 {1000 * (time.perf_counter() - t):.1f} ms")
n = ctypes.c_uint()
nv.nvmlDeviceGetCount_v2(ctypes.byref(n))
buf = ctypes.create_string_buffer(256)
u = ctypes.c_uint()
i = ctypes.c_int()
ull = ctypes.c_ulonglong()
big = ctypes.create_string_buffer(4096)
for r in range(rounds):
    totals = {}
    for g in range(n.value):
        h = ctypes.c_void_p()
        res = [timed("GetHandleByIndex", nv.nvmlDeviceGetHandleByIndex_v2, g, ctypes.byref(h))]
        res += [
            timed("GetName", nv.nvmlDeviceGetName, h, buf, 255),
            timed("GetUUID", nv.nvmlDeviceGetUUID, h, buf, 255),
            timed("GetPciInfo", nv.nvmlDeviceGetPciInfo_v3, h, big),
            timed("GetMemoryInfo", nv.nvmlDeviceGetMemoryInfo, h, big),
            timed("GetUtilizationRates", nv.nvmlDeviceGetUtilizationRates, h, big),
            timed("GetComputeRunningProcesses", nv.nvmlDeviceGetComputeRunningProcesses_v3, h, ctypes.byref(u), None),
            timed("GetEccMode", nv.nvmlDeviceGetEccMode, h, ctypes.byref(i), ctypes.byref(i)),
            timed("GetTotalEccErrors volatile", nv.nvmlDeviceGetTotalEccErrors, h, 1, 0, ctypes.byref(ull)),
            timed("GetTotalEccErrors aggregate", nv.nvmlDeviceGetTotalEccErrors, h, 1, 1, ctypes.byref(ull)),
            timed("GetRetiredPagesPendingStatus", nv.nvmlDeviceGetRetiredPagesPendingStatus, h, ctypes.byref(i)),
            timed("GetRemappedRows", nv.nvmlDeviceGetRemappedRows, h, ctypes.byref(u), ctypes.byref(u), ctypes.byref(u), ctypes.byref(u)),
            timed("GetMigMode", nv.nvmlDeviceGetMigMode, h, ctypes.byref(u), ctypes.byref(u)),
            timed("GetNvLinkState x18", lambda: [nv.nvmlDeviceGetNvLinkState(h, link, ctypes.byref(i)) for link in range(18)] and 0),
            timed("GetCurrPcieLinkGeneration", nv.nvmlDeviceGetCurrPcieLinkGeneration, h, ctypes.byref(u)),
            timed("GetMaxPcieLinkWidth", nv.nvmlDeviceGetMaxPcieLinkWidth, h, ctypes.byref(u)),
        ]
        for name, ms, rc in res:
            totals[name] = totals.get(name, 0) + ms
    p2p = 0.0
    for a in range(n.value):
        for b in range(a + 1, n.value):
            ha, hb = ctypes.c_void_p(), ctypes.c_void_p()
            nv.nvmlDeviceGetHandleByIndex_v2(a, ctypes.byref(ha))
            nv.nvmlDeviceGetHandleByIndex_v2(b, ctypes.byref(hb))
            t = time.perf_counter()
            nv.nvmlDeviceGetP2PStatus(ha, hb, 0, ctypes.byref(i))
            p2p += (time.perf_counter() - t) * 1000
    totals["GetP2PStatus (pairs)"] = p2p
    print(f"round {r}: " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(totals.items(), key=lambda x: -x[1])))
t = time.perf_counter()
nv.nvmlShutdown()
print(f"nvmlShutdown {1000 * (time.perf_counter() - t):.1f} ms")
