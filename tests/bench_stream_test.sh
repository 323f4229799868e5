#!/usr/bin/env bash
# `distdoctor bench` as a new user meets it (issue 40, part 4), on the CPU engine: each row is printed as soon
# as it is measured (seen while a later size still runs) and the sweep closes with nccl-tests' "# Avg bus
# bandwidth"; --json keeps stdout one document (the rows go to stderr); impossible ranges and a -e that cannot
# fit host memory are refused at once (exit 3) with the figures; one rank reports no bus bandwidth; a worker
# killed by SIGKILL is said to be, or not to be, the OOM killer's doing.
set -u
BIN=$(readlink -f "${1:-build/distdoctor}")
command -v jq >/dev/null || { echo "SKIP: jq not installed"; exit 77; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dd_bench_stream.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
ok() { echo "ok    $*"; }
G=(--engine gloo -c all_reduce -w 1 -n 2)

# 1. Rows while the sweep runs: rank 1 stalls in op 4 (16 KiB), so the run cannot end for a minute; the 4 KiB
# row must reach the pipe before that (before: nothing until the end).
mkfifo "$TMP/rows"
"$BIN" bench "${G[@]}" --nproc 2 -b 1K -e 64K -f 4 --fault "1:stall@4" --timeout 60 >"$TMP/rows" 2>/dev/null &
pid=$!
if timeout 20 grep -m1 -q '^ *4096 ' <"$TMP/rows"; then ok "the 4 KiB row came while 16 KiB still ran"; else
  fail "no row before the sweep ended"; fi
kill -TERM $pid 2>/dev/null
wait $pid 2>/dev/null

# 2. The closing line, text and JSON.
"$BIN" bench "${G[@]}" --nproc 2 -b 1K -e 16K -f 4 >"$TMP/text" 2>&1
grep -Eq '^# Avg bus bandwidth +: [0-9.e+-]+$' "$TMP/text" && ok "text ends with # Avg bus bandwidth" ||
  { fail "no # Avg bus bandwidth line"; tail -5 "$TMP/text"; }
"$BIN" bench "${G[@]}" --nproc 2 -b 1K -e 16K -f 4 --json >"$TMP/json" 2>"$TMP/json_err"
jq -e '.avg_busbw_gbps > 0 and (.results | length) == 6' "$TMP/json" >/dev/null &&
  ok "--json: stdout is one document with avg_busbw_gbps" || fail "--json stdout: $(head -c 300 "$TMP/json")"
grep -q '^ *4096 ' "$TMP/json_err" && ok "--json: rows on stderr" || fail "--json: no rows on stderr"

# 3. Impossible ranges: exit 3 at once, nothing run.
refused() {  # NAME WANT ARGS...
  local name=$1 want=$2
  shift 2
  local start=$SECONDS out rc
  out=$("$BIN" bench --engine gloo "$@" 2>&1)
  rc=$?
  if [ $rc = 3 ] && [[ "$out" == *"$want"* ]] && [ $((SECONDS - start)) -le 3 ]; then ok "$name refused: $out"
  else fail "$name: exit $rc after $((SECONDS - start)) s: $out"; fi
}
refused "-b 1M -e 1K" "-b 1M is larger than -e 1K" -b 1M -e 1K
refused "-b 0" "a size is at least 1 byte" -b 0 -e 1K
refused "-f 1.5" "--step-factor/-f 1.5" -b 1K -e 1M -f 1.5
# 4. The memory guard: 1 TiB per buffer cannot fit this host; refused with the figures before any worker.
refused "-e 1T" "does not fit in host memory" --nproc 4 -b 1T -e 1T
out=$("$BIN" bench --engine gloo --nproc 4 -b 1T -e 1T 2>&1)
[[ "$out" == *"each of 4 rank(s) needs 2 TiB"* && "$out" == *"available ("* ]] &&
  ok "-e 1T names the need and what the machine has" || fail "-e 1T message: $out"

# 5. One rank: busbw 0 everywhere, in-place algbw 0 (before: 288206 GB/s in place), a note says why.
"$BIN" bench "${G[@]}" --nproc 1 -b 1M -e 1M --json >"$TMP/one" 2>/dev/null
jq -e '[.results[] | select(.busbw_gbps != 0)] == [] and
       [.results[] | select(.in_place and .algbw_gbps != 0)] == [] and (.note | test("one rank"))' "$TMP/one" \
  >/dev/null && ok "--nproc 1: busbw 0, in-place algbw 0, a note" || fail "--nproc 1: $(jq -c '[.results[] | [.in_place, .algbw_gbps, .busbw_gbps]]' "$TMP/one")"

# 6. A worker killed by SIGKILL (the fault hook's own kill): the evidence says whether the OOM killer did it.
"$BIN" bench "${G[@]}" --nproc 2 -b 1K -e 16K -f 4 --fault "1:die@2" --json >"$TMP/kill" 2>/dev/null
ev=$(jq -r '.findings[] | select(.id == "comm.worker.died") | .evidence[]' "$TMP/kill")
[[ "$ev" == *"OOM killer"* ]] && ok "SIGKILL evidence: $(grep -m1 'OOM killer' <<<"$ev")" ||
  fail "SIGKILL evidence without the OOM killer: $ev"

echo "bench_stream_test: $FAILS failure(s)"
[ $FAILS = 0 ]
