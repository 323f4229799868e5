#!/usr/bin/env bash
# Issue 29 on a GPU machine: the scheduler-facing outputs of a healthy GPU node. --version, check --summary
# with --fail-on fail (must exit 0 on a healthy node), check --collectives --metrics (NCCL figures), bench
# --metrics, and the Slurm prolog with a stand-in scontrol (must drain nothing). Fails when a step fails.
# Results under $OUT (tarred). Usage (device machine, repo root): tools/device/scheduler_gpu.sh CARRY_DIR
set -u
carry=${1:-.devcarry/hangs}
BIN=$(realpath "$carry/distdoctor")
export LD_LIBRARY_PATH="$(realpath "$carry/lib"):${LD_LIBRARY_PATH:-}"
export NCCL_NVLS_ENABLE=0 NCCL_CUMEM_ENABLE=0 NO_COLOR=1
R=${OUT:-/tmp}/sched
mkdir -p "$R/bin"
fails=0
step() { local name=$1; shift; echo "== $name: $*"; "$@"; local rc=$?; echo "rc=$rc"; return $rc; }
nvidia-smi -L | tee "$R/gpus.txt"
step version "$BIN" --version | tee "$R/version.txt"
step summary "$BIN" check --summary --fail-on fail >"$R/summary.txt" 2>&1 || fails=$((fails + 1))
cat "$R/summary.txt"
"$BIN" check --collectives --metrics "$R/check_collectives.prom" --json >"$R/check_collectives.json" 2>"$R/check.err"
rc=$?; echo "check --collectives rc=$rc"; [ $rc -le 1 ] || fails=$((fails + 1))
grep -c '^distdoctor_check_collective_busbw' "$R/check_collectives.prom" || fails=$((fails + 1))
"$BIN" bench -b 1M -e 256M -f 4 -c all_reduce,all_gather --metrics "$R/bench.prom" >"$R/bench.txt" 2>&1
rc=$?; echo "bench rc=$rc"; [ $rc -le 1 ] || fails=$((fails + 1))
grep -c '^distdoctor_bench_collective_link_ratio' "$R/bench.prom"
printf '#!/bin/sh\necho "$@" >>"%s/scontrol.log"\n' "$R" >"$R/bin/scontrol"; chmod +x "$R/bin/scontrol"
time_start=$(date +%s.%N)
SCONTROL="$R/bin/scontrol" DISTDOCTOR="$BIN" SLURMD_NODENAME=gpu-test bash packaging/slurm/distdoctor-prolog.sh \
  >"$R/prolog.out" 2>&1
rc=$?; echo "prolog rc=$rc ($(python3 -c "import time; print(round(time.time() - $time_start, 2))") s)"
[ $rc = 0 ] && [ ! -s "$R/scontrol.log" ] || { echo "the prolog drained a healthy GPU node"; fails=$((fails + 1)); }
python3 scripts/check_prom_text.py --strict-only "$R/check_collectives.prom" distdoctor_check_collective_busbw_bytes_per_second ||
  fails=$((fails + 1))
python3 scripts/check_prom_text.py --strict-only "$R/bench.prom" distdoctor_bench_collective_busbw_bytes_per_second || fails=$((fails + 1))
tar -C "${OUT:-/tmp}" -czf "${OUT:-/tmp}/sched.tgz" sched
echo "fails=$fails"
[ $fails = 0 ]
