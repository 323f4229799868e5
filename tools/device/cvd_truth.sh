#!/usr/bin/env bash
# Ground truth for the CUDA_VISIBLE_DEVICES rule, to run on a GPU machine (the lead runs tools/device/ scripts):
# for each value, the device count the CUDA driver itself reports (cuInit + cuDeviceGetCount through dlopen of
# libcuda.so.1) vs distdoctor's prediction (evidence cvd_predicted_count= of `check --facts`, on this machine's
# GPUs). Prints a table; exit 1 on any disagreement, 77 when there is no GPU/driver. Results also go to $OUT.
# Usage: tools/device/cvd_truth.sh build/distdoctor
set -u
BIN=$(readlink -f "${1:-build/distdoctor}")
command -v nvidia-smi >/dev/null || { echo "SKIP: no nvidia-smi"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq missing"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cat > "$TMP/count.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(void) {
  void* h = dlopen("libcuda.so.1", RTLD_NOW);
  if (!h) { printf("nolib\n"); return 0; }
  int (*init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
  int (*count)(int*) = (int (*)(int*))dlsym(h, "cuDeviceGetCount");
  int rc = init(0);
  if (rc == 100) { printf("0\n"); return 0; }  /* CUDA_ERROR_NO_DEVICE */
  if (rc) { printf("err%d\n", rc); return 0; }
  int n = -1;
  rc = count(&n);
  if (rc) printf("err%d\n", rc); else printf("%d\n", n);
  return 0;
}
C
gcc -O1 -o "$TMP/count" "$TMP/count.c" -ldl || exit 1
# GPU list: the facts probe when it has NVML, else nvidia-smi.
env -u CUDA_VISIBLE_DEVICES "$BIN" facts --json > "$TMP/facts.json" 2>/dev/null || echo '{}' > "$TMP/facts.json"
if [ "$(jq '.gpu.gpus | length' "$TMP/facts.json" 2>/dev/null)" = 0 ] || ! jq -e .gpu.gpus "$TMP/facts.json" >/dev/null 2>&1; then
  gpus=$(nvidia-smi --query-gpu=index,uuid --format=csv,noheader | jq -R -s '[split("\n")[] | select(length>0) | split(", ") | {index: (.[0]|tonumber), uuid: .[1]}]')
  jq --argjson g "$gpus" '.gpu.nvml_loaded = true | .gpu.gpus = $g' "$TMP/facts.json" > "$TMP/f2.json" && mv "$TMP/f2.json" "$TMP/facts.json"
fi
N=$(jq '.gpu.gpus | length' "$TMP/facts.json")
[ "$N" -gt 0 ] || { echo "SKIP: no GPU"; exit 77; }
U0=$(jq -r '.gpu.gpus[0].uuid' "$TMP/facts.json")
U1=$(jq -r '.gpu.gpus[-1].uuid' "$TMP/facts.json")
VALUES=("0" "1" "0,1" "1,0" "" "-1" "0,,1" "0,0" "1,1,0" "$N" "0,$N" "0,$N,1" "0,x,1" " 0, 1" "1gpu" "+1" "-0"
        "none" "${U0:0:8}" "$U1,$U0" "GPU-" "$U0,0" "0,$U1" "$U0,$U0" "${U0:0:12},${U0}" "MIG-x" "0,-1,1"
        "0,1,2,3,4,5,6,7,8")
FAILS=0
printf '%-50s %-8s %-10s\n' "CUDA_VISIBLE_DEVICES" "cuda" "predicted" | tee "$TMP/table.txt"
for v in "${VALUES[@]}"; do
  truth=$(CUDA_VISIBLE_DEVICES="$v" "$TMP/count")
  jq --arg v "$v" '.env.CUDA_VISIBLE_DEVICES = $v | .cuda.visible_devices_set = true | .cuda.visible_devices = $v
                   | .cuda.device_count = -1' "$TMP/facts.json" > "$TMP/cvd.json"
  pred=$("$BIN" check --facts "$TMP/cvd.json" --json 2>/dev/null |
         jq -r '[.findings[].evidence[]? | select(startswith("cvd_predicted_count="))][0] // "missing" | sub("cvd_predicted_count=";"")')
  mark=ok
  # A repeated device makes cuInit fail with 101 (CUDA_ERROR_INVALID_DEVICE): the rule must say so (duplicate).
  if [ "$truth" = err101 ] && [ "$pred" = 0 ] &&
     "$BIN" check --facts "$TMP/cvd.json" --json 2>/dev/null | grep -q '"cuda.visible_devices.duplicate"'; then pred=err101; fi
  if [ "$truth" != "$pred" ] && ! { [ "$pred" = unknown ] && [[ $v == MIG-* ]]; }; then mark=DIFF; FAILS=$((FAILS + 1)); fi
  printf '%-50s %-8s %-10s %s\n' "\"$v\"" "$truth" "$pred" "$mark" | tee -a "$TMP/table.txt"
done
[ -n "${OUT:-}" ] && cp "$TMP/table.txt" "$OUT/cvd_truth.txt"
echo "cvd_truth: $FAILS disagreement(s) on $N GPU(s)"
[ "$FAILS" -eq 0 ]
