#!/usr/bin/env bash
# Builds the store wire parser fuzz target with clang (libFuzzer + ASan + UBSan) and runs it for SECONDS (default 60).
# Usage: bench/store_wire_fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang++ >/dev/null || { echo "SKIP: clang++ not installed"; exit 77; }
out=${BUILD:-build}/fuzz
mkdir -p "$out/corpus"
clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Isrc \
  src/rendezvous/wire_fuzz.cpp src/rendezvous/wire.cc -lfmt -o "$out/store_wire_fuzz"
"$out/store_wire_fuzz" -max_total_time="${1:-60}" -max_len=4096 "$out/corpus"
