#!/usr/bin/env bash
# `distdoctor logs` over sets of per-rank logs (fixtures/logs/sets, hand-built; fixtures/launch/h100x1 and
# fixtures/logs/real, recorded): the rank that stopped first leads, the others' timeouts, lost peers and
# SIGTERMs follow as its consequences (info, "(consequence of ID)"), init stuck on every rank, and healthy sets
# give no warn/fail. Usage: tests/logs_sets_test.sh path/to/distdoctor
set -u
BIN=${1:?usage: $0 path/to/distdoctor}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
S=$ROOT/fixtures/logs/sets
L=$ROOT/fixtures/launch/h100x1
. "$(dirname "$0")/cli_test_lib.sh"

# jq-free JSON checks: py DESCRIPTION PYTHON-EXPRESSION over j (the --json output) and f (its findings).
py() {
  if python3 - "$T/out" "$2" <<'PY'; then echo "ok: $1"; else echo "FAIL: $1 [$2]"; fails=$((fails + 1)); fi
import json, sys
j = json.load(open(sys.argv[1]))
f = j["findings"]
ids = [x["id"] for x in f]
def get(i): return next(x for x in f if x["id"] == i)
def consequence(i): return get(i)["severity"] == "info" and get(i)["evidence"][-1].startswith("consequence of ") and ids.index(i) > 0
ok = eval(sys.argv[2])
if not ok: print("  findings:", [(x["id"], x["severity"], x["title"][:100]) for x in f])
sys.exit(0 if ok else 1)
PY
}

check "traceback while the others wait" 2 "$BIN" logs --json "$S/traceback_while_waiting"
py "stopped_first leads, rank 1" 'ids[0] == "logs.rank.stopped_first" and f[0]["rank"] == 1'
py "names the exception and the wait" '"ValueError: bad shape" in f[0]["title"] and "ALLREDUCE SeqNum=42" in f[0]["title"]'
py "watchdog timeout is a consequence" 'consequence("pytorch.watchdog_timeout") and consequence("logs.pytorch.watchdog_summary")'
py "rank facts: rank 1 raised, rank 0 waited" 'j["facts"]["ranks"][1]["exception"].startswith("ValueError") and j["facts"]["ranks"][0]["last_time"] == "11-23 15:12:01.559"'

check "rank 1 SIGKILLed (empty log), rank 0 saw the peer go" 2 "$BIN" logs --json "$L/kill.rank0.log" "$L/kill.rank1.log"
py "stopped_first leads, rank 1, empty log" 'ids[0] == "logs.rank.stopped_first" and f[0]["rank"] == 1 and "is empty" in f[0]["title"]'
py "survivor lost a peer in ALLREDUCE SeqNum=42" '"lost a peer in ALLREDUCE SeqNum=42" in f[0]["title"]'
py "remote close is a consequence" 'consequence("nccl.remote_closed")'

check "torchrun: rank 1 exits 1, rank 0 SIGTERMed" 2 "$BIN" logs --json "$ROOT/fixtures/logs/real/child_failed.log"
py "stopped_first leads, rank 1 exit 1" 'ids[0] == "logs.rank.stopped_first" and f[0]["rank"] == 1 and "exited with code 1" in f[0]["title"]'
py "rank 0 stopped by the launcher" 'any("rank 0: stopped by the launcher" in e for e in f[0]["evidence"])'
py "torchrun summary is a consequence" 'consequence("logs.torchrun.failures") and consequence("pytorch.child_failed")'

check "bad NCCL_SOCKET_IFNAME on rank 1" 2 "$BIN" logs --json "$L/bad_ifname.rank0.log" "$L/bad_ifname.rank1.log"
py "the specific cause leads" 'ids[0] == "nccl.bootstrap_no_interface"'
py "rank 1 stopped first" '"logs.rank.stopped_first" in ids and get("logs.rank.stopped_first")["rank"] == 1'
py "generic invalid usage is a consequence" 'consequence("nccl.invalid_usage")'

check "stuck in init, rank 2 never started" 2 "$BIN" logs --json "$S/stuck_init"
py "the late rank leads: rank 2 never started init" 'ids[0] == "logs.init.late_rank" and f[0]["rank"] == 2 and "rank 2 never started NCCL init while ranks 0,1 waited" in f[0]["title"]'
py "the ranks that waited are not blamed" 'all(x["severity"] not in ("warn", "fail") or x.get("rank", -1) in (-1, 2) for x in f)'
py "per-process incomplete init is a consequence" 'consequence("logs.init.incomplete")'

check "MindSpore: rank 2 SetDevice fails, others in init" 2 "$BIN" logs --json "$S/mindspore_set_device"
py "rank 2 stopped first, others waited in init" 'get("logs.rank.stopped_first")["rank"] == 2 and "waited in NCCL init" in get("logs.rank.stopped_first")["title"]'
py "a fail leads" 'f[0]["severity"] == "fail"'

check "all_gather one rank never reached" 2 "$BIN" logs --json "$S/allgather_never_reached"
py "rank 2 stopped first, with no error" 'ids[0] == "logs.rank.stopped_first" and f[0]["rank"] == 2 and "with no error" in f[0]["title"]'
py "watchdog summary is a consequence" 'consequence("logs.pytorch.watchdog_summary")'

check "Paddle launcher waiting for peers" 1 "$BIN" logs --json "$S/paddle_waiting_peer"
py "init.stuck warns" 'ids[0] == "logs.init.stuck" and f[0]["severity"] == "warn"'

check "accelerate prepare: local_rank 0 aborts, torchrun SIGTERMs the rest" 2 "$BIN" logs --json "$S/accelerate_prepare_abort"
py "stopped_first names local_rank 0 and SIGABRT" '"logs.rank.stopped_first" in ids and "local_rank 0 (pid 517)" in get("logs.rank.stopped_first")["title"] and "SIGABRT" in get("logs.rank.stopped_first")["title"]'
py "a fail leads" 'f[0]["severity"] == "fail"'

check "healthy four ranks" 0 "$BIN" logs --json "$S/healthy_four"
py "no warn/fail" 'all(x["severity"] in ("ok", "info") for x in f)'
check "healthy real logs" 0 "$BIN" logs --json "$ROOT/fixtures/logs/healthy"
check "healthy real console" 0 "$BIN" logs --json "$ROOT/fixtures/logs/real/healthy_stdout.log"
check "healthy real per-rank files" 0 "$BIN" logs --json "$ROOT/fixtures/logs/real/healthy.nccl.vm.2250.log" \
  "$ROOT/fixtures/logs/real/healthy.nccl.vm.2251.log" "$ROOT/fixtures/logs/real/healthy.log"
cli_finish logs_sets_test
