#!/usr/bin/env bash
# Side by side: distdoctor's embedded store (build/store_scale, C++ threads) and PyTorch's TCPStore (libuv backend,
# Python threads; tools/device/store_vs_torch.py) for the same join + publish + barrier pattern, N = 256 1024 4096.
# Prints both times and the ratio torch/distdoctor per N. Needs python3 with torch; builds store_scale if missing.
# Usage: tools/device/store_vs_torch.sh [N ...]     env: PROCS=k (torch client processes), BUILD=build, REPEAT=3
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
REPEAT=${REPEAT:-3}
ns=("$@")
[ ${#ns[@]} -gt 0 ] || ns=(256 1024 4096)
ulimit -n "$(ulimit -Hn)" || true
if [ ! -x "$BUILD/store_scale" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDD_DISABLE_CUDA=ON >/dev/null
  cmake --build "$BUILD" --target store_scale
fi
echo "host: $(nproc) cores, $(uname -r), somaxconn $(cat /proc/sys/net/core/somaxconn), ulimit -n $(ulimit -n)"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# Best of REPEAT runs for each side (both sides are noisy on a shared machine).
for i in $(seq "$REPEAT"); do
  "$BUILD/store_scale" "${ns[@]}" | tee -a "$out" | sed 's/^/  /'
  python3 tools/device/store_vs_torch.py --procs "${PROCS:-1}" "${ns[@]}" | tee -a "$out" | sed 's/^/  /'
done
python3 - "$out" "${ns[@]}" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
print(f"{'N':>6} {'distdoctor ms':>14} {'torch ms':>10} {'torch/distdoctor':>17}   (best of runs)")
for n in sys.argv[2:]:
    dd = [float(x) for x in re.findall(rf"^N={n}\s+join\+publish\+barrier\s+([\d.]+) ms", text, re.M)]
    tt = [float(x) for x in re.findall(rf"^torch N={n} join\+publish\+barrier ([\d.]+) ms", text, re.M)]
    if not dd or not tt:
        print(f"{n:>6} missing figures (distdoctor {dd}, torch {tt})")
        continue
    print(f"{n:>6} {min(dd):>14.1f} {min(tt):>10.1f} {min(tt) / min(dd):>17.2f}")
PY
