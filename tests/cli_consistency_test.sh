#!/usr/bin/env bash
# One vocabulary across the commands (docs/cli.md, docs/json.md): the same flag names everywhere with the old
# ones as aliases, one JSON envelope on every --json, launch's own exit code when a worker fails (the worker's
# in worker_exit_code), "command not found", one verdict per launch, check --summary's counts, completion of
# flag values and finding ids (never files where none make sense), units in words, and the multi-node
# hand-off command off a terminal.
# Usage: tests/cli_consistency_test.sh path/to/distdoctor
set -u
BIN=$(realpath "${1:?usage: $0 path/to/distdoctor}")
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT="$HERE/.."
. "$HERE/launch/launch_test_lib.sh"
HOST=$(hostname)
not_in() {  # description, file, text that must not be in it
  if grep -qF -- "$3" "$2"; then echo "FAIL: $1: '$3' in $2"; cat "$2"; fails=$((fails + 1)); else echo "ok: $1"; fi
}
jq_ok() {  # description, jq filter that must give true on $T/out
  if [ "$(jq -r "$2" "$T/out" 2>/dev/null)" = true ]; then echo "ok: $1"; else
    echo "FAIL: $1: $2 on:"; head -c 600 "$T/out"; echo; fails=$((fails + 1)); fi
}

# 1. Flags: one name per meaning, the old names still accepted (a bad value is refused by the flag's own check,
#    never as an unknown flag).
for c in "check --nnodes 2 --deadline nan:--deadline" "check --nnodes 2 --timeout nan:--timeout" \
  "launch --join-timeout nan -- true:--join-timeout" "launch --timeout nan -- true:--timeout" \
  "bench --engine gloo --op-timeout nan:--op-timeout" "bench --engine gloo --timeout nan:--timeout" \
  "bench --engine gloo --nproc-per-node 0:--nproc-per-node" "bench --engine gloo --nproc 0:--nproc"; do
  read -ra args <<<"${c%%:*}"
  check "${c%%:*}: refused by its check" 3 "$BIN" "${args[@]}"
  expect "${c%%:*}: names ${c##*:}" "$T/err" "${c##*:}"
  not_in "${c%%:*}: a known flag" "$T/err" "unknown flag"
done
check "bench --nproc-per-node 2 runs" 0 "$BIN" bench --engine gloo --nproc-per-node 2 -b 1K -e 1K -c all_reduce -n 1 -w 0 --json
jq_ok "with 2 ranks" '.world == 2'
"$BIN" check --help >"$T/help.check"; "$BIN" launch --help >"$T/help.launch"; "$BIN" bench --help >"$T/help.bench"
expect "check --help: --deadline" "$T/help.check" "--deadline"
expect "launch --help: --join-timeout" "$T/help.launch" "--join-timeout"
expect "bench --help: --op-timeout" "$T/help.bench" "--op-timeout"
expect "bench --help: --nproc-per-node" "$T/help.bench" "--nproc-per-node"
not_in "the old --timeout is not shown" "$T/help.check" "--timeout "

# 2. One JSON envelope: the same members on every command, node = this host, exit_code = the real one.
envelope() {  # COMMAND RC: the last output is that command's --json, exiting RC
  jq_ok "$1 --json: the envelope" "(.schema == 1) and (.version | type == \"string\") and (.command == \"$1\")
    and (.verdict | type == \"string\") and (.exit_code == $2) and (.node == \"$HOST\")
    and (.findings | type == \"array\") and has(\"facts\")"
}
check "check --json --facts" 1 "$BIN" check --local --json --facts "$ROOT/fixtures/facts/docker_shm_64m.json"
jq_ok "check --facts: the envelope, the recorded node" '.command == "check" and .exit_code == 1 and
  .node == .facts.host.hostname and .node != ""'
"$BIN" check --local --json >"$T/out" 2>"$T/err"
envelope check $?
check "bench --json" 0 "$BIN" bench --engine gloo --nproc-per-node 2 -b 1K -e 1K -c all_reduce -n 1 -w 0 --json
envelope bench 0
jq_ok "bench --json: this node's facts" '.facts.host.hostname != null and (.results | length) > 0'
check "logs --json" 0 "$BIN" logs --json "$ROOT/fixtures/logs/real/healthy.nccl.vm.2250.log"
envelope logs 0
check "explain --json" 0 "$BIN" explain --json gpu.nvml_missing
envelope explain 0
check "explain --json, no reading" 1 "$BIN" explain --json "zzz qqq"
envelope explain 1
jq_ok "no reading is said as such (verdict no match, exit 1), not a pass" '.verdict == "no match" and (.message | test("no reading"))'

# 3. launch: a worker exiting 2 is the job failing (4), never "the preflight stopped it" (2); its code in the
#    JSON and the report; one verdict line; a mistyped command is "command not found".
check "a worker exits 2: launch exits 4" 4 L --nproc-per-node 2 --job-id two --json -- sh -c 'exit 2'
envelope launch 4
jq_ok "worker_exit_code 2" '.worker_exit_code == 2'
check "the text report" 4 L --nproc-per-node 1 --job-id two_text -- sh -c 'exit 2'
expect_out "the report gives the worker's code" "the failing worker's exit code: 2"
cat "$T/out" "$T/err" >"$T/both"
[ "$(grep -c 'verdict:' "$T/both")" = 1 ] && echo "ok: one verdict line" ||
  { echo "FAIL: $(grep -c 'verdict:' "$T/both") verdict lines"; cat "$T/both"; fails=$((fails + 1)); }
check "launch -- pyhton3-dd x.py" 4 L --nproc-per-node 1 --job-id typo --json -- pyhton3-dd x.py
expect_out "command not found" "command not found: pyhton3-dd"
not_in "not 'exited with status 127'" "$T/out" "exited with status 127"
jq_ok "exec's 127 is the worker's code" '.worker_exit_code == 127'

# 4. check --summary: the counts its help promises.
check "check --summary" 1 "$BIN" check --summary --facts "$ROOT/fixtures/facts/docker_shm_64m.json"
grep -qE '^distdoctor check: warn \([0-9]+ fail, [1-9][0-9]* warn, [1-9][0-9]* pass\): ' "$T/out" &&
  echo "ok: --summary counts fail, warn, pass" || { echo "FAIL: --summary: $(cat "$T/out")"; fails=$((fails + 1)); }

# 5. Completion: values of a flag, ids for explain, files only where a file is meant.
complete_words() {
  (cd "$T" && bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _distdoctor; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$ROOT/packaging/distdoctor.bash" "$@")
}
touch "$T/a_file_here"
completes() {  # description, expected words (sorted, space separated), words...
  local desc=$1 want=$2
  shift 2
  local got
  got=$(complete_words "$@" | sort | tr '\n' ' ' | sed 's/ $//')
  [ "$got" = "$want" ] && echo "ok: completion: $desc" || { echo "FAIL: completion: $desc: '$got', want '$want'"; fails=$((fails + 1)); }
}
completes "--engine values" "gloo nccl" "$BIN" check --engine ""
completes "--fail-on values" "fail warn" "$BIN" check --fail-on ""
completes "--tee values" "all none" "$BIN" launch --tee ""
completes "a comma list, item by item" "all_reduce,all_gather" "$BIN" bench -c all_reduce,all_g
completes "explain: finding ids" "gpu.nvml_missing" "$BIN" explain gpu.nvml_mis
completes "a number: nothing" "" "$BIN" check --nnodes ""
completes "check takes no file" "" "$BIN" check a_
completes "--facts takes a file" "a_file_here" "$BIN" check --facts a_

# 6. Units in words.
bash -c 'ulimit -S -l 64 && exec "$0" facts' "$BIN" >"$T/out" 2>"$T/err"
grep -qE 'memlock [0-9.]+ [KMG]iB/' "$T/out" && echo "ok: memlock in KiB/MiB" ||
  { echo "FAIL: memlock: $(grep memlock "$T/out")"; fails=$((fails + 1)); }
check "check --facts (a /dev/shm NCCL does not use)" 1 "$BIN" check --facts "$ROOT/fixtures/facts/docker_shm_64m.json"
not_in "never 'needs about 0 B'" "$T/out" "needs about 0 B"
check "logs: the CUDA driver" 0 "$BIN" logs "$ROOT/fixtures/logs/real/healthy.nccl.vm.2250.log"
expect_out "the CUDA driver as major.minor" "CUDA driver 13.0 (13000)"
check "logs on a hang with C++ DistBackendError lines" 2 "$BIN" logs --json "$ROOT/fixtures/logs/h100x4_hangs/stall_idle/torchrun.log"
jq_ok "no title cut at a quote" '[.findings[].title | test(": '"'"'( |$)")] | any | not'

# 7. The multi-node hand-off off a terminal (stderr to a file): the command fetches the token file from this
#    node, never from the other node's own /tmp.
PORT=$((20000 + RANDOM % 20000))
check "check --nnodes 2, alone" 2 env -u DISTDOCTOR_TOKEN "$BIN" check --nnodes 2 --node-rank 0 \
  --master "127.0.0.1:$PORT" --timeout 2
expect "the command fetches the token from this node" "$T/err" 'DISTDOCTOR_TOKEN="$(ssh 127.0.0.1 cat '
not_in "not from the other node's own files" "$T/err" 'DISTDOCTOR_TOKEN="$(cat '
expect "and says where the file is" "$T/err" "on 127.0.0.1"

cli_finish cli_consistency_test
