#!/usr/bin/env bash
# scripts/layers.py can fail: on a small tree of its own it rejects an include that points up the layers, a
# file read outside probe/dynlib, a process started outside process/, and a listed breach that is gone; it
# passes the same tree once each breach is listed. Usage: tests/layers_lint_test.sh [distdoctor, unused]
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/tests/cli_test_lib.sh"
mkdir -p "$T/tree/src/rules" "$T/tree/src/probe" "$T/tree/src/report" "$T/tree/scripts"
printf '#include "cluster/join.h"\n' >"$T/tree/src/rules/up.cc"
printf '#include "report/finding.h"\nstd::ifstream f("x");\n' >"$T/tree/src/report/reads.cc"
printf 'int main() { return fork(); }\n' >"$T/tree/src/probe/spawns.cc"
printf '#include "rules/x.h"\nstd::ifstream g;  // a probe may read files\n' \
  >"$T/tree/src/probe/ok.cc"
: >"$T/tree/scripts/layer_exceptions.txt"
lint() { DD_LAYERS_ROOT="$T/tree" python3 "$ROOT/scripts/layers.py"; }
check "an unlisted breach fails" 1 lint
expect_out "the upward include is named" "src/rules/up.cc -> includes cluster/"
expect_out "the file read is named" "src/report/reads.cc -> reads a file"
expect_out "the process start is named" "src/probe/spawns.cc -> starts a process"
cp "$T/out" "$T/first"
expect "a probe including rules/ is an upward include too" "$T/first" "src/probe/ok.cc -> includes rules/"
check "a probe may read files" 1 grep -q "src/probe/ok.cc -> reads" "$T/first"
{ echo "src/rules/up.cc -> includes cluster/  # test"; echo "src/report/reads.cc -> reads a file  # test"
  echo "src/probe/spawns.cc -> starts a process  # test"; echo "src/probe/ok.cc -> includes rules/  # test"; } \
  >"$T/tree/scripts/layer_exceptions.txt"
check "every breach listed: passes" 0 lint
rm "$T/tree/src/probe/spawns.cc"
check "a listed breach that is gone fails" 1 lint
expect_out "it says to remove the line" "no longer happens"
# comm/ is split by job: an engine may not include the code that runs a pass, which may not include comm/'s top.
mkdir -p "$T/tree/src/comm/engine" "$T/tree/src/comm/run"
printf '#include "comm/run/plan.h"\n' >"$T/tree/src/comm/engine/up.cc"
printf '#include "comm/engine/engine.h"\n#include "comm/bench.h"\n' >"$T/tree/src/comm/run/mixed.cc"
check "comm sub-layers: an upward include fails" 1 lint
expect_out "comm/engine including comm/run is named" "src/comm/engine/up.cc -> includes comm/run/"
expect_out "comm/run including comm/ is named" "src/comm/run/mixed.cc -> includes comm/"
check "comm/run including comm/engine is fine" 1 grep -q "mixed.cc -> includes comm/engine" "$T/out"
cli_finish layers_lint_test
