#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/CMakeLists.txt, clang, ASan+UBSan) in build-fuzz and runs each for SECONDS
# on its seed corpus (fuzz/corpus/NAME, read-only; what the fuzzer finds goes to build-fuzz/corpus/NAME).
# A crash, timeout or OOM makes it exit non-zero and names the reproducer (under build-fuzz/artifacts).
# Usage: [JOBS=N] fuzz/run.sh SECONDS [NAME...]   (make fuzz: FUZZ_SECONDS each; make fuzz-smoke: 25 s each;
# N targets run at once, default nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: fuzz/run.sh SECONDS [NAME...]}
shift
build=${FUZZ_BUILD_DIR:-build-fuzz}
command -v clang++ >/dev/null || { echo "fuzz: clang++ not found (scripts/install-deps.sh installs clang)"; exit 3; }
if [ ! -f "$build/build.ninja" ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S fuzz -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ "${launcher[@]}" >/dev/null
fi
cmake --build "$build" -j "${JOBS:-$(nproc)}"

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in fuzz/*.cc; do names+=("$(basename "$f" .cc)"); done
fi
# One target: its result line goes to $build/logs/NAME.result, its exit code to NAME.rc.
run_one() {
  local name=$1 work="$build/corpus/$1" art="$build/artifacts/$1" log="$build/logs/$1.log" rc=0
  local out="$build/logs/$1.result"
  mkdir -p "$work" "$art" "$(dirname "$log")" "fuzz/corpus/$name"
  # New inputs go to the first corpus dir (the build's); the seeds in the tree are only read.
  nice -n 10 "$build/${name}_fuzz" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -use_value_profile=1 \
    -print_final_stats=1 -artifact_prefix="$art/" "$work" "fuzz/corpus/$name" >"$log" 2>&1 || rc=$?
  local runs cov repro
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
  if [ "$rc" -eq 0 ]; then
    echo "fuzz $name: ok, ${seconds} s, ${runs:-?} runs, ${cov:-cov: ?}" >"$out"
  else
    repro=$(grep -o "Test unit written to .*" "$log" | tail -1 | sed 's/Test unit written to //' || true)
    {
      echo "fuzz $name: FAILED (exit $rc) after ${runs:-?} runs; log: $log"
      grep -E "^(==[0-9]+==ERROR|SUMMARY|.*runtime error)" "$log" | head -5 | sed 's/^/  /' || true
      # A failed check() traps with no message: the frames in the target's own file say which one.
      grep -oE "in [^ ]+ [^ ]*fuzz/[a-z_]+\.cc:[0-9]+" "$log" | head -2 | sed 's/^/  where: /' || true
      echo "  reproducer: ${repro:-see the log}"
      echo "  rerun: $build/${name}_fuzz ${repro:-ARTIFACT}"
    } >"$out"
  fi
  echo "$rc" >"$build/logs/$name.rc"
}

# JOBS targets at a time (each fuzzer is one process on one core); results print in the targets' order.
parallel=${JOBS:-$(nproc)}
mkdir -p "$build/logs"
for name in "${names[@]}"; do
  rm -f "$build/logs/$name.result" "$build/logs/$name.rc"
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  run_one "$name" &
done
wait
failed=()
for name in "${names[@]}"; do
  if [ -f "$build/logs/$name.result" ]; then cat "$build/logs/$name.result"; else echo "fuzz $name: no result (the runner died)"; fi
  [ "$(cat "$build/logs/$name.rc" 2>/dev/null)" = "0" ] || failed+=("$name")
done
[ ${#failed[@]} -eq 0 ] || { echo "fuzz: failed: ${failed[*]}"; exit 1; }
