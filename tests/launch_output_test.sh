#!/bin/bash
# What `distdoctor launch` shows on the terminal: by default every rank's lines, each prefixed "[rankN]: ",
# whole lines only (never two ranks in one line; a line over 64 KiB in prefixed pieces; a last line without
# newline still shown), --tee 0 / --tee none narrowing it, the rank log files unprefixed and complete; the live
# status line (forced with DISTDOCTOR_STATUS_LINE=1, and on a real terminal through script(1)) drawn in place
# and erased before every worker line and the report, and absent in a file and with --json.
set -u
BIN=$(realpath "${1:-build/distdoctor}")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/launch/launch_test_lib.sh"
OW="$HERE/launch/output_worker.sh"
unset DISTDOCTOR_STATUS_LINE

# shown FILE [RANKS]: the terminal's worker lines are whole and prefixed by their own rank, the ranks in RANKS
# (e.g. "0 1 2") show every line the worker wrote, in order, and no other rank shows anything.
shown() {
  python3 - "$1" "$T/logs" "${2:-}" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
want = [int(r) for r in sys.argv[3].split()]
got = {}
for line in text.split("\n"):
    m = re.match(r"\[rank(\d+)\]: (.*)$", line)
    if not m:
        assert "[rank" not in line, "a rank's line not at a line's start: %r" % line[:120]
        continue
    got.setdefault(int(m.group(1)), []).append(m.group(2))
assert sorted(got) == want, "ranks shown %s, want %s" % (sorted(got), want)
for r in want:
    lines = got[r]
    for l in lines:  # nothing of another rank inside
        assert not re.search(r"\br(?!%d )\d+ (line|slow|long|last)" % r, l), "rank %d's line mixed: %r" % (r, l[:120])
    body = [l for l in lines if not re.fullmatch(r"x+", l) and not l.startswith("r%d long" % r)]
    n = sum(1 for l in body if l.startswith("r%d line" % r))
    assert [l for l in body if " line " in l] == ["r%d line %d end" % (r, i) for i in range(n)], "rank %d out of order" % r
    assert n == 200, "rank %d: %d lines shown" % (r, n)
    assert body[-1] == "r%d last words" % r, "rank %d's last line: %r" % (r, body[-1])
    if r == 1:
        long = [l for l in lines if l.startswith("r1 long") or re.fullmatch(r"x+", l)]
        assert len(long) == 2 and len(long[0]) == 65536, [len(l) for l in long]
        assert "".join(long) == "r1 long " + "x" * 100000, "the long line's pieces do not add up"
print("ok: terminal shows ranks %s, whole prefixed lines" % want)
PY
  [ $? = 0 ] || fails=$((fails + 1))
}
# logs_plain JOB: each rank's log file holds exactly what the worker wrote (no prefix).
logs_plain() {
  local r ok=1
  for r in 0 1 2; do
    RANK=$r sh "$OW" >"$T/want$r"
    cmp -s <(head -c "$(wc -c <"$T/want$r")" "$T/logs/$1/0/node0.rank$r.log") "$T/want$r" || ok=0
    grep -q '^\[rank' "$T/logs/$1/0/node0.rank$r.log" && ok=0
  done
  [ $ok = 1 ] && echo "ok: $1: the rank logs hold every byte, unprefixed" ||
    { echo "FAIL: $1: a rank log differs from what the worker wrote"; fails=$((fails + 1)); }
}

check "default: 3 ranks" 0 L --nproc-per-node 3 --job-id all -- sh "$OW"
shown "$T/out" "0 1 2"
logs_plain all
expect "the start says every rank is shown, and how" "$T/err" \
  "showing every rank's output, each line prefixed [rankN]: (logs in $T/logs/all/0/; --tee 0 for rank 0 only"
grep -q $'\r\|\e' "$T/out" "$T/err" && { echo "FAIL: a status line into a file"; fails=$((fails + 1)); } ||
  echo "ok: no status line when stderr is a file"

check "--tee 0: rank 0 only" 0 L --nproc-per-node 3 --job-id t0 --tee 0 -- sh "$OW"
shown "$T/out" "0"
logs_plain t0
check "--tee 2: rank 2 only" 0 L --nproc-per-node 3 --job-id t2 --tee 2 -- sh "$OW"
shown "$T/out" "2"
check "--tee none: no rank" 0 L --nproc-per-node 3 --job-id tn --tee none -- sh "$OW"
shown "$T/out" ""
logs_plain tn

# The status line, forced into a file: drawn, and every drawing erased before a worker line or the report;
# rendered as a terminal would, no line holds it or a part of it.
screen() {  # FILE: what a terminal shows after these bytes (\r: column 0, \e[K: erase to the end)
  python3 - "$1" <<'PY'
import sys
rows, row, col = [], [], 0
data = open(sys.argv[1], "rb").read().decode("utf-8", "replace").replace("\r\n", "\n")
i = 0
while i < len(data):
    c = data[i]
    if data.startswith("\x1b[K", i):
        del row[col:]; i += 3; continue
    if c == "\r": col = 0
    elif c == "\n": rows.append("".join(row)); row, col = [], 0
    else:
        if col < len(row): row[col] = c
        else: row.append(c)
        col += 1
    i += 1
rows.append("".join(row))
print("\n".join(rows))
PY
}
merged() {  # description, command...: stdout and stderr into one file ($T/out), as on a terminal; exit 0 wanted
  local desc=$1
  shift
  "$@" >"$T/out" 2>&1 && echo "ok: $desc" || { echo "FAIL: $desc: exit $?"; cat -v "$T/out" | tail | cut -c1-200; fails=$((fails + 1)); }
}
merged "DISTDOCTOR_STATUS_LINE=1: the status line" L DISTDOCTOR_STATUS_LINE=1 OUTPUT_SLOW=8 OUTPUT_LINES=3 OUTPUT_LONG=0 \
  --nproc-per-node 3 --job-id st -- sh "$OW"
grep -qE $'\rdistdoctor: [0-3]/3 ranks running, [0-9]s, (no output yet|last output rank [0-2] [0-9]s ago)\e\\[K' "$T/out" &&
  echo "ok: the status line was drawn in place" || { echo "FAIL: no status line drawn"; cat -v "$T/out" | head | cut -c1-200; fails=$((fails + 1)); }
# Drawn again below each batch of worker lines (the rate of in-place redraws: StatusLineTest).
[ "$(grep -o $'\e\\[K\r\e\\[K\\[rank' "$T/out" | wc -l)" -ge 2 ] && echo "ok: erased before worker lines, more than once" ||
  { echo "FAIL: the status line was not erased before worker lines"; fails=$((fails + 1)); }
screen "$T/out" >"$T/screen"
grep -q "ranks running" "$T/screen" && { echo "FAIL: a status line left on screen"; grep -n "ranks running" "$T/screen"; fails=$((fails + 1)); } ||
  echo "ok: every status line erased before the next line"
bad=$(grep -vE '^(\[rank[0-2]\]: r[0-2] (slow|line|last)|distdoctor launch: |$)' "$T/screen" | grep -E '\[rank|distdoctor: ' | head -3 | cut -c1-200)
[ -z "$bad" ] && echo "ok: no line garbled" || { echo "FAIL: garbled: $bad"; fails=$((fails + 1)); }
expect "the report follows on a clean line" "$T/screen" "launch.job.ok"
check "--json: no status line even when forced" 0 L DISTDOCTOR_STATUS_LINE=1 OUTPUT_SLOW=6 OUTPUT_LINES=1 OUTPUT_LONG=0 \
  --nproc-per-node 2 --job-id stj --json -- sh "$OW"
grep -q "ranks running" "$T/out" "$T/err" && { echo "FAIL: a status line with --json"; fails=$((fails + 1)); } ||
  echo "ok: no status line with --json"

# On a real terminal (script(1) gives the launch a pty): drawn without being forced.
if command -v script >/dev/null && script -qec true /dev/null >/dev/null 2>&1; then
  cmd=$(printf '%q ' timeout 60 "$BIN" launch --log-dir "$T/logs" --nproc-per-node 2 --job-id tty -- env OUTPUT_SLOW=8 OUTPUT_LINES=1 OUTPUT_LONG=0 sh "$OW")
  script -qec "$cmd" /dev/null </dev/null >"$T/tty" 2>&1
  grep -q $'\rdistdoctor: [0-2]/2 ranks running' "$T/tty" && echo "ok: drawn on a terminal" ||
    { echo "FAIL: no status line on a terminal"; cat -v "$T/tty" | head | cut -c1-200; fails=$((fails + 1)); }
  screen "$T/tty" | grep -q "ranks running" && { echo "FAIL: left on the terminal"; fails=$((fails + 1)); } ||
    echo "ok: erased on the terminal"
else
  echo "info: no script(1) here: the terminal case is covered by DISTDOCTOR_STATUS_LINE=1 only"
fi
cli_finish launch_output_test
