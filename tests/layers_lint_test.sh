#!/usr/bin/env bash
# scripts/layers.py can fail: on a small tree of its own it rejects an include that points up the layers, a
# file read, written, listed or opened outside probe/dynlib/process, a process started outside process/, a
# function over 60 lines, and a listed breach that is gone; it passes the same tree once each breach is
# listed. Usage: tests/layers_lint_test.sh [distdoctor, unused]
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
# Every file access outside probe/, dynlib/ and process/: writes, listings, raw opens, std::filesystem, and
# common/'s careful openers; not our own functions of the same names, nor a path that is only named.
mkdir -p "$T/tree/src/launch" "$T/tree/src/common" "$T/tree/src/process"
printf 'void f() { int fd = ::open(p, O_RDONLY); }\n' >"$T/tree/src/launch/opens.cc"
printf 'void f() { DIR* d = opendir(p); }\n' >"$T/tree/src/launch/lists.cc"
printf 'void f() { for (auto& e : fs::directory_iterator(p)) {} }\n' >"$T/tree/src/launch/iterates.cc"
printf 'void f() { ::unlink(p); }\n' >"$T/tree/src/launch/unlinks.cc"
printf 'void f() { std::ofstream o("x"); }\n' >"$T/tree/src/launch/ofstream.cc"
printf 'void f() { std::filesystem::create_directories(p); }\n' >"$T/tree/src/launch/mkdirs.cc"
printf 'void f() { (void)write_file_atomically(p, "x"); }\n' >"$T/tree/src/launch/atomic.cc"
printf 'Status remove(const std::string& key);\nvoid f() { s.remove(k); Store::open(u); }\n%s\n%s\n' \
  'std::filesystem::path p = std::filesystem::path(d) / "x";' 'const char* t = "with open(p) as f: os.unlink(p)";' \
  >"$T/tree/src/launch/own_names.cc"
printf 'Status write_file_atomically(const std::string& p);\nvoid g() { ::unlink(p); }\n' \
  >"$T/tree/src/common/atomic_file.cc"
printf 'void f() { ::open("/dev/null", O_RDWR); }\n' >"$T/tree/src/process/child.cc"
printf 'void f() { ::mkdir(p, 0755); }\n' >"$T/tree/src/probe/writes.cc"
check "file accesses outside probe/: fails" 1 lint
expect_out "a raw open is named" "src/launch/opens.cc -> opens a file"
expect_out "opendir is a listing" "src/launch/lists.cc -> lists a folder"
expect_out "a directory_iterator is a listing" "src/launch/iterates.cc -> lists a folder"
expect_out "unlink is a write" "src/launch/unlinks.cc -> writes a file"
expect_out "an ofstream is a write" "src/launch/ofstream.cc -> writes a file"
expect_out "create_directories is a write" "src/launch/mkdirs.cc -> writes a file"
expect_out "common's atomic writer is a write" "src/launch/atomic.cc -> writes a file"
cp "$T/out" "$T/access"
check "our own remove/open, a path and a string are no access" 1 grep -q "own_names.cc" "$T/access"
check "common's careful openers may touch files" 1 grep -q "common/atomic_file.cc" "$T/access"
check "process/ may open a child's descriptors" 1 grep -q "process/child.cc" "$T/access"
check "probe/ may write" 1 grep -q "probe/writes.cc" "$T/access"
rm "$T"/tree/src/launch/{opens,lists,iterates,unlinks,ofstream,mkdirs,atomic}.cc
# Functions over 60 lines, counted between the braces; 60 is fine; a class's member is named with its class.
body() { for i in $(seq "$1"); do echo "  x += $i;"; done; }
{ echo "namespace dd {"; echo "int fine() {"; body 60; echo "}"; echo "struct Agent {";
  echo "  void start_workers() const {"; body 61; echo "  }"; echo "};"; echo "}  // namespace dd"; } \
  >"$T/tree/src/launch/long.cc"
check "a function over 60 lines fails" 1 lint
expect_out "it is named with its class" "src/launch/long.cc:Agent::start_workers -> too long"
check "60 lines is fine" 1 grep -q "long.cc:fine" "$T/out"
# A table (an initializer and its return: data, not logic) may be longer; 4 statements are logic again.
rows() { for i in $(seq "$1"); do echo "      {\"id.$i\", \"title; with a semicolon\"},"; done; }
{ echo "namespace dd {"; echo "const std::vector<Doc>& docs() {"; echo "  static const std::vector<Doc> d = {";
  rows 70; echo "  };"; echo "  return d;"; echo "}"; echo "}  // namespace dd"; } >"$T/tree/src/launch/table.cc"
lint >"$T/table_out" 2>&1
check "a 70-line table is not too long" 1 grep -q "table.cc" "$T/table_out"
{ echo "namespace dd {"; echo "int busy() {"; echo "  int a = 0;"; echo "  int b = 0;"; echo "  int c = 0;";
  echo "  int d = 0;"; for i in $(seq 60); do echo "  // $i"; done; echo "  return a + b + c + d;"; echo "}";
  echo "}  // namespace dd"; } >"$T/tree/src/launch/busy.cc"
check "five statements over 60 lines fail" 1 lint
expect_out "five statements over 60 lines are too long" "src/launch/busy.cc:busy -> too long"
rm "$T/tree/src/launch/table.cc" "$T/tree/src/launch/busy.cc"
echo "src/launch/long.cc:Agent::start_workers -> too long  # test" >>"$T/tree/scripts/layer_exceptions.txt"
check "the comm sub-layer breaches still fail" 1 lint
check "listed: the long function passes" 1 grep -q "long.cc" "$T/out"
cli_finish layers_lint_test
