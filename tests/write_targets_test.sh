#!/bin/bash
# Every file distdoctor writes lands only over a regular file or nothing: --metrics and --plot given a device
# node or a FIFO leave it as it is (no block, no replacement) and exit 3 naming the path; a plot that cannot
# be written after the run is exit 3 too; launch's Python start-up hook and the folders above it get modes
# that a umask of 002 does not widen; a log folder with no free inodes is named as such (exit 3), never
# "rank 0 failed, status 127". The device nodes and the small tmpfs need root: without it those cases say SKIP.
# Usage: tests/write_targets_test.sh path/to/distdoctor
set -u
BIN=$(realpath "${1:?usage: $0 path/to/distdoctor}")
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
. "$HERE/launch/launch_test_lib.sh"
MNT="$T/small"
trap 'umount "$MNT" 2>/dev/null; rm -rf "$T"' EXIT
FACTS="$ROOT/fixtures/facts/ifname_is_ip.json"
is_root() { [ "$(id -u)" = 0 ]; }
kind_is() {  # description, test(1) flag (-c, -p, -L), path: it is still that kind of file
  if [ "$2" "$3" ] && { [ "$2" = -L ] || [ ! -L "$3" ]; }; then echo "ok: $1"; else
    echo "FAIL: $1: $(ls -l "$3")"; fails=$((fails + 1)); fi
}
mode_is() {  # description, octal mode, path
  local m
  m=$(stat -c %a "$3")
  if [ "$m" = "$2" ]; then echo "ok: $1 ($m)"; else echo "FAIL: $1: mode $m, want $2"; fails=$((fails + 1)); fi
}
no_group_write() {  # description, path
  if [ $((0$(stat -c %a "$2") & 022)) = 0 ]; then echo "ok: $1"; else
    echo "FAIL: $1: $2 has mode $(stat -c %a "$2")"; fails=$((fails + 1)); fi
}

# --metrics and --plot on a FIFO: refused at once (nothing opens it), and it stays a FIFO.
mkfifo "$T/fifo"
check "check --metrics FIFO: exit 3 without blocking" 3 timeout 20 "$BIN" check --facts "$FACTS" --metrics "$T/fifo"
expect "the error names the FIFO" "$T/err" "cannot write $T/fifo: it is a FIFO"
kind_is "the FIFO is still a FIFO" -p "$T/fifo"
check "bench --plot FIFO: exit 3 before the run, without blocking" 3 \
  timeout 20 "$BIN" bench --engine gloo -b 8 -e 8 -n 1 -w 0 --plot "$T/fifo"
expect "the error names --plot and the FIFO" "$T/err" "--plot: cannot write $T/fifo: it is a FIFO"
kind_is "the FIFO is still a FIFO after bench" -p "$T/fifo"

# A link to a regular file (node_exporter's textfile folder often links elsewhere): its target is written.
mkdir "$T/kept" && echo "old" >"$T/kept/m.prom" && ln -s "$T/kept/m.prom" "$T/link.prom"
"$BIN" check --facts "$FACTS" --metrics "$T/link.prom" >/dev/null 2>&1
expect "the link's target holds the metrics" "$T/kept/m.prom" "distdoctor_check_verdict 2"
kind_is "the link stays a link" -L "$T/link.prom"

# Device nodes (as root, as a Slurm prolog runs): /dev/null's and /dev/full's numbers, made in $T.
if is_root; then
  mknod "$T/null" c 1 3 && mknod "$T/full" c 1 7
  check "check --metrics on a character device: exit 3" 3 "$BIN" check --facts "$FACTS" --metrics "$T/full"
  expect "the error names the device" "$T/err" "cannot write $T/full: it is a character device"
  kind_is "the device is still a character device" -c "$T/full"
  check "bench --plot on a character device: exit 3 before the run" 3 \
    "$BIN" bench --engine gloo -b 8 -e 8 -n 1 -w 0 --plot "$T/null"
  expect "the error names --plot and the device" "$T/err" "--plot: cannot write $T/null: it is a character device"
  kind_is "the device is still a character device after bench" -c "$T/null"
  check "bench --metrics on a character device: exit 3 before the run" 3 \
    "$BIN" bench --engine gloo -b 8 -e 8 -n 1 -w 0 --metrics "$T/null"
  kind_is "and it is still a device" -c "$T/null"
else
  echo "SKIP: device nodes need root (mknod)"
fi

# Launch's start-up hook under umask 002: the hook folder is the owner's alone, and no folder above it that
# launch made is group-writable (a member of the group could otherwise swap in code the job runs).
# The default --log-dir (distdoctor-logs, relative) is made by launch too.
mkdir "$T/cwd"
check "launch under umask 002: exit 0" 0 bash -c 'cd "$1" && shift && umask 002 && exec "$@"' _ "$T/cwd" \
  timeout 60 "$BIN" launch --job-id hooks --nproc-per-node 1 -- sh "$W"
L002="$T/cwd/distdoctor-logs"
mode_is "the hook folder is 0700" 700 "$L002/hooks/0/.pyhooks"
mode_is "the hook file is 0600" 600 "$L002/hooks/0/.pyhooks/sitecustomize.py"
for d in "$L002" "$L002/hooks" "$L002/hooks/0" "$L002/hooks/0/stacks"; do
  no_group_write "${d#"$T"/} is not group-writable" "$d"
done

# A log folder with no free inodes, whichever file takes the last one: a clear error (exit 3) naming the
# cause, never a worker that "failed with status 127". Inodes 1-2: the folder itself; 3-5: the attempt's
# folder and the two log files (launch.logs.cannot_write); from 6 the job runs, without the stack hook.
if is_root && mkdir -p "$MNT"; then
  for n in 1 2 3 4 5 6; do
    if ! mount -t tmpfs -o size=1m,nr_inodes=$n tmpfs "$MNT" 2>"$T/mount.err"; then
      echo "SKIP: cannot mount a tmpfs: $(cat "$T/mount.err")"
      break
    fi
    want=3
    [ "$n" -ge 6 ] && want=0
    check "$n inodes: exit $want" "$want" timeout 60 "$BIN" launch --log-dir "$MNT" --job-id full --nproc-per-node 2 -- sh "$W"
    cat "$T/out" "$T/err" >"$T/both"
    check "$n inodes: no 'status 127'" 1 grep -q "status 127" "$T/both"
    expect "$n inodes: the cause is named" "$T/both" "no free inodes"
    [ "$n" -ge 3 ] && [ "$n" -le 5 ] && expect "$n inodes: the log folder finding" "$T/both" "could not create its workers' log files"
    umount "$MNT"
  done
else
  echo "SKIP: the inode-full log folder needs root (mount -t tmpfs)"
fi

# A plot that cannot be written after the run (a full filesystem): exit 3 naming the path, not exit 0.
if is_root && mount -t tmpfs -o size=4k tmpfs "$MNT" 2>/dev/null; then
  head -c 4096 /dev/zero >"$MNT/filler" 2>/dev/null
  check "bench --plot on a full filesystem: exit 3" 3 \
    timeout 60 "$BIN" bench --engine gloo --nproc 2 -b 1K -e 1K --plot "$MNT/p.svg"
  expect "the error names the plot" "$T/err" "--plot: cannot write $MNT/p.svg: No space left on device"
  umount "$MNT"
else
  echo "SKIP: a full filesystem for --plot needs root (mount -t tmpfs)"
fi
cli_finish write_targets_test
