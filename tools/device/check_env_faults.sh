#!/usr/bin/env bash
# Issue 12 item 8 on a GPU machine (the lead runs tools/device/ scripts): `distdoctor check` with the faults
# the issue names, before any collective runs, and which finding ids each gives. Expected:
#   NCCL_ALGO=bogus            -> nccl.algo.invalid (fail, names "bogus" and the valid algorithms)
#   NCCL_NET=IB (no IB here)   -> nccl.net.ib_unavailable (fail)
#   CUDA_VISIBLE_DEVICES=0,0   -> cuda.visible_devices.duplicate (fail); cuda.driver_unusable only as info
#   plain                      -> host.hostname_loopback at most info; no nccl.* warn
# Then the same faults with --collectives, to record what NCCL itself says (the ground truth).
# Usage: tools/device/check_env_faults.sh [.devcarry/distdoctor]. Writes <case>.json/.txt and summary.txt to $OUT.
set -u
export NCCL_NVLS_ENABLE=0
BIN=$(readlink -f "${1:-.devcarry/distdoctor}")
O=${OUT:-${TMPDIR:-/tmp}/dd-check-env-faults}
mkdir -p "$O"
S=$O/summary.txt
: >"$S"
run_case() {  # NAME COLLECTIVES(0/1) ENV...
  local name=$1 coll=$2
  shift 2
  local extra=()
  [ "$coll" = 1 ] && extra=(--collectives)
  env "$@" timeout 300 "$BIN" check --cuda-init "${extra[@]}" --json >"$O/$name.json" 2>"$O/$name.err"
  local rc=$?
  env "$@" timeout 300 "$BIN" check --cuda-init "${extra[@]}" >"$O/$name.txt" 2>&1
  echo "== $name (rc $rc): $*" >>"$S"
  python3 -c 'import json,sys
for f in json.load(open(sys.argv[1]))["findings"]:
    if f["severity"] != "ok": print("  %s %s: %s" % (f["severity"], f["id"], f["title"]))' "$O/$name.json" >>"$S" 2>&1
}
run_case plain 0
run_case algo_bogus 0 NCCL_ALGO=bogus
run_case net_ib 0 NCCL_NET=IB
run_case cvd_dup 0 CUDA_VISIBLE_DEVICES=0,0
run_case algo_tree 0 NCCL_ALGO=Tree
run_case algo_bogus_coll 1 NCCL_ALGO=bogus NCCL_DEBUG=WARN
run_case net_ib_coll 1 NCCL_NET=IB NCCL_DEBUG=WARN
run_case algo_tree_coll 1 NCCL_ALGO=Tree NCCL_DEBUG=WARN
cat "$S"
# Few files come back from the device: pack the per-case outputs, keep summary.txt beside the archive.
(cd "$O" && mv summary.txt ../dd-check-env-summary.txt && tar czf ../dd-check-env-cases.tgz . && rm -rf ./* &&
  mv ../dd-check-env-summary.txt summary.txt && mv ../dd-check-env-cases.tgz cases.tgz)
