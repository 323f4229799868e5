#!/usr/bin/env bash
# --metrics on check and bench: the files are valid Prometheus text (scripts/check_prom_text.py: the strict
# rules node_exporter applies, then prometheus_client's parser), hold the figures docs/metrics.md lists, replace
# an older file whole, and a file that cannot be written is exit 3 with the report still printed.
# Usage: tests/metrics_test.sh path/to/distdoctor
set -u
BIN=$(realpath "${1:?usage: $0 path/to/distdoctor}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/tests/cli_test_lib.sh"
unset RANK WORLD_SIZE LOCAL_RANK MASTER_ADDR MASTER_PORT SLURM_PROCID OMPI_COMM_WORLD_RANK PMI_RANK PMIX_RANK
export NO_COLOR=1
# The interpreter that has Debian's python3-prometheus-client (a pyenv python3 on PATH may not).
PY=""
for p in python3 /usr/bin/python3; do
  "$p" -c "import prometheus_client" 2>/dev/null && { PY=$p; break; }
done
[ -n "$PY" ] || { echo "FAIL: no python3 with prometheus_client (scripts/install-deps.sh installs it)"; exit 1; }
valid() {  # description, file, required metrics...
  local desc=$1 file=$2
  shift 2
  if "$PY" "$ROOT/scripts/check_prom_text.py" "$file" "$@" 2>"$T/prom.err"; then echo "ok: $desc"
  else echo "FAIL: $desc"; cat "$T/prom.err"; head -20 "$file"; fails=$((fails + 1)); fi
}

echo "old content" >"$T/check.prom"
"$BIN" check --local --collectives --engine gloo --nproc-per-node 2 --metrics "$T/check.prom" >"$T/check.out" 2>&1
rc=$?
check "check --metrics exits with its verdict (0-2)" 0 test "$rc" -le 2
valid "check's metrics parse and hold the figures" "$T/check.prom" distdoctor_check_verdict \
  distdoctor_check_findings distdoctor_check_last_run_timestamp_seconds distdoctor_check_collectives_ok \
  distdoctor_check_collective_busbw_bytes_per_second distdoctor_check_collective_wrong_elements
expect "the verdict matches the exit code" "$T/check.prom" "distdoctor_check_verdict $rc"
check "the old file was replaced whole" 1 grep -q "old content" "$T/check.prom"
check "no temporary file is left" 0 test -z "$(ls "$T" | grep '\.tmp\.')"

"$BIN" check --facts "$ROOT/fixtures/facts/ifname_is_ip.json" --metrics "$T/fail.prom" >/dev/null 2>&1
valid "a failing check's metrics parse" "$T/fail.prom" distdoctor_check_finding
expect "a failing finding is a series with its id" "$T/fail.prom" \
  'distdoctor_check_finding{id="net.socket_ifname.is_ip",severity="fail",node="gpu-node-1"} 1'
expect "the verdict is fail" "$T/fail.prom" "distdoctor_check_verdict 2"

"$BIN" bench --engine gloo --nproc 2 -b 1K -e 8K -c all_reduce,broadcast --metrics "$T/bench.prom" >/dev/null 2>&1
check "bench --metrics ran" 0 test -s "$T/bench.prom"
valid "bench's metrics parse and hold the figures" "$T/bench.prom" distdoctor_bench_ok \
  distdoctor_bench_collective_busbw_bytes_per_second distdoctor_bench_collective_time_seconds
check "every size and collective is there (4 sizes x 2 collectives x in/out of place)" 0 \
  test "$(grep -c '^distdoctor_bench_collective_busbw_bytes_per_second' "$T/bench.prom")" = 16

# Recorded on 2x H100 (tools/device/scheduler_gpu.sh): NCCL figures and the link share parse the same way.
valid "recorded check --collectives metrics (2x H100, NCCL)" "$ROOT/fixtures/metrics/h100x2_check_collectives.prom" \
  distdoctor_check_collective_busbw_bytes_per_second distdoctor_check_collectives_ok
valid "recorded bench metrics (2x H100, NCCL)" "$ROOT/fixtures/metrics/h100x2_bench.prom" \
  distdoctor_bench_collective_link_ratio distdoctor_bench_link_bytes_per_second
check "check: an unwritable metrics file is exit 3" 3 "$BIN" check --local --summary --metrics "$T/no/such/dir/m.prom"
expect_out "the summary is printed all the same" "distdoctor check:"
expect "the error names the file" "$T/err" "--metrics:"
check "bench: an unwritable metrics directory is refused before the run" 3 \
  "$BIN" bench --engine gloo --nproc 2 -b 1K -e 1K --metrics "$T/no/such/dir/m.prom"
cli_finish metrics_test
