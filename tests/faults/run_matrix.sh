#!/bin/bash
# The fault matrix: runs every cell of tests/faults/cells.txt (fault x phase) in parallel, each under a hard
# outer timeout, and prints the table as markdown on stdout (progress on stderr). Exit 0 when every cell
# passed or failed as expected (xfail), 1 when a cell failed, hung or left a temp dir behind.
# Usage: tests/faults/run_matrix.sh build/distdoctor [PHASE|PHASE.FAULT ...] > bench/results/faults.md
# Env: FM_JOBS (cells at once, default 4), FM_KEEP (a dir: keep every cell's log there).
# Needs root (network namespaces); exits 77 otherwise.
set -u
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (network namespaces)" >&2; exit 77; }
BIN=$(realpath "${1:?usage: run_matrix.sh path/to/distdoctor [filter...]}")
shift
HERE=$(cd "$(dirname "$0")" && pwd)
RUN=$(mktemp -d "${TMPDIR:-/tmp}/ddfaults.XXXXXX")
trap 'rm -rf "$RUN"' EXIT
LIMIT=100

script_of() {
  case $1 in before | join) echo cell_rendezvous.sh ;; *) echo "cell_$1.sh" ;; esac
}
FILTERS="$*"
wanted() { [ -z "$FILTERS" ] || [[ " $FILTERS " == *" $1 "* || " $FILTERS " == *" $1.$2 "* ]]; }

# run_cell PHASE FAULT: one cell under the hard timeout; then the post-checks the cell cannot do itself.
run_cell() {
  local phase=$1 fault=$2 dir="$RUN/$1.$2" rc start
  mkdir -p "$dir/tmp"
  start=$SECONDS
  TMPDIR="$dir/tmp" FM_RESULT="$dir/result" FM_CELL_DIR="$dir" timeout -k 5 $LIMIT \
    bash "$HERE/$(script_of "$phase")" "$BIN" "$phase" "$fault" >"$dir/log" 2>&1
  rc=$?
  if [ $rc = 124 ] || [ $rc = 137 ]; then
    printf 'hang\t>%s\tHANG: no result within the hard timeout of %s s\n' $LIMIT $LIMIT >"$dir/result"
    bash "$HERE/reap_cell.sh" "$dir" >>"$dir/log" 2>&1
  elif [ $rc = 77 ]; then
    printf 'skip\t-\t%s\n' "$(tail -1 "$dir/log")" >"$dir/result"
  elif [ ! -s "$dir/result" ]; then
    printf 'fail\t-\tthe cell script exited %s without a result\n' $rc >"$dir/result"
  fi
  # A node whose every process was SIGKILLed (kill, master_kill) cannot clean up after itself: its temp
  # dir is not counted. Every other cell must leave the cell's TMPDIR empty.
  local left=""
  [ "$fault" != kill ] && [ "$fault" != master_kill ] &&
    left=$(cd "$dir/tmp" && find . -mindepth 1 -maxdepth 2 | head -5 | tr '\n' ' ')
  if [ -n "$left" ]; then
    sed -i "1s/^pass\t/fail\t/; 1s/\$/; temp left in TMPDIR: ${left//\//\\/}/" "$dir/result"
  fi
  echo "cell $phase.$fault: $(cut -f1,2 "$dir/result" | head -1 | tr '\t' ' ') ($((SECONDS - start)) s)" >&2
}
export -f run_cell script_of
export BIN HERE RUN LIMIT

T0=$SECONDS
grep -Ev '^\s*(#|$)' "$HERE/cells.txt" | while read -r phase fault status note; do
  [ "$status" = na ] && continue
  wanted "$phase" "$fault" && echo "$phase $fault"
done | xargs -P "${FM_JOBS:-4}" -L1 bash -c 'run_cell "$0" "$1"'
WALL=$((SECONDS - T0))
[ -n "${FM_KEEP:-}" ] && mkdir -p "$FM_KEEP" && cp -r "$RUN"/. "$FM_KEEP"/
python3 "$HERE/render_table.py" "$HERE/cells.txt" "$RUN" "$WALL" "$FILTERS"
