# Shared by the CLI shell tests: a temporary directory $T (removed on exit), a failure count, and checks of
# one command's exit code and output. Source it after setting BIN; end the test with cli_finish NAME.
T=$(mktemp -d "${TMPDIR:-/tmp}/dd_cli_test.XXXXXX")
export TMPDIR="$T"  # what the tool writes there goes with it
trap 'rm -rf "$T"' EXIT
fails=0
check() {  # description, expected rc, command...: stdout to $T/out, stderr to $T/err
  local desc=$1 want=$2
  shift 2
  "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL: $desc: exit $rc, want $want"; head -20 "$T/out" "$T/err"; fails=$((fails + 1))
  else
    echo "ok: $desc"
  fi
}
expect() {  # description, file, text that must be in it (fixed string)
  if grep -qF -- "$3" "$2"; then echo "ok: $1"; else echo "FAIL: $1: no '$3' in $2"; cat "$2"; fails=$((fails + 1)); fi
}
expect_out() { expect "$1" "$T/out" "$2"; }  # description, text that must be in the last output
ends_within() {  # SECONDS, description, text, command...: ends by itself in time, its stdout+stderr hold text
  local secs=$1 desc=$2 text=$3
  shift 3
  timeout "$secs" "$@" >"$T/out" 2>&1
  local rc=$?
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    echo "FAIL: $desc: still running after $secs s (killed)"; fails=$((fails + 1)); return
  fi
  expect "$desc (exit $rc)" "$T/out" "$text"
}
cli_finish() {  # NAME: fail the test when a check failed
  [ "$fails" = 0 ] || { echo "FAIL: $fails check(s) failed"; exit 1; }
  echo "$1: all passed"
}
