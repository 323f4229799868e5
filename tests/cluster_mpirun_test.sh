#!/bin/bash
# `mpirun -np 4 distdoctor check` on one machine: the ranks find each other with no flags (meeting point on
# loopback, port derived from the job id) and rank 0 prints one verdict naming 4 ranks.
# Skips (77) without OpenMPI's mpirun. Usage: cluster_mpirun_test.sh path/to/distdoctor
set -u
BIN=$(realpath "${1:-build/distdoctor}")
command -v mpirun >/dev/null || { echo "SKIP: mpirun not installed"; exit 77; }
mpirun --version 2>/dev/null | grep -q "Open MPI" || { echo "SKIP: mpirun is not Open MPI"; exit 77; }
OUT=$(mktemp "${TMPDIR:-/tmp}/ddmpi.XXXXXX")
export XDG_CONFIG_HOME=$(mktemp -d "${TMPDIR:-/tmp}/ddmpi-cfg.XXXXXX")  # the per-user job secret, not the tester's
trap 'rm -rf "$OUT" "$OUT.json" "$XDG_CONFIG_HOME"' EXIT
ROOT=$([ "$(id -u)" = 0 ] && echo --allow-run-as-root)
unset MASTER_ADDR MASTER_PORT RANK WORLD_SIZE
# --oversubscribe: CI machines may have fewer cores than ranks.
# The port is derived from mpirun's job id. Under a parallel ctest another test's ephemeral port can hold it
# (seen once in CI: "bind 127.0.0.1:37706: Address already in use"); the tool then says so, which is right.
# mpirun gives each run a new job id, so one retry picks another port.
for attempt in 1 2; do
  timeout 60 env NO_COLOR=1 mpirun $ROOT --oversubscribe -np 4 "$BIN" check --timeout 20 >"$OUT" 2>&1
  rc=$?
  grep -q "cluster.join.serve_failed" "$OUT" && grep -q "Address already in use" "$OUT" || break
  echo "note: attempt $attempt: the derived port was in use; retrying with a new job id"
done
fail() { echo "FAIL: $1"; cat "$OUT"; exit 1; }
[ $rc -le 2 ] || fail "mpirun exit $rc"
[ "$(grep -c '^verdict:' "$OUT")" = 1 ] || fail "want exactly one verdict"
grep -q "cluster of 1 node(s), 4 process(es)" "$OUT" || fail "no 4-rank cluster title"
grep -q "all 4 processes joined" "$OUT" || fail "not all ranks joined"
grep -q "rank=0 from OMPI_COMM_WORLD_RANK" "$OUT" || fail "rank source not reported"
grep -q "meeting point 127.0.0.1:" "$OUT" || fail "meeting point not reported"
grep -q "\[FAIL\]" "$OUT" && fail "a healthy single-host job failed"
# JSON: rank 0 alone prints it, and it parses.
for attempt in 1 2; do
  timeout 60 mpirun $ROOT --oversubscribe -np 4 "$BIN" check --timeout 20 --json >"$OUT.json" 2>/dev/null
  grep -q "cluster.join.serve_failed" "$OUT.json" || break
done
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert len(j["facts"]["members"])==4, j["facts"]["members"]' \
  "$OUT.json" || fail "JSON is not one report with 4 members"
# --local: one node only, even with a launcher's variables set (returns at once, no rendezvous).
timeout 10 env RANK=1 WORLD_SIZE=2 NO_COLOR=1 "$BIN" check --local >"$OUT" 2>&1
grep -q "^distdoctor check — node" "$OUT" || fail "--local did not run the single-node check"
echo PASS
