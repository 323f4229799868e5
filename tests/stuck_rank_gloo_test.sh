#!/usr/bin/env bash
# A rank stopped with SIGSTOP (Gloo, no --timeout): `bench` in the middle of a long timed loop (16 MiB
# all_reduce, -n 5000: minutes if nothing stopped it) and `check --collectives` while its ranks join. Each run
# must end within 10 s of the stop and name the stopped rank as the cause (comm.worker.stopped, "rank N stopped
# (state T, SIGSTOP)"), the other ranks as the ones that waited for it, never the reverse.
set -u
BIN=$(readlink -f "${1:-build/distdoctor}")
command -v jq >/dev/null || { echo "SKIP: jq not installed"; exit 77; }
command -v pgrep >/dev/null || { echo "SKIP: pgrep not installed"; exit 77; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dd_stuck_rank.XXXXXX")
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
  rm -rf "$TMP"
}
trap cleanup EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
ok() { echo "ok    $*"; }
# DD_TIME_SCALE: set by the sanitizer runs, where every process is several times slower.
LIMIT=$((10 * ${DD_TIME_SCALE:-1}))
now_ms() { date +%s%3N; }

# The worker process of `rank` under the distdoctor process `parent` (waits up to 20 s for it).
worker_of() {
  local parent=$1 rank=$2 p
  for _ in $(seq 400); do
    p=$(pgrep -P "$parent" -f -- "--as-worker .* --worker-ranks $rank\$" | head -1)
    [ -n "$p" ] && { echo "$p"; return 0; }
    sleep 0.05
  done
  return 1
}

# stop_run NAME RANK DELAY_S CMD...: starts CMD, stops rank RANK's worker DELAY_S s after it appears, waits
# for CMD (at most 60 s) and checks it ended within LIMIT s of the stop and named that rank.
# A run that ended before the stop landed (a fast machine) is started again, up to 3 times.
stop_run() {
  local name=$1 rank=$2 delay=$3
  shift 3
  local run w stopped="" attempt
  for attempt in 1 2 3; do
    "$@" >"$TMP/$name.json" 2>"$TMP/$name.err" &
    run=$!
    PIDS+=("$run")
    w=$(worker_of "$run" "$rank") || { fail "$name: rank $rank's worker never started"; cat "$TMP/$name.err"; return; }
    PIDS+=("$w")
    sleep "$delay"
    kill -STOP "$w" 2>/dev/null && stopped=$(now_ms) && break
    wait "$run"
    echo "      $name: attempt $attempt ended before the stop, again"
  done
  [ -n "$stopped" ] || { fail "$name: every run ended before rank $rank could be stopped"; return; }
  for _ in $(seq 600); do kill -0 "$run" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$run" 2>/dev/null; then
    fail "$name: still running 60 s after the stop"
    kill -CONT "$w"
    kill "$run"
    return
  fi
  local took=$(($(now_ms) - stopped))
  wait "$run"
  local rc=$?
  [ $rc = 2 ] && ok "$name: exit 2 (fail)" || fail "$name: exit $rc, want 2"
  [ $took -le $((LIMIT * 1000)) ] && ok "$name: ended $took ms after the stop" ||
    fail "$name: ended $took ms after the stop (limit $LIMIT s)"
  local first
  first=$(jq -c '[.findings[] | select(.severity == "fail")][0] | {id, title, rank}' "$TMP/$name.json" 2>/dev/null)
  echo "      first failing finding: $first"
  jq -e --argjson r "$rank" '[.findings[] | select(.severity == "fail")][0] |
      .id == "comm.worker.stopped" and .rank == $r and
      (.title | test("^rank \($r) stopped \\(state T, SIGSTOP\\) — ranks? [0-9, -]+ waited for it "))' \
    "$TMP/$name.json" >/dev/null && ok "$name: names rank $rank as stopped, the others as waiting" ||
    fail "$name: the first failing finding does not name rank $rank as stopped"
  jq -e --argjson r "$rank" '[.findings[] | select(.severity == "fail")] | length == 1' "$TMP/$name.json" \
    >/dev/null && ok "$name: one failing finding (the waiting ranks are not blamed)" ||
    fail "$name: more than one failing finding: $(jq -c '[.findings[] | select(.severity == "fail") | .title]' "$TMP/$name.json")"
}

# 1. bench: rank 2 of 3 stopped 2 s into the run (inside the timed loop of the one 16 MiB all_reduce).
stop_run bench 2 2 "$BIN" bench --engine gloo --nproc 3 -c all_reduce -b 16M -e 16M -w 1 -n 5000 --json
jq -e '.findings[] | select(.id == "comm.worker.stopped") | .title | test("waited for it in all_reduce 16 MiB")' \
  "$TMP/bench.json" >/dev/null && ok "bench: the op they waited in is named" ||
  fail "bench: the op is not named: $(jq -c '[.findings[].title]' "$TMP/bench.json")"
jq -e '.results[0].status == "failed" and (.results[0].error | test("rank 2 stopped"))' "$TMP/bench.json" \
  >/dev/null && ok "bench: the row says rank 2 stopped" || fail "bench: row $(jq -c '.results[0] | {status, error}' "$TMP/bench.json")"

# 2. check --collectives: rank 1 of 2 stopped as soon as it starts (the others wait for it to join).
stop_run check 1 0 env CUDA_VISIBLE_DEVICES="" "$BIN" check --local --collectives --json

echo "$FAILS failure(s)"
[ $FAILS = 0 ]
