#!/usr/bin/env bash
# `distdoctor explain ID` says an entry's roles from data/known_errors.json (docs/catalogue.md): a consequence
# and what it usually follows from, a hang trigger and its kind, a peer failure; an entry with no finding role
# is explained by id but never matches pasted text.
# Usage: tests/explain_roles_test.sh path/to/distdoctor
set -u
BIN=${1:?usage: $0 path/to/distdoctor}
. "$(dirname "$0")/cli_test_lib.sh"

check "a consequence that is also a hang trigger" 0 "$BIN" explain pytorch.comm_aborted
expect "its finding role" "$T/out" "Role: a consequence"
expect "what it follows from" "$T/out" "such as pytorch.watchdog_timeout, nccl.remote_closed"
expect "its hang trigger kind" "$T/out" "a hang trigger (comm_error)"
check "a role-only entry by id" 0 "$BIN" explain pytorch.watchdog_stuck
expect "its role" "$T/out" "a hang trigger (abort)"
expect "no finding of its own" "$T/out" "never a finding of its own"
check "a peer failure in JSON" 0 "$BIN" explain --json nccl.peer_connection_lost
expect "the role as evidence" "$T/out" "role: a peer failure (lost_peer)"
check "a plain cause says no role" 0 "$BIN" explain nccl.duplicate_gpu
if grep -q "Role:" "$T/out"; then
  echo "FAIL: a cause printed a role"
  fails=$((fails + 1))
else
  echo "ok: no role line for a cause"
fi
# The line of a role-only entry is no finding of `explain TEXT` (exit 1: no reading).
check "a hang trigger's line is no finding" 1 "$BIN" explain \
  "[PG ID 0 PG GUID 0(default_pg) Rank 0] Observed flight recorder dump signal from another rank via TCPStore."

cli_finish explain_roles_test
