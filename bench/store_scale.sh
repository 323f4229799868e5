#!/usr/bin/env bash
# Builds and runs the rendezvous store scale benchmark: 256, 1024, 4096 clients against one embedded server.
# Usage: bench/store_scale.sh [BUILD_DIR] [N ...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
[ -f "$build/build.ninja" ] || cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDD_DISABLE_CUDA=ON
cmake --build "$build" --target store_scale
echo "host: $(nproc) cores, somaxconn $(cat /proc/sys/net/core/somaxconn), ulimit -n hard $(ulimit -Hn)"
exec "$build/store_scale" "$@"
