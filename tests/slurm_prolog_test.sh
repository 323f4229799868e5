#!/usr/bin/env bash
# The documented Slurm prolog (packaging/slurm/distdoctor-prolog.sh, docs/slurm.md) run as Slurm would run it,
# with a stand-in scontrol that records its arguments: this machine's own check (no failing finding on a
# healthy CI machine) drains nothing; a failing node (recorded facts with NCCL_SOCKET_IFNAME set to an IP) is
# drained once with distdoctor's one-line reason and the prolog exits 1; a check that cannot run drains nothing.
# Usage: tests/slurm_prolog_test.sh path/to/distdoctor
set -u
BIN=$(realpath "${1:?usage: $0 path/to/distdoctor}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/tests/cli_test_lib.sh"
PROLOG=$ROOT/packaging/slurm/distdoctor-prolog.sh
unset RANK WORLD_SIZE LOCAL_RANK MASTER_ADDR MASTER_PORT SLURM_PROCID OMPI_COMM_WORLD_RANK PMI_RANK PMIX_RANK
mkdir -p "$T/bin"
cat >"$T/bin/scontrol" <<'SC'
#!/bin/sh
for a in "$@"; do printf '%s\n' "$a"; done >>"$SCONTROL_LOG"
echo "--" >>"$SCONTROL_LOG"
SC
chmod +x "$T/bin/scontrol"
export SCONTROL="$T/bin/scontrol" SLURMD_NODENAME=gpu-node-7
prolog() {  # name, env assignments...: runs the prolog with a fresh scontrol log
  local name=$1
  shift
  export SCONTROL_LOG="$T/$name.scontrol"
  : >"$SCONTROL_LOG"
  env "$@" DISTDOCTOR="${DD_PROLOG_BIN:-$BIN}" bash "$PROLOG" >"$T/$name.out" 2>"$T/$name.err"
  echo $? >"$T/$name.rc"
}

# 1. This node as it is: no failing finding here (warnings such as "no NVIDIA driver" do not drain).
prolog healthy
[ "$("$BIN" check --local --fail-on fail >/dev/null 2>&1; echo $?)" = 0 ] || echo "note: this machine fails its own check"
if [ "$(cat "$T/healthy.rc")" = 0 ] && [ ! -s "$T/healthy.scontrol" ]; then
  echo "ok: a node without a failing finding is not drained"
else
  echo "FAIL: healthy node: prolog exit $(cat "$T/healthy.rc"), scontrol calls:"; cat "$T/healthy.scontrol" "$T/healthy.err"
  fails=$((fails + 1))
fi

# 2. A failing node: drained once, State=DRAIN, one reason line naming the finding; the prolog exits 1.
prolog failing DISTDOCTOR_ARGS="--facts $ROOT/fixtures/facts/ifname_is_ip.json"
check "the prolog of a failing node exits 1" 0 test "$(cat "$T/failing.rc")" = 1
check "scontrol was called once" 0 test "$(grep -c '^--$' "$T/failing.scontrol")" = 1
expect "scontrol named the node" "$T/failing.scontrol" "NodeName=gpu-node-7"
expect "scontrol drained it" "$T/failing.scontrol" "State=DRAIN"
expect "the reason names the finding" "$T/failing.scontrol" "[net.socket_ifname.is_ip]"
reason=$(grep '^Reason=' "$T/failing.scontrol")
check "the reason is one line of at most 207 characters" 0 test "$(grep -c '^Reason=' "$T/failing.scontrol")" = 1 -a \
  "${#reason}" -le 207
check "the reason holds no character a shell expands" 0 bash -c '! grep "^Reason=.*[\"\$\`\\\\]" "$1"' _ "$T/failing.scontrol"
expect "the prolog printed the reason, counts first" "$T/failing.err" "distdoctor check: fail (1 fail"

# 3. --fail-on warn: a node with only a warning is drained too.
prolog warn DISTDOCTOR_FAIL_ON=warn DISTDOCTOR_ARGS="--facts $ROOT/fixtures/facts/docker_shm_64m.json"
check "with DISTDOCTOR_FAIL_ON=warn a warning drains" 0 test "$(cat "$T/warn.rc")" = 1
expect "its reason names the warning" "$T/warn.scontrol" "[sys.shm.small]"

# 4. The check cannot run (no such binary; an unreadable facts file): nothing drained, exit 0, a message.
DD_PROLOG_BIN="$T/no-such-distdoctor" prolog missing
check "a missing binary does not fail the prolog" 0 test "$(cat "$T/missing.rc")" = 0
check "a missing binary drains nothing" 1 test -s "$T/missing.scontrol"
expect "it says why" "$T/missing.err" "could not run"
prolog unreadable DISTDOCTOR_ARGS="--facts $T/absent.json"
check "an unreadable input drains nothing" 1 test -s "$T/unreadable.scontrol"
check "and the prolog exits 0" 0 test "$(cat "$T/unreadable.rc")" = 0
cli_finish slurm_prolog_test
