#!/usr/bin/env bash
# Records this GPU node's facts and check report next to what nvidia-smi says, for the facts fixtures
# (fixtures/facts/LABEL/) and for comparing the NVML probe (topology, P2P, NVLink, ECC) with the reference tool:
# the facts as CUDA_VISIBLE_DEVICES changes them, a broken NVML path (a finding, not a crash), each probe
# child's time, then `check`'s wall time (bench/check_speed.sh, 20 runs). About a minute.
# Usage (repo root on the device): tools/device/record_facts.sh [DIR] (DIR: a stripped distdoctor and lib/,
# tools/device/stage_binary.sh; default .devcarry/dd). LABEL names the files (default from the GPUs: h200x2).
# Writes $OUT/facts.tgz (default OUT ./device_out; the device returns few files): every output, steps.txt with
# each step's exit code. Every step runs even when an earlier one fails.
set -u
FINAL=${OUT:-device_out}
OUT=$FINAL/facts
DIR=$(cd "${1:-.devcarry/dd}" && pwd)
BIN=$DIR/distdoctor
export LD_LIBRARY_PATH="$DIR/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
LABEL=${LABEL:-$(nvidia-smi --query-gpu=name --format=csv,noheader | awk '{n++; m=tolower($NF)} END {print m "x" n}')}
mkdir -p "$OUT"
step() {  # step NAME CMD...: stdout to $OUT/NAME, stderr to $OUT/NAME.err, exit code logged
  local name=$1
  shift
  "$@" >"$OUT/$name" 2>"$OUT/$name.err"
  echo "$name: exit $?" >>"$OUT/steps.txt"
}
: >"$OUT/steps.txt"
step ldd.txt ldd "$BIN"
step uname.txt uname -a
step nvidia-smi.txt nvidia-smi
step nvidia-smi_topo_m.txt nvidia-smi topo -m
step nvidia-smi_topo_p2p_r.txt nvidia-smi topo -p2p r
step nvidia-smi_q.txt nvidia-smi -q
step nvidia-smi_nvlink_s.txt nvidia-smi nvlink -s
step ldconfig_nccl.txt sh -c 'ldconfig -p | grep -E "nccl|nvidia-ml|libcuda"'
step libnccl_files.txt sh -c 'find / -xdev \( -path /proc -o -path /sys \) -prune -o -name "libnccl.so*" -print 2>/dev/null'

# The facts and the report, as the fixtures will hold them.
step facts_$LABEL.json env DISTDOCTOR_PROBE_TIMING=1 "$BIN" facts --json
step facts_$LABEL.txt "$BIN" facts
step check_$LABEL.json "$BIN" check --json
step check_$LABEL.txt env NO_COLOR=1 "$BIN" check
# CUDA_VISIBLE_DEVICES as CUDA reads it: one GPU, a UUID-less bad list, and none.
step facts_cvd_1.json env CUDA_VISIBLE_DEVICES=1 "$BIN" facts --json
step facts_cvd_bad.json env CUDA_VISIBLE_DEVICES=0,,x "$BIN" facts --json
step facts_cvd_empty.json env CUDA_VISIBLE_DEVICES= "$BIN" facts --json
# A broken NVML path must be a finding, not a crash.
step check_bad_nvml.txt env DISTDOCTOR_NVML_LIB=/nonexistent/libnvidia-ml.so.1 NO_COLOR=1 "$BIN" check

# Speed: where the time goes (per probe child), then repeated wall time of `check`.
for i in 1 2 3 4 5; do
  DISTDOCTOR_PROBE_TIMING=1 "$BIN" facts --json 2>>"$OUT/probe_timing.txt" >/dev/null
done
step check_speed.txt bench/check_speed.sh 20 "$BIN"
if [ -x build/distdoctor_tests ]; then
  step unit_tests_probe.txt build/distdoctor_tests --gtest_filter='GpuProbe*:GpuLabels*:Children*:NcclProbe*'
fi
cat "$OUT/steps.txt" "$OUT/check_speed.txt" "$OUT/probe_timing.txt" 2>/dev/null
(cd "$FINAL" && tar czf facts.tgz facts && rm -rf facts)
