#!/usr/bin/env bash
# The fair race: distdoctor's embedded store (store_scale --procs) and PyTorch's TCPStore (libuv;
# tools/device/store_vs_torch.py --procs) driven by the same client model: PROCS client processes with the clients
# as threads inside them (many connections per process), pinned to CLIENT_CPUS, the server pinned to SERVER_CPUS,
# the same host, one run; ROUNDS rounds per N, medians compared. Pattern: join + publish 2 KiB + barrier.
# Usage: tools/device/store_vs_torch.sh [N ...]   (default 1024 4096 8192 16384)
# env: STORE_SCALE (the store_scale binary; default build/store_scale, built when missing), PROCS (16),
#      ROUNDS (5), SERVER_CPUS (0-1), CLIENT_CPUS (2 .. last CPU)
set -uo pipefail
cd "$(dirname "$0")/../.."
ns=("$@")
[ ${#ns[@]} -gt 0 ] || ns=(1024 4096 8192 16384)
PROCS=${PROCS:-16}
ROUNDS=${ROUNDS:-5}
SERVER_CPUS=${SERVER_CPUS:-0-1}
CLIENT_CPUS=${CLIENT_CPUS:-2-$(($(nproc) - 1))}
SS=${STORE_SCALE:-build/store_scale}
ulimit -n "$(ulimit -Hn)" || true
if [ ! -x "$SS" ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build --target store_scale || exit 1
fi
echo "host: $(nproc) cores, $(uname -r), somaxconn $(cat /proc/sys/net/core/somaxconn), ulimit -n $(ulimit -n)"
echo "model: $PROCS client processes on CPUs $CLIENT_CPUS, server on CPUs $SERVER_CPUS, $ROUNDS rounds per N"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
rc=0
for n in "${ns[@]}"; do
  "$SS" --procs "$PROCS" --rounds "$ROUNDS" --server-cpus "$SERVER_CPUS" --client-cpus "$CLIENT_CPUS" "$n" |
    tee -a "$out" | sed 's/^/  /' || rc=1
  python3 tools/device/store_vs_torch.py --procs "$PROCS" --rounds "$ROUNDS" --server-cpus "$SERVER_CPUS" \
    --client-cpus "$CLIENT_CPUS" "$n" | tee -a "$out" | sed 's/^/  /' || rc=1
done
python3 - "$out" "${ns[@]}" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
print(f"{'N':>6} {'distdoctor ms':>14} {'TCPStore ms':>12} {'TCPStore/distdoctor':>20}   (medians)")
for n in sys.argv[2:]:
    dd = re.findall(rf"^median N={n} procs=\d+ join\+publish\+barrier ([\d.]+) ms", text, re.M)
    tt = re.findall(rf"^median torch N={n} procs=\d+ join\+publish\+barrier ([\d.]+) ms", text, re.M)
    if not dd or not tt:
        print(f"{n:>6} missing figures (distdoctor {dd}, TCPStore {tt})")
        continue
    d, t = float(dd[0]), float(tt[0])
    print(f"{n:>6} {d:>14.1f} {t:>12.1f} {t / d:>20.2f}")
PY
exit $rc
