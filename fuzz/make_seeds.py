#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target under fuzz/corpus/NAME/ (run from anywhere; idempotent).

Text targets take real examples from fixtures/ and the unit tests' values; the binary targets (store wire and
server) get one frame of every op, encoded as rendezvous/wire.h describes. Crashing inputs found later are
added by hand beside these (named crash-*, timeout-*, oom-*) and kept as regression seeds.
"""
import json
import pathlib
import struct

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "fuzz" / "corpus"
MAX_SEED = 8192  # larger seeds make every mutation slower


def put(target, name, data):
    d = OUT / target
    d.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    (d / name).write_bytes(data[:MAX_SEED])


# --- store wire: u32 length | u8 op | payload (u32/u16/u8/i64 big endian, strings as u32 length + bytes).
MAGIC, VERSION = 0x44445253, 1
s = lambda b: struct.pack(">I", len(b)) + b
keys = lambda ks: struct.pack(">I", len(ks)) + b"".join(s(k) for k in ks)
num = lambda n: struct.pack(">q", n)
OPS = {
    "hello": (1, struct.pack(">IH", MAGIC, VERSION) + s(b"n" * 16)),
    "challenge": (2, struct.pack(">IH", MAGIC, VERSION) + s(b"s" * 32) + s(b"p" * 32)),
    "auth": (3, s(b"p" * 32)),
    "auth_result": (4, b"\x01" + s(b"")),
    "set": (10, s(b"job/rank/0") + s(b"198.18.0.1:29500")),
    "get": (11, s(b"job/rank/0") + num(1000)),
    "add": (12, s(b"job/count") + num(1)),
    "wait": (13, keys([b"job/a", b"job/b"]) + num(0)),
    "check": (14, keys([b"job/a", b"job/rank/0"])),
    "remove": (15, s(b"job/a")),
    "list": (16, s(b"job/")),
    "ok": (32, b""),
    "value": (33, s(b"v")),
    "integer": (34, num(-5)),
    "timeout": (35, keys([b"job/a"])),
    "bools": (36, struct.pack(">I", 2) + b"\x01\x00"),
    "keys": (37, keys([b"job/a", b"job/b"])),
    "error": (38, s(b"store full")),
}
frame = lambda op, payload: struct.pack(">IB", len(payload) + 1, op) + payload
for name, (op, payload) in OPS.items():
    put("store_wire", name, frame(op, payload))
put("store_wire", "set_get_wait", b"".join(frame(*OPS[n]) for n in ("set", "get", "wait", "add")))
put("store_wire", "oversized_length", struct.pack(">IB", 0x7FFFFFFF, 10))


# --- store server: mode byte (0 strangers, 1 client 0 authenticated, 2 both), then records of
# (control byte = (length - 1) << 1 | connection, bytes).
def records(conn, data):
    out = b""
    for i in range(0, len(data), 128):
        chunk = data[i:i + 128]
        out += bytes([((len(chunk) - 1) << 1) | conn]) + chunk
    return out


ops = lambda *names: b"".join(frame(*OPS[n]) for n in names)
put("store_server", "both_ops", b"\x02" + records(0, ops("set", "get", "add", "add", "check", "list", "remove"))
    + records(1, frame(13, keys([b"job/x"]) + num(60000))) + records(0, frame(10, s(b"job/x") + s(b"1"))))
put("store_server", "wait_then_set", b"\x02" + records(0, frame(13, keys([b"k"]) + num(5000)))
    + records(1, frame(10, s(b"k") + s(b"v"))) + records(0, ops("get")))
put("store_server", "get_parked", b"\x01" + records(0, frame(11, s(b"missing") + num(100)) + ops("set")))
put("store_server", "stranger_hello", b"\x00" + records(0, ops("hello")) + records(0, ops("auth")))
put("store_server", "stranger_set", b"\x01" + records(1, ops("set")) + records(0, ops("list")))
# Values past the byte caps (the harness sets 2048 per client, 3072 in all): client 0 fills its share and is
# refused, removes a key and stores again; client 1 then reaches the store's cap.
big = lambda i: frame(10, s(b"v/%d" % i) + s(b"x" * 300))
put("store_server", "values_over_quota", b"\x02" + records(0, b"".join(big(i) for i in range(8)))
    + records(0, frame(15, s(b"v/0")) + big(0)) + records(1, b"".join(big(10 + i) for i in range(8))))
put("store_server", "bad_version", b"\x00" + records(1, frame(1, struct.pack(">IH", MAGIC, 9) + s(b"n" * 16))))


# --- etcd HTTP answers (what etcd's JSON gateway sends) and base64 text.
body = json.dumps({"header": {"revision": "7"}, "kvs": [{"key": "ZGQva2V5", "value": "MTk4LjE4LjAuMQ=="}]})
put("etcd_http", "content_length", f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
    f"Content-Length: {len(body)}\r\n\r\n{body}")
put("etcd_http", "chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    f"{len(body):x}\r\n{body}\r\n0\r\n\r\n")
put("etcd_http", "until_close", 'HTTP/1.1 404 Not Found\r\n\r\n{"error":"Not Found","code":5}')
put("etcd_http", "base64", "ZGQva2V5")


# --- nccl.conf (NCCL's setEnvFile syntax).
put("nccl_conf", "typical", "# site settings\nNCCL_SOCKET_IFNAME=^docker,lo\nNCCL_IB_HCA=mlx5_0:1,mlx5_1:1\n"
    "NCCL_DEBUG=WARN\r\nNCCL_DEBUG=INFO\n=novalue\nnot a setting\nNCCL_ALGO=Ring,Tree")
put("nccl_conf", "empty_value", "NCCL_P2P_DISABLE=\nNCCL_NET_GDR_LEVEL=PHB\n")


# --- env grammar values (from the unit tests: CUDA_VISIBLE_DEVICES, interface/HCA lists, tune lists, levels).
for i, v in enumerate(["0,1", "0,,x", "0,2,-1,1", "GPU-aaaa,GPU-bbbb", "GPU-,GPU-aaaa", "MIG-1234,MIG-5678",
                       "^docker,lo", "=eth0:1234,eth1", "^=a:1,b", "a:99999999999999999999", ",eth0,,eth1,",
                       "mlx5_0:1,mlx5_1:2", "=mlx5_0:1,mlx5_1:1", "ring;allreduce:tree,collnetdirect;broadcast:ring",
                       "^LL128;allreduce:LL128", "LL,fast", "pxb", "NVL", "INIT,^NET,coll", "AF_INET6",
                       "198.18.0.1:29500", "NCCL_SOCKET_IFNAMES"]):
    put("env_grammar", f"value_{i:02d}", v)


# --- facts JSON: recorded facts and a whole report with a "facts" member.
for rel in ["fixtures/facts/healthy_2gpu.json", "fixtures/facts/messy.json", "fixtures/facts/ifname_is_ip.json",
            "fixtures/facts/docker_shm_64m.json", "fixtures/facts/h100x1/facts_h100.json"]:
    p = ROOT / rel
    put("facts_json", p.stem, json.dumps(json.loads(p.read_text()), separators=(",", ":")))
put("facts_json", "report_with_facts", '{"verdict":"pass","findings":[],"facts":{"schema":1,"host":{"pid":1}}}')
put("facts_json", "empty", "{}")


# --- NCCL/framework logs: the catalogue's examples, single logs, and rank sets joined by '\f'.
logs = ROOT / "fixtures" / "logs"
for p in sorted(logs.glob("catalogue/*.log")) + sorted(logs.glob("real/*.log")):
    if p.stat().st_size <= MAX_SEED:
        put("nccl_log", p.parent.name + "_" + p.stem, p.read_bytes())
for d in sorted(x for x in (logs / "sets").iterdir() if x.is_dir()):
    files = sorted(d.glob("*.log"))[:4]
    joined = b"\f".join(f.read_bytes() for f in files)
    if files and len(joined) <= MAX_SEED:
        put("nccl_log", "set_" + d.name, joined)
# A launch run folder's shapes: launch's end lines (logs/launch_end_line.h) and a stack file's header.
put("nccl_log", "launch_end_lines",
    b"rank 1 step 1\n2026-11-27 23:00:55.352 distdoctor launch: rank 1 (pid 993) was killed by signal 9 (SIGKILL)\n"
    b"\f2026-11-27 23:00:55.400 distdoctor launch: rank 0 (pid 992) was stopped by launch (SIGTERM)\n"
    b"\f2026-11-27 23:00:55.401 distdoctor launch: rank 2 (pid 994) exited with status 7\n"
    b"\f# distdoctor: stack hook pid 7\nThread 0x1 (most recent call first):\n  File \"x.py\", line 3 in <module>\n")


# --- Flight Recorder dumps (fr_pickle): real 4x H100 dumps (PyTorch 2.11), the synthetic ones of fixtures/logs/fr
# (C++-pickler style, Python pickle, JSON form), a node summary as published, and small hand-made pickles.
for d in ["h100x4_hangs/desync_op/fr", "h100x4_hangs/desync_pg/fr", "h100x4_hangs/stall_idle/fr",
          "h100x4_hangs/late_init/fr", "fr/desync_size", "fr/pg_desync", "fr/healthy_pypickle", "fr/desync_op_json"]:
    for p in sorted((logs / d).glob("*"))[:2]:
        if p.stat().st_size <= MAX_SEED:
            put("fr_pickle", d.replace("/", "_") + "_" + p.name, p.read_bytes())
put("fr_pickle", "memo_shared", b"\x80\x02](]q\x00(K\x01K\x02eh\x00e.")
# One dict memoized and named again and again (the 800 KB dump that expanded to 1.84 GB), small: a list
# names the dict 600 times and the entries name that list 600 times (4 million values once expanded).
import pickle  # noqa: E402
entry = {f"k{i}": i for i in range(10)}
row = [entry] * 600
put("fr_pickle", "memo_expansion", pickle.dumps({"version": "2.10", "pg_config": {}, "entries": [row] * 600},
                                                protocol=4))
# Within the limits: 40 entries sharing one frames list, as PyTorch's pickler writes shared stacks.
frames = [{"name": f"f{i}", "filename": "train.py", "line": i} for i in range(8)]
rec = {"record_id": 0, "pg_id": 0, "process_group": ("0", "default_pg"), "collective_seq_id": 1,
       "profiling_name": "nccl:all_reduce", "state": "completed", "frames": frames}
put("fr_pickle", "memo_shared_frames", pickle.dumps({"version": "2.10", "pg_config": {}, "entries": [rec] * 40},
                                                    protocol=4))
put("fr_pickle", "type_tag", b"\x80\x02ctorch.jit._pickle\nrestore_type_tag\n}(\x8c\x01aK\x01u\x8c\x04Dict\x86R.")
put("fr_pickle", "refused_global", b"\x80\x02cos\nsystem\n\x8c\x02id\x85R.")
put("fr_pickle", "summary", json.dumps({"fr_summary": 1, "errors": [], "ranks": [
    {"rank": 0, "source": "", "version": "2.10", "comm": "2.28.9", "warnings": [], "groups": [
        {"pg": "0", "desc": "default_pg", "members": [0, 1], "issued": 8, "completed": 6,
         "sigs": [["all_reduce", "in [[4]] out [[4]]", "Float"]], "runs": [[7, 2, 0]],
         "detail": [{"pg": "0", "seq": 8, "p2p": False, "sig": ["all_reduce", "in [[4]] out [[4]]", "Float"],
                     "state": "scheduled", "rid": 7, "t": 1, "frames": [{"name": "f", "file": "a.py", "line": 1}]}]}]},
    {"rank": 1, "source": "", "version": "2.10", "comm": "", "warnings": [], "groups": [
        {"pg": "0", "desc": "default_pg", "members": [0, 1], "issued": 6, "completed": 6,
         "sigs": [["broadcast", "in [[4]] out [[4]]", "Float"]], "runs": [[5, 2, 0]], "detail": []}]}]},
    separators=(",", ":")))

# --- peer records (peer_records): what launch nodes publish in the store, as launch writes them (to_json in
# src/launch/job_settings.cc and launch_facts.cc), and one of each with a field of the wrong type.
put("peer_records", "settings", json.dumps({
    "job_id": "j1", "run_id": "0123456789abcdef", "command": ["python3", "train.py"], "max_restarts": 1,
    "hang_timeout_s": 60.0, "grace_s": 5.0, "job_port": 0, "master_addr": "198.18.0.1", "bind_gpu": False,
    "preflight": True, "flight_recorder": True, "nnodes": 2}))
put("peer_records", "hello", json.dumps({
    "node_rank": 1, "host": "gpu-node-2", "addr": "198.18.0.2", "nproc": 4, "gpu_ids": ["0", "1", "2", "3"],
    "env": {"NCCL_DEBUG": "INFO"}, "pid": 4242, "nnodes": 2}))
put("peer_records", "record", json.dumps({
    "node_rank": 1, "host": "gpu-node-2", "env": {"NCCL_DEBUG": "INFO"}, "log_free_bytes": 1 << 30,
    "strays": ["pid 77: sleep 300"], "ranks": [{"rank": 2, "local_rank": 0, "exit_code": 1, "signal": 0,
                                                "log_path": "logs/j1/0/node1.rank2.log", "tail": ["boom"]}]}))
put("peer_records", "stop", json.dumps({"cause": "worker_failed", "node_rank": 1, "rank": 2, "detail": "",
                                        "wall_ms": 1764230000000, "diagnosis": []}))
put("peer_records", "beat", json.dumps({"seq": 12, "silent_s": 3.5, "idle": [3], "alive": 4, "done": False,
                                        "all_spoke": True}))
# check's records: a node's mesh probes (rules/cluster_view.h) and its cross-node collectives result
# (rules/cluster_collectives.h), as cluster/join_mesh.cc and cross_node_step.cc read them.
put("peer_records", "mesh", json.dumps([{"from": 1, "to": 0, "to_if": "eth0", "to_addr": "198.18.0.1", "ok": True,
                                         "error": "", "detail": "", "connect_ms": 0.21, "mbps_send": -1,
                                         "mbps_recv": -1}]))
put("peer_records", "xn_result", json.dumps({
    "reported": True, "alive": False, "first_rank": 4, "nproc": 4, "devices": [0, 1, 2, 3], "ok": True,
    "library": "nccl", "wall_s": 1.2, "ops": [{"coll": "all_reduce", "path": "all", "bytes": 1048576,
    "pair_a": -1, "pair_b": -1, "participates": True, "complete": True, "time_us": 812.5, "busbw_gbps": 2.4,
    "wrong": 0, "wrong_ranks": [], "timeout_s": 10.0, "runs": 3}],
    "findings": [{"id": "comm.ok", "severity": "ok", "title": "all_reduce passed", "evidence": []}],
    "nccl_network": "Socket", "nccl_bootstrap": "eth0", "nccl_nics": ["eth0"], "nccl_warnings": [],
    "nccl_transports": {"P2P": 12}}))
put("peer_records", "wrong_types", json.dumps({"ranks": "x", "nproc": "four", "strays": [1, 2], "cause": 7}))
