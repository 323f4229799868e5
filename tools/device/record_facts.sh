#!/usr/bin/env bash
# Run on the GPU machine (2x H200) from the repo root, with build/distdoctor built on the dev machine and
# carried. Records distdoctor's facts and check report next to what nvidia-smi says, for fixtures and for
# comparing the NVML probe (topology, P2P, NVLink, ECC) with the reference tool; then measures check's speed.
# Output goes to $OUT (default ./device_out). Every step runs even when an earlier one fails.
set -u
OUT=${OUT:-device_out}
BIN=${BIN:-build/distdoctor}
mkdir -p "$OUT"
step() {  # step NAME CMD...: stdout to $OUT/NAME, stderr to $OUT/NAME.err, exit code logged
  local name=$1
  shift
  "$@" >"$OUT/$name" 2>"$OUT/$name.err"
  echo "$name: exit $?" >>"$OUT/steps.txt"
}
: >"$OUT/steps.txt"
# The binary needs libfmt.so.9 at run time: if the machine lacks it, carry it in build/lib.
[ -d build/lib ] && export LD_LIBRARY_PATH="$PWD/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
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
step facts_h200x2.json env DISTDOCTOR_PROBE_TIMING=1 "$BIN" facts --json
step facts_h200x2.txt "$BIN" facts
step check_h200x2.json "$BIN" check --json
step check_h200x2.txt env NO_COLOR=1 "$BIN" check
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
