#!/usr/bin/env bash
# `distdoctor explain` takes pasted text verbatim (brackets and commas kept), reads many lines from stdin with
# `explain -` (first cause first), reads NCCL information lines, and answers in JSON with the findings' fields.
# Usage: tests/explain_cli_test.sh path/to/distdoctor
set -u
BIN=${1:?usage: $0 path/to/distdoctor}
FIX=$(cd "$(dirname "$0")/../fixtures/logs" && pwd)
. "$(dirname "$0")/cli_test_lib.sh"

# A bracketed NCCL line is read as written: the interface and address come back in the reading.
check "bracketed NCCL line" 0 "$BIN" explain "[0] NCCL INFO NET/Socket : Using [0]eth0:10.10.10.1<0> [1]"
expect "socket line read" "$T/out" "nccl.line.net_socket"
expect "interface and address" "$T/out" "eth0 (10.10.10.1)"
expect "whole line as evidence" "$T/out" "line 1: [0] NCCL INFO NET/Socket : Using [0]eth0:10.10.10.1<0> [1]"
# Brackets and commas are not a list: an unknown text is echoed back exactly as given; no reading is exit 1
# (a question without an answer, not a failure to run), and a long text is not echoed whole.
check "unknown bracketed text" 1 "$BIN" explain "[a, b] foo [c]"
expect "text kept verbatim" "$T/err" '"[a, b] foo [c]"'
check "a long unknown text" 1 "$BIN" explain "$(printf 'zq%.0s' $(seq 3000))"
[ "$(wc -c <"$T/err")" -lt 400 ] && echo "ok: not echoed whole ($(wc -c <"$T/err") bytes)" ||
  { echo "FAIL: $(wc -c <"$T/err") bytes on stderr"; fails=$((fails + 1)); }

# Lines people paste because they are the last they see (launchers, MindSpore, nvidia-smi topo) and plain-
# language reports each get a reading: fixtures/explain/cases.tsv, ID<TAB>TEXT ("-": must match none of them).
while IFS=$'\t' read -r want text; do
  "$BIN" explain --json "$text" >"$T/case.json" 2>/dev/null
  got=$(python3 -c 'import json,sys; print(" ".join(f["id"] for f in json.load(open(sys.argv[1]))["findings"]))' \
    "$T/case.json" 2>/dev/null)
  if [ "$want" = - ]; then
    case " $got " in *" paddle."* | *" pytorch.elastic"* | *" mindspore."* | *" nvidia_smi."* | *" symptom."*)
      echo "FAIL: '$text' read as $got"; fails=$((fails + 1)) ;;
    esac
  elif [ "${got%% *}" != "$want" ]; then
    echo "FAIL: '$text' read as '$got', want $want first"; fails=$((fails + 1))
  fi
done <"$FIX/../explain/cases.tsv"
echo "ok: $(wc -l <"$FIX/../explain/cases.tsv") pasted lines read"
check "comma in a known error" 0 "$BIN" explain "NCCL WARN Bootstrap : no socket interface found, check NCCL_SOCKET_IFNAME"
expect "comma line matched" "$T/out" "nccl.bootstrap_no_interface"
# Information lines get a reading instead of "no match".
check "IB line" 0 "$BIN" explain "NCCL INFO NET/IB : Using [0]mlx5_bond_0:1/RoCE ; OOB eth0:10.0.0.1<0>"
expect "HCA and link layer" "$T/out" "mlx5_bond_0 port 1 (RoCE)"
check "version line" 0 "$BIN" explain "NCCL version 2.8.4+cuda11.2"
expect "version read" "$T/out" "loaded NCCL 2.8.4+cuda11.2"

# 30 lines of a real PyTorch failure (traceback, NCCL error, torchrun's summary) on stdin.
sed -n 12,41p "$FIX/real/duplicate_gpu.log" >"$T/paste.txt"
[ "$(wc -l <"$T/paste.txt")" -eq 30 ] || { echo "FAIL: fixture excerpt is not 30 lines"; fails=$((fails + 1)); }
check "traceback on stdin" 0 "$BIN" explain - <"$T/paste.txt"
expect "duplicate GPU found" "$T/out" "matches nccl.duplicate_gpu"
check "traceback on stdin, JSON" 0 "$BIN" explain --json - <"$T/paste.txt"
python3 - "$T/out" <<'PY' || fails=$((fails + 1))
import json, sys
j = json.load(open(sys.argv[1]))
f = j["findings"]
assert j["verdict"] in ("pass", "warn", "fail"), j["verdict"]
assert f, "no findings"
for x in f:
    for k in ("id", "severity", "title", "evidence", "fix", "node", "rank"):
        assert k in x, (k, x)
ids = [x["id"] for x in f]
assert ids[0] == "nccl.duplicate_gpu", ids  # the first cause first
sev = ["ok", "info", "warn", "fail"]
assert all(sev.index(a["severity"]) >= sev.index(b["severity"]) for a, b in zip(f, f[1:])), ids
print("ok: JSON findings parsed back:", ids)
PY
# An id in JSON, and --list in JSON.
check "id as JSON" 0 "$BIN" explain --json net.socket_ifname.is_ip
python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["findings"]; assert f[0]["id"]=="net.socket_ifname.is_ip" and f[0]["fix"]; print("ok: id JSON")' "$T/out" || fails=$((fails + 1))
check "list as JSON" 0 "$BIN" explain --list --json
python3 -c 'import json,sys; ids={x["id"] for x in json.load(open(sys.argv[1]))["ids"]}; assert "nccl.line.net_socket" in ids and "nccl.duplicate_gpu" in ids; print("ok: list JSON")' "$T/out" || fails=$((fails + 1))
check "nothing on stdin" 3 "$BIN" explain - </dev/null
# Other free-text values are verbatim too: a log path with brackets and a comma is one file.
cp "$FIX/real/duplicate_gpu.log" "$T/[run1, a].log"
check "bracketed log path" 2 "$BIN" logs --brief "$T/[run1, a].log"
expect "the file was read" "$T/out" "nccl.duplicate_gpu"

cli_finish explain_cli_test
