#!/usr/bin/env bash
# Inputs stay bounded in bytes and time whatever they hold (issue 36, item 4): `explain -` reads at most
# 64 MiB of stdin and says it cut; a folder of small Flight Recorder dumps whose memo names one dict 400,000
# times is refused with the reason, quickly. (A file that blocks: tests/proc_kmsg_test.sh.)
# Usage: tests/bounded_inputs_test.sh path/to/distdoctor
set -u
BIN=${1:?usage: $0 path/to/distdoctor}
. "$(dirname "$0")/cli_test_lib.sh"

# explain -: 80 MiB on stdin, of which 64 MiB are read and explained; the cut is said.
head -c $((80 << 20)) /dev/zero | tr '\0' 'x' | fold -w 100 >"$T/big.txt"
ends_within 120 "explain - of 80 MiB is cut at 64 MiB" "only the first 64 MiB" sh -c "'$BIN' explain - < '$T/big.txt'"

# Four 800 KB dumps whose memo names one 40-key dict 400,000 times (16 million values once expanded):
# refused before they are built, each with the reason.
mkdir -p "$T/fr"
python3 - "$T/fr" <<'PY'
import pickle, sys
d = {f"k{i}": i for i in range(40)}
b = pickle.dumps({"version": "2.10", "pg_config": {}, "entries": [d] * 400000}, protocol=4)
for r in range(4):
    open(f"{sys.argv[1]}/fr_trace_{r}", "wb").write(b)
PY
ends_within 60 "a folder of memo-bomb dumps is refused" "shared values" /usr/bin/time -v "$BIN" logs "$T/fr"
expect "each dump is named" "$T/out" "4 Flight Recorder dump(s) could not be read"
rss_kb=$(sed -n 's/^\s*Maximum resident set size (kbytes): //p' "$T/out")
if [ -n "$rss_kb" ] && [ "$rss_kb" -lt $((400 << 10)) ]; then
  echo "ok: refusing them took $((rss_kb >> 10)) MiB"
else
  echo "FAIL: refusing four 800 KB dumps took ${rss_kb:-?} KiB (the limit here: 400 MiB)"; fails=$((fails + 1))
fi

cli_finish bounded_inputs
