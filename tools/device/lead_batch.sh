#!/usr/bin/env bash
# One GPU-machine batch for the lead: facts/check recording, CUDA_VISIBLE_DEVICES ground truth, real log capture,
# and the store-vs-TCPStore comparison. Each part lands in $OUT/<part>.tgz (the device returns few files).
# Usage (on the device, repo root, build/ carried): tools/device/lead_batch.sh [parts...]  parts: facts cvd logs store
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
R=${OUT:-${TMPDIR:-/tmp}/out}
W=$(mktemp -d "${TMPDIR:-/tmp}/lead_batch.XXXXXX")
trap 'rm -rf "$W"' EXIT
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(facts cvd coll logs store)
export LD_LIBRARY_PATH=$PWD/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
ldd build/distdoctor | grep -E "not found|gloo|fmt|ssl|crypto" > "$W/ldd.txt" 2>&1
for p in "${parts[@]}"; do
  start=$SECONDS
  case $p in
    facts) mkdir -p "$W/facts" && OUT=$W/facts timeout 120 tools/device/record_facts.sh > "$W/facts/run.log" 2>&1 ;;
    cvd)   mkdir -p "$W/cvd" && OUT=$W/cvd timeout 60 tools/device/cvd_truth.sh build/distdoctor > "$W/cvd/run.log" 2>&1 ;;
    logs)  mkdir -p "$W/logs" && OUT=$W/logs timeout 240 tools/device/capture_logs.sh > "$W/logs/run.log" 2>&1 ;;
    coll)  mkdir -p "$W/coll" && for i in 1 2 3 4 5 6; do
             TIMEFORMAT="wall %R s"; { time build/distdoctor check --local --collectives --json > "$W/coll/check_coll_$i.json" 2>/dev/null; } 2>> "$W/coll/times.txt"
             echo "exit $?" >> "$W/coll/times.txt"; done
           NO_COLOR=1 build/distdoctor check --local --collectives > "$W/coll/check_coll.txt" 2>&1
           OUT=$W/coll timeout 90 tools/device/cluster_gpu_check.sh build/distdoctor >> "$W/coll/run.log" 2>&1 ;;
    store) mkdir -p "$W/store" && REPEAT=2 timeout 100 tools/device/store_vs_torch.sh 256 1024 4096 > "$W/store/run.log" 2>&1 ;;
  esac
  echo "$p: exit $? in $((SECONDS - start)) s" | tee -a "$W/parts.txt"
  tar -C "$W" -czf "$R/$p.tgz" "$p" 2>/dev/null  # each part comes back even if a later one runs out of time
done
cp "$W/parts.txt" "$W/ldd.txt" "$R/"
cat "$W/parts.txt" "$W/ldd.txt"; tail -5 "$W"/*/run.log
