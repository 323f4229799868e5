#!/usr/bin/env bash
# Runs one test of a sanitizer build (make test-asan / make test-tsan; ctest calls it for every test):
# sets the runtime options so that any report stops the process with exit 66, collects the reports of the
# command and of every process it starts (distdoctor children and workers, whose output a test may swallow),
# prints them after the command and fails it when there is one. Also usable by hand:
#   scripts/sanitizers/run.sh address,undefined build-asan/distdoctor check
# Usage: scripts/sanitizers/run.sh SANITIZERS CMD ARGS...   (SANITIZERS: address,undefined or thread)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sanitizers=$1
shift
reports=$(mktemp -d "${TMPDIR:-/tmp}/dd-sanitizer.XXXXXX")
trap 'rm -rf "$reports"' EXIT
# halt_on_error + exitcode: the first report ends the process with 66 (not a distdoctor exit code);
# log_path: every process writes its report to $reports/report.PID, whatever it does with stderr.
common="halt_on_error=1:exitcode=66:log_path=$reports/report"
case $sanitizers in
  *thread*)
    export TSAN_OPTIONS="$common:second_deadlock_stack=1:suppressions=$here/tsan.supp${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
    # Test deadlines scale with this (TSan runs everything 5-15x slower); distdoctor itself does not read it.
    export DD_TIME_SCALE=${DD_TIME_SCALE:-4}
    ;;
  *)
    export ASAN_OPTIONS="$common:detect_leaks=1:check_initialization_order=1:strict_init_order=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
    export LSAN_OPTIONS="exitcode=66:suppressions=$here/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
    export UBSAN_OPTIONS="$common:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
    export DD_TIME_SCALE=${DD_TIME_SCALE:-2}  # test deadlines only
    ;;
esac
"$@"
rc=$?
shopt -s nullglob
found=("$reports"/report*)
[ ${#found[@]} -eq 0 ] && exit "$rc"
for f in "${found[@]}"; do
  echo "==== sanitizer report ${f##*/} (command: $*) ===="
  cat "$f"
done
echo "FAIL: ${#found[@]} sanitizer report(s) (command exit $rc)"
exit 66
