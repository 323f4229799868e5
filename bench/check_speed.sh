#!/usr/bin/env bash
# Wall time of `distdoctor check` (probes + rules + report), repeated: prints median and p90 in ms.
# The check's exit code is its verdict (0 pass, 1 warn, 2 fail); 3 (could not run) or a signal fails the benchmark.
# Usage: bench/check_speed.sh [N=20] [path/to/distdoctor] [extra check args...]
set -euo pipefail
N=${1:-20}
BIN=${2:-build/distdoctor}
shift $(( $# > 2 ? 2 : $# ))
[ -x "$BIN" ] || { echo "no binary at $BIN (build first)" >&2; exit 2; }
rc=0
"$BIN" check "$@" >/dev/null 2>&1 || rc=$?  # warm the page cache once; not counted
[ "$rc" -le 2 ] || { echo "distdoctor check failed to run (exit $rc)" >&2; exit 1; }
python3 - "$N" "$BIN" "$@" <<'PY'
import subprocess, sys, time
n, binary, extra = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
times = []
for _ in range(n):
    t0 = time.perf_counter()
    rc = subprocess.run([binary, "check", *extra], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    times.append((time.perf_counter() - t0) * 1000.0)
    if rc < 0 or rc > 2:  # a signal, or 3: the check could not run, so there is no time to report
        sys.exit(f"distdoctor check failed to run (exit {rc})")
times.sort()
median = times[len(times) // 2] if n % 2 else (times[n // 2 - 1] + times[n // 2]) / 2
p90 = times[min(n - 1, int(round(0.9 * n + 0.5)) - 1)]
print(f"distdoctor check: n={n} median={median:.1f} ms p90={p90:.1f} ms min={times[0]:.1f} ms max={times[-1]:.1f} ms")
PY
