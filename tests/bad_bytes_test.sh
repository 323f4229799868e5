#!/usr/bin/env bash
# Bad bytes from outside: env values, a hostname and log lines that are not UTF-8 or hold terminal escape
# sequences. `--json` must still give a report (not exit 3) that parses, and the text forms must show the
# bytes as visible escapes (no raw ESC reaches the terminal).
# Usage: tests/bad_bytes_test.sh path/to/distdoctor
set -u
BIN=$(readlink -f "${1:?usage: $0 path/to/distdoctor}")
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
. "$(dirname "$0")/cli_test_lib.sh"

BAD=$'\xff\x1b[31meth0'
BAD_HOST=$'gpu\xfe\x1b]0;owned\x07-01'

# parses_json DESC: the last stdout is one JSON document (strict UTF-8 decoding).
parses_json() {
  if python3 -c 'import json,sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))' "$T/out"; then
    echo "ok: $1: stdout is JSON"
  else
    echo "FAIL: $1: stdout is not JSON"; head -c 600 "$T/out"; cat "$T/err"; fails=$((fails + 1))
  fi
}
# no_raw_esc DESC FILE: no ESC, BEL or CR byte in FILE.
no_raw_esc() {
  if LC_ALL=C grep -q $'[\x1b\x07\r]' "$2"; then
    echo "FAIL: $1: raw control bytes in $2"; LC_ALL=C grep -n $'[\x1b\x07\r]' "$2" | cat -v | head -5
    fails=$((fails + 1))
  else
    echo "ok: $1: no raw control bytes"
  fi
}
# not_exit3 DESC CMD...: stdout to $T/out; any exit but 3 (cannot run) and none above (a crash).
not_exit3() {
  local desc=$1
  shift
  "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  if [ "$rc" -le 2 ]; then echo "ok: $desc: exit $rc"; else
    echo "FAIL: $desc: exit $rc"; head -5 "$T/err"; fails=$((fails + 1))
  fi
}

# 1. check and facts with bad env values (one of them the hostname a launcher passes on).
not_exit3 "check --json, bad NCCL_SOCKET_IFNAME" env NCCL_SOCKET_IFNAME="$BAD" MASTER_ADDR="$BAD_HOST" \
  "$BIN" check --json
parses_json "check --json"
expect_out "the bad value is in the JSON (bad byte replaced)" $'\xef\xbf\xbd\\u001b[31meth0'
not_exit3 "facts --json, bad NCCL_SOCKET_IFNAME" env NCCL_SOCKET_IFNAME="$BAD" MASTER_ADDR="$BAD_HOST" \
  "$BIN" facts --json
parses_json "facts --json"
not_exit3 "check text, bad NCCL_SOCKET_IFNAME" env NCCL_SOCKET_IFNAME="$BAD" MASTER_ADDR="$BAD_HOST" "$BIN" check
no_raw_esc "check text" "$T/out"
expect_out "check text shows the value escaped" 'NCCL_SOCKET_IFNAME="\xff\x1b[31meth0"'
not_exit3 "facts text" env NCCL_SOCKET_IFNAME="$BAD" MASTER_ADDR="$BAD_HOST" "$BIN" facts
no_raw_esc "facts text" "$T/out"
expect_out "facts text shows the hostname escaped" 'MASTER_ADDR=gpu\xfe\x1b]0;owned\x07-01'

# 2. A cluster run publishes the facts as JSON through the store: one node on loopback.
PORT=$((20000 + RANDOM % 20000))
not_exit3 "cluster check --json, bad NCCL_SOCKET_IFNAME" env NCCL_SOCKET_IFNAME="$BAD" MASTER_ADDR="$BAD_HOST" \
  "$BIN" check --nnodes 1 --node-rank 0 --master 127.0.0.1:$PORT --token abc --timeout 20 --json
parses_json "cluster check --json"

# 3. A real hostname with bad bytes, where this user may set one in a new UTS namespace (`hostname` refuses
# such names, the kernel does not).
SETHOST='printf %s "$1" >/proc/sys/kernel/hostname || exit 9'
if unshare --uts true 2>/dev/null; then
  not_exit3 "facts --json, bad hostname" unshare --uts sh -c "$SETHOST"' && exec "$2" facts --json' _ \
    "$BAD_HOST" "$BIN"
  parses_json "facts --json, bad hostname"
  not_exit3 "facts text, bad hostname" unshare --uts sh -c "$SETHOST"' && exec "$2" facts' _ "$BAD_HOST" "$BIN"
  no_raw_esc "facts text, bad hostname" "$T/out"
  expect_out "facts text shows the hostname escaped" '\x1b]0;owned\x07-01 (fqdn'
else
  echo "skip: no UTS namespace (hostname part)"
fi

# 4. logs on a file with invalid UTF-8 and escape sequences in NCCL lines.
{
  printf 'gpu\xfe-1:20417:20417 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to \xff\x1b[31meth0\n'
  printf '[2026-11-21 10:14:03] gpu\xfe-1:20417:20417 [0] bootstrap.cc:114 NCCL WARN Bootstrap : no socket'
  printf ' interface found \x1b]0;owned\x07\r\xc3\x28\n'
  printf 'gpu\xfe-1:20417:20417 [0] NCCL INFO init.cc:2079 -> 3\n'
} >"$T/bad.log"
not_exit3 "logs --json on bad bytes" "$BIN" logs --json "$T/bad.log"
parses_json "logs --json"
expect_out "logs --json still finds the cause" "nccl.bootstrap_no_interface"
not_exit3 "logs text on bad bytes" "$BIN" logs "$T/bad.log"
no_raw_esc "logs text" "$T/out"
expect_out "logs text names the cause" "nccl.bootstrap_no_interface"

cli_finish bad_bytes_test
