#!/usr/bin/env bash
# `distdoctor logs` on real logs captured on a 2x H200 machine (fixtures/logs/real, PyTorch 2.11, NCCL 2.28.9):
# the catalogue ids, per-rank facts, watchdog and torchrun summaries each case must give, and no warn/fail on
# the healthy runs. Usage: tests/logs_real_test.sh path/to/distdoctor
set -u
BIN=${1:?usage: $0 path/to/distdoctor}
R=$(cd "$(dirname "$0")/../fixtures/logs/real" && pwd)
command -v jq > /dev/null || { echo "SKIP: jq not installed"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/dd_logs_real.XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0
run() {  # expected rc, files...: runs `logs --json` (to $T/out) and `logs` (to $T/txt)
  local want=$1
  shift
  "$BIN" logs --json "$@" > "$T/out" 2> "$T/err"
  local rc=$?
  NO_COLOR=1 "$BIN" logs "$@" > "$T/txt" 2>&1
  CASE="$*"
  CASE=${CASE//$R\//}
  if [ "$rc" != "$want" ]; then
    echo "FAIL: $CASE: exit $rc, want $want"; head -5 "$T/err"; fails=$((fails + 1))
  fi
}
jt() {  # description, jq expression over the last --json output that must be true
  if [ "$(jq -r "$2" "$T/out" 2> "$T/jqerr")" = true ]; then
    echo "ok: $CASE: $1"
  else
    echo "FAIL: $CASE: $1  [$2]"; cat "$T/jqerr"; fails=$((fails + 1))
  fi
}
has() { jt "finding $1" "[.findings[].id] | index(\"$1\") != null"; }
hasnt() { jt "no finding $1" "[.findings[].id] | index(\"$1\") == null"; }
clean() { jt "no warn/fail findings" '[.findings[] | select(.severity == "warn" or .severity == "fail")] | length == 0'; }
txt() {  # description, fixed text that must (1) or must not (0) be in the text output
  if grep -qF -- "$2" "$T/txt"; then [ "$3" = 1 ]; else [ "$3" = 0 ]; fi &&
    echo "ok: $CASE: $1" || { echo "FAIL: $CASE: $1 ('$2')"; fails=$((fails + 1)); }
}
two_ranks() {  # transport: the one channel transport both ranks must use
  jt "two processes, ranks 0 and 1" '[.facts.processes[].rank] | sort == [0, 1]'
  jt "host vm on every process" '[.facts.processes[].host] | unique == ["vm"]'
  jt "NCCL 2.28.9 on every rank" '[.facts.processes[].nccl_version] | unique == ["2.28.9+cuda13.0"]'
  jt "Init COMPLETE on every rank" '[.facts.processes[].init_complete] | all(. == 1)'
  jt "network Socket on eth0" '[.facts.processes[] | .network == "Socket" and .net_devices == ["eth0:192.0.2.2"]] | all'
  jt "channels via $1 only" "[.facts.processes[].channel_transports | keys] | unique == [[\"$1\"]]"
  jt "no GPU Direct RDMA claimed over sockets" '[.facts.processes[].gdr] | all(. == 0)'
  jt "same collective counts on both ranks" '[.facts.processes[].coll_counts] | unique | length == 1'
}

# Healthy run: per-rank NCCL_DEBUG_FILE files, the console, and both together.
run 0 "$R/healthy.nccl.vm.2250.log" "$R/healthy.nccl.vm.2251.log" "$R/healthy.log"
clean
two_ranks P2P/CUMEM
has logs.init.complete
run 0 "$R/healthy.log"
clean
jt "no NCCL process in a console without NCCL output" '.facts.processes | length == 0'
# Console with stdout and NCCL interleaved ("[rank1]: iteration: 4vm:2317:2317 [0] NCCL INFO ...").
run 0 "$R/healthy_stdout.log"
clean
two_ranks P2P/CUMEM
hasnt logs.coll.desync

# Same job with P2P and SHM disabled, and one with the network as default: NET/Socket between the GPUs.
for f in p2p_shm_disabled net_default; do
  run 0 "$R/$f.log"
  clean
  two_ranks NET/Socket
done

run 2 "$R/duplicate_gpu.log"
has nccl.duplicate_gpu
has nccl.invalid_usage
has pytorch.child_failed
has logs.torchrun.failures
jt "duplicate GPU title names both ranks and busId 60" '[.findings[] | select(.id == "nccl.duplicate_gpu") | .title | test("1 and 0 .*busId 60")] | any'
jt "both processes on CUDA device 0" '[.facts.processes[].cuda_dev] == [0, 0]'
jt "ranks from torchrun's pids (2384: 0, 2385: 1)" '[.facts.processes[] | [.pid, .rank]] | sort == [[2384, 0], [2385, 1]]'
jt "torchrun root cause is rank 1, exit 1" '[.facts.child_failures[] | select(.root_cause) | [.rank, .exitcode]] == [[1, 1]]'
txt "torchrun summary names the root cause" "root cause: rank 1 (local_rank 1) exitcode 1" 1

run 2 "$R/no_socket_interface.log"
has nccl.bootstrap_no_interface
has logs.init.incomplete
jt "rank 0 (from torchrun's pid) stopped in init" '[.facts.processes[] | [.rank, .init_complete]] == [[0, 0]]'
jt "NCCL error trace kept" '.facts.processes[0].error_trace | length > 0'
txt "torchrun summary: rank 0 failed first, rank 1 was SIGTERMed" "root cause: rank 0 (local_rank 0) exitcode 1" 1

run 2 "$R/invalid_device_ordinal.log"
has cuda.invalid_device_ordinal
has pytorch.child_failed
hasnt logs.init.incomplete
jt "torchrun root cause is rank 1" '[.facts.child_failures[] | select(.root_cause) | .rank] == [1]'

run 2 "$R/watchdog_timeout.log"
has pytorch.watchdog_timeout
has logs.pytorch.watchdog_summary
hasnt logs.init.incomplete
two_ranks P2P/CUMEM
jt "rank 0 timed out on ALLREDUCE SeqNum 6 after 10 s" '[.facts.watchdog_timeouts[] | select(.seq == 6) | [.rank, .op, .timeout_ms, .last_completed]] == [[0, "ALLREDUCE", 10000, 5]]'
jt "summary blames rank 1 for never issuing it" '[.findings[] | select(.id == "logs.pytorch.watchdog_summary") | .evidence[] | test("never issued .* rank\\(s\\) 1 ")] | any'

run 2 "$R/child_failed.log"
has pytorch.child_failed
has logs.torchrun.failures
hasnt logs.init.incomplete
jt "bare NCCL version banner makes no process" '.facts.processes | length == 0'
jt "torchrun root cause is rank 1, exit 1; rank 0 SIGTERM" '[.facts.child_failures[] | [.rank, .exitcode, .root_cause]] | sort == [[0, -15, false], [1, 1, true]]'
txt "no 'no Init COMPLETE' note for a bare version banner" "but no \"Init COMPLETE\"" 0

echo "failures: $fails"
[ "$fails" = 0 ]
