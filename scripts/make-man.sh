#!/usr/bin/env bash
# Writes distdoctor's man page (gzipped roff) from its own --help: help2man makes the page from the top-level
# help and --version, and each subcommand's --help goes into a COMMANDS section, so the page always says what
# the binary does. Run by the build (target `man`). Usage: scripts/make-man.sh path/to/distdoctor OUT.1.gz
set -euo pipefail
bin=$1 out=$2
command -v help2man >/dev/null || { echo "make-man: help2man is not installed (scripts/install-deps.sh)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ddman.XXXXXX")
trap 'rm -rf "$work"' EXIT
roff_lines() { sed -e 's/\\/\\\\/g' -e "s/^\([.']\)/\\\\\&\1/"; }  # literal text: no roff requests
subs=$("$bin" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && NF { print $1 }')
[ -n "$subs" ] || { echo "make-man: no subcommands in '$bin --help'" >&2; exit 1; }
{
  echo "[COMMANDS]"
  for s in $subs; do
    echo ".SS \"distdoctor $s\""
    echo ".nf"
    "$bin" "$s" --help | roff_lines
    echo ".fi"
  done
  cat <<'ROFF'
[EXIT STATUS]
.TP
.B 0
pass: no finding failed or warned
.TP
.B 1
warn: at least one warning, no failure
.TP
.B 2
fail: at least one failing finding
.TP
.B 3
could not run (a bad command line, an unreadable input, output that could not be written)
.PP
With \fB\-\-fail\-on\fR, \fBcheck\fR exits 0 below the chosen severity.
[SEE ALSO]
The documents under docs/ in distdoctor's source: architecture.md, launch.md, slurm.md, metrics.md.
ROFF
} >"$work/include"
help2man --no-info --section 1 --name "why a distributed GPU job will not start, hangs, or runs slow" \
  --include "$work/include" --output "$work/distdoctor.1" "$bin"
gzip -9n <"$work/distdoctor.1" >"$out.tmp"
mv "$out.tmp" "$out"
