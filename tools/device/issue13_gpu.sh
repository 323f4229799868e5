#!/bin/bash
# Device checks of issue 13's GPU paths: the refusals that need a GPU (bad_flags_gpu.sh), check --collectives
# and an NCCL bench still run, distdoctor killed (SIGKILL) mid check --collectives and mid bench leaves no
# worker and no temporary directory (the orphan guard), and planted secrets stay out of the GPU report.
# Usage (repo root on the device): tools/device/issue13_gpu.sh [DIR with distdoctor]. Writes summary.txt
# under $OUT.
set -u
export NCCL_NVLS_ENABLE=0 NCCL_CUMEM_ENABLE=${NCCL_CUMEM_ENABLE:-1}
DIR=$(cd "${1:-.devcarry}" && pwd)
BIN=$DIR/distdoctor
O=${OUT:-${TMPDIR:-/tmp}/dd-issue13-gpu}
mkdir -p "$O"
S=$O/summary.txt
export TMPDIR=$(mktemp -d)  # what the runs leave behind shows here
bash "$(dirname "$0")/bad_flags_gpu.sh" "$DIR" >/dev/null 2>&1
cat "$O/summary.txt" 2>/dev/null >"$O/bad_flags.txt"
: >"$S"
cat "$O/bad_flags.txt" >>"$S"
timed() {  # description, args...: rc, wall time, verdict line
  local desc=$1
  shift
  local t0=$(date +%s.%N)
  "$BIN" "$@" >"$O/$desc.out" 2>"$O/$desc.err"
  local rc=$? t1=$(date +%s.%N)
  echo "$desc: rc=$rc $(awk "BEGIN{printf \"%.2fs\", $t1-$t0}") | $(grep -m1 '^verdict' "$O/$desc.out")" >>"$S"
}
timed check_collectives check --collectives --timing
timed bench_nccl_2ranks bench --engine nccl --nproc 2 --gpus 0,0 --fake-hosts -b 1M -e 64M -f 4 -n 5 -w 2
# Killed mid-run: nothing of ours may stay (workers, their children) and no distdoctor-comm-* directory.
leftovers() {
  local me=$$ n=0 p
  for p in /proc/[0-9]*; do
    [ "${p#/proc/}" = "$me" ] && continue
    tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -q "$DIR/distdoctor" && n=$((n + 1))
  done
  echo "processes=$n tmpdirs=$(find "$TMPDIR" -maxdepth 1 -name 'distdoctor-comm-*' | wc -l)"
}
# check --collectives takes about 1 s (its workers start after 0.2-0.4 s): killed at 0.6 s; the bench runs
# for many seconds: killed at 4 s, mid-collective.
for spec in "0.6 check --collectives" "4 bench --engine nccl --nproc 2 --gpus 0,0 --fake-hosts -b 64M -e 2G -f 2 -n 50"; do
  delay=${spec%% *} what=${spec#* }
  "$BIN" $what >/dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  alive=$(kill -0 $pid 2>/dev/null && echo running || echo "already ended")
  kill -9 $pid 2>/dev/null
  wait $pid 2>/dev/null
  sleep 3
  echo "SIGKILL after $delay s of '$what' ($alive then): $(leftovers)" >>"$S"
done
# Secrets planted in the environment and nccl.conf stay out of the GPU report (text and JSON).
printf 'NCCL_NET_TOKEN=s3cr3t-conf\n' >"$TMPDIR/nccl.conf"
env WANDB_API_KEY=s3cr3t-env NCCL_IB_SECRET=s3cr3t-nccl NCCL_CONF_FILE="$TMPDIR/nccl.conf" \
  "$BIN" check --collectives --json >"$O/secrets.json" 2>"$O/secrets.err"
echo "secrets in check --collectives --json: $(grep -c s3cr3t "$O/secrets.json" "$O/secrets.err" | tr '\n' ' ')" >>"$S"
cat "$S"
