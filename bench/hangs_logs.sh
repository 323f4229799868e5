#!/usr/bin/env bash
# The first finding of `distdoctor logs` on each case of fixtures/logs/h100x4_hangs, by two builds (before and
# after a change), as the markdown of bench/results/hangs_logs.md.
# Usage: bench/hangs_logs.sh BEFORE_BIN AFTER_BIN [BEFORE_LABEL] > bench/results/hangs_logs.md
set -u
BEFORE=${1:?usage: $0 BEFORE_BIN AFTER_BIN [BEFORE_LABEL]}
AFTER=${2:?usage: $0 BEFORE_BIN AFTER_BIN [BEFORE_LABEL]}
LABEL=${3:-before}
cd "$(dirname "$0")/.." || exit 3
H=fixtures/logs/h100x4_hangs
first() {  # BIN FILES...: "verdict · id (rank N): title" of the first finding
  local bin=$1
  shift
  NO_COLOR=1 "$bin" logs --json "$@" | python3 -c '
import json, sys
r = json.load(sys.stdin)
f = r["findings"]
if not f:
    print(r["verdict"] + " · no finding")
else:
    x = f[0]
    rank = " (rank %d)" % x["rank"] if (x.get("rank") if x.get("rank") is not None else -1) >= 0 else ""
    line = "%s · %s `%s`%s: %s" % (r["verdict"], x["severity"], x["id"], rank, x["title"])
    print(line.replace("|", "\\|"))'
}
echo "# \`distdoctor logs\` on the real hangs of fixtures/logs/h100x4_hangs"
echo
echo "Written by \`bench/hangs_logs.sh\`: per case, the verdict and the first finding of"
echo "\`distdoctor logs CASE/torchrun.log\` (rdzv_nnodes_mismatch: node0.log and node1.log), now and $LABEL."
echo "The fault of each case is in fixtures/logs/h100x4_hangs/README.md."
echo
echo "| case | now | $LABEL |"
echo "|---|---|---|"
for c in desync_op desync_size desync_pg stall_idle stall_busy late_init sigkill exception dataloader \
  rdzv_unresolvable rdzv_port_in_use rdzv_nnodes_mismatch; do
  files=("$H/$c/torchrun.log")
  [ -f "${files[0]}" ] || files=("$H/$c/node0.log" "$H/$c/node1.log")
  echo "| $c | $(first "$AFTER" "${files[@]}") | $(first "$BEFORE" "${files[@]}") |"
done
echo
echo "What the torchrun logs do not show: desync_size (rank 3 all_gathers twice the elements) finished with"
echo "exit 0 and printed no watchdog or NCCL line, so \`logs\` has nothing to name; late_init (rank 3 slept 20 s"
echo "before init_process_group) finished too, and the only trace is the on-demand dump request that ranks 0-2"
echo "answered while rank 3, with no process group yet, printed nothing (the log never names rank 3, and its"
echo "lines carry no time); rdzv_nnodes_mismatch (--nnodes 2 against 3) ran and exited 0 on both nodes."
echo "The Flight Recorder dumps (fr/) and stacks (stacks/) of these cases hold more."
