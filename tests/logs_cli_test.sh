#!/usr/bin/env bash
# `distdoctor logs` and `explain` end to end: exit codes, --json evidence, stdin, gzip, bad inputs.
# Usage: tests/logs_cli_test.sh path/to/distdoctor
set -u
BIN=${1:?usage: $0 path/to/distdoctor}
FIX=$(cd "$(dirname "$0")/../fixtures/logs" && pwd)
. "$(dirname "$0")/cli_test_lib.sh"

check "healthy logs pass" 0 "$BIN" logs "$FIX/healthy"
expect_out "summary lists ranks" "Init COMPLETE 1/1"
expect_out "summary counts ops" "AllReduce:"
check "duplicate GPU fails" 2 "$BIN" logs --json "$FIX/catalogue/nccl.duplicate_gpu.log"
python3 - "$T/out" <<'PY' || fails=$((fails + 1))
import json, sys
j = json.load(open(sys.argv[1]))
f = [x for x in j["findings"] if x["id"] == "nccl.duplicate_gpu"]
assert f, "no nccl.duplicate_gpu finding"
assert "nccl.duplicate_gpu.log:5" in f[0]["evidence"][0], f[0]["evidence"]
assert f[0]["rank"] == 1, f[0]
assert j["verdict"] == "fail"
assert j["facts"]["processes"][0]["nccl_version"] == "2.28.9+cuda12.9"
print("ok: json evidence has file:line and rank")
PY
check "stdin" 2 sh -c "cat '$FIX/catalogue/nccl.bootstrap_no_interface.log' | '$BIN' logs -"
expect_out "stdin finding" "nccl.bootstrap_no_interface"
gzip -c "$FIX/healthy/nccl.gpu-node-1.12345.log" > "$T/r0.log.gz"
check "gzip input" 0 "$BIN" logs "$T/r0.log.gz"
expect_out "gzip read" "49 lines"
head -c $(( $(stat -c %s "$T/r0.log.gz") / 2 )) "$T/r0.log.gz" > "$T/cut.gz"
check "truncated gzip: read what is there, report it" 2 "$BIN" logs "$T/cut.gz"
expect_out "truncated gzip reported" "truncated gzip"
head -c 1000000 /dev/urandom > "$T/garbage.bin"
# Nothing in it is a log: said so, exit 3 (it was a pass before: issue 40).
check "binary garbage: nothing to diagnose" 3 "$BIN" logs "$T/garbage.bin"
expect "binary garbage: said so" "$T/err" "nothing to diagnose"
{ echo "[rank0]: start"; head -c 10485760 /dev/zero | tr '\0' 'x'; echo; echo "end"; } > "$T/long.log"
check "10 MB line" 0 "$BIN" logs --json "$T/long.log"
expect_out "long line counted" '"truncated_lines": 1'
: > "$T/empty.log"
check "empty file: nothing to diagnose" 3 "$BIN" logs "$T/empty.log"
expect "empty file: said so" "$T/err" "nothing to diagnose: $T/empty.log holds no NCCL"
check "nothing readable" 3 "$BIN" logs "$T/does-not-exist"
check "many files at once" 2 "$BIN" logs "$FIX/healthy" "$FIX/catalogue"
check "explain text" 0 "$BIN" explain "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 18000"
expect_out "explain fills captures" "Ranks 1 and 0"
check "explain catalogue id" 0 "$BIN" explain mpi.ucx_endpoint
check "explain logs id" 0 "$BIN" explain logs.coll.desync
check "explain --list" 0 "$BIN" explain --list
expect_out "list has catalogue ids" "nccl.shm_alloc"
check "explain unknown" 1 "$BIN" explain "nothing like an error"
cli_finish logs_cli_test
