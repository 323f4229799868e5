#!/usr/bin/env bash
# Secrets planted everywhere a user keeps them (secret-named variables in any case, NCCL-prefixed ones,
# URLs with passwords, nccl.conf, logs, the command line of a launched job) must not reach any output:
# facts, check and logs in text and JSON, launch's report and its records on disk. Every output is grepped.
# Usage: tests/secrets_test.sh path/to/distdoctor
set -u
BIN=${1:?usage: $0 path/to/distdoctor}
. "$(dirname "$0")/cli_test_lib.sh"
export NO_COLOR=1
unset RANK WORLD_SIZE LOCAL_RANK MASTER_ADDR MASTER_PORT SLURM_PROCID OMPI_COMM_WORLD_RANK PMI_RANK PMIX_RANK

cat >"$T/nccl.conf" <<'CONF'
NCCL_DEBUG=WARN
NCCL_NET_TOKEN=s3cr3t-conf1
NCCL_DEBUG_FILE=https://alice:s3cr3t-conf2@logs.example/nccl
CONF
cat >"$T/job.log" <<'LOG'
[rank0]: connecting to https://bob:s3cr3t-log1@store.example:443/x
[rank0]: export HF_TOKEN=s3cr3t-log2
[rank0]: curl -H "Authorization: Bearer s3cr3t-log3" https://api.example
node1:123:456 [0] NCCL INFO NET/Socket : Using [0]eth0:198.18.0.1<0>
node1:123:456 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 198.18.0.2<35515> failed : Connection refused
[rank0]: password=s3cr3t-log4
LOG
printf 'echo "see https://carol:s3cr3t-out1@example"; exit 3\n' >"$T/fail.sh"
# launch exits 4 for a failed job, whatever the worker's own code (3 here, which alone would read as "could not run").
# A worker that prints a secret's value where nothing names it (issue 28: it reached the report 9 times).
printf 'echo "bad key s3cr3t-env1, giving up" >&2; exit 4\n' >"$T/leak.sh"

planted=(env WANDB_API_KEY=s3cr3t-env1 hf_token=s3cr3t-env2 NCCL_IB_SECRET=s3cr3t-env3
         NCCL_COMM_ID_URL=https://dave:s3cr3t-env4@198.18.0.9/x Db_Password=s3cr3t-env5
         TORCH_HUB_URL=https://erin:s3cr3t-env6@hub.example NCCL_CONF_FILE="$T/nccl.conf")
run() {  # name, expected exit codes (regex), command... : output to $T/outputs/name.{out,err}
  local name=$1 want=$2
  shift 2
  "${planted[@]}" "$@" >"$T/outputs/$name.out" 2>"$T/outputs/$name.err"
  local rc=$?
  if [[ ! $rc =~ ^($want)$ ]]; then
    echo "FAIL: $name: exit $rc, want $want"; head -5 "$T/outputs/$name.out" "$T/outputs/$name.err"
    fails=$((fails + 1))
  else
    echo "ok: $name ran (exit $rc)"
  fi
}
mkdir -p "$T/outputs"
run facts 0 "$BIN" facts
run facts_json 0 "$BIN" facts --json
run check '0|1|2' "$BIN" check
run check_json '0|1|2' "$BIN" check --json
run logs '0|1|2' "$BIN" logs "$T/job.log"
run logs_json '0|1|2' "$BIN" logs --json "$T/job.log"
run launch 4 "$BIN" launch --log-dir "$T/launch" -- sh "$T/fail.sh" --api-key s3cr3t-arg1 --password=s3cr3t-arg2
run launch_json 4 "$BIN" launch --json --log-dir "$T/launch" -- sh "$T/fail.sh" --api-key s3cr3t-arg1
run launch_value 4 "$BIN" launch --json --log-dir "$T/launch" -- sh "$T/leak.sh"

# Something must have been shown, or the grep below proves nothing: the planted names and redactions appear.
expect "facts name the NCCL config file's settings" "$T/outputs/facts_json.out" "NCCL_DEBUG"
expect "facts keep the URL, without its password" "$T/outputs/facts_json.out" "dave:<redacted>@198.18.0.9"
expect "logs show the connection failure" "$T/outputs/logs.out" "Connection refused"
expect "launch names the failed rank" "$T/outputs/launch.out" "launch.rank.failed"
expect "launch shows the command, redacted" "$T/outputs/launch.out" "--api-key <redacted>"
expect "the worker's line is shown, the value hidden" "$T/outputs/launch_value.out" "bad key <redacted>, giving up"
# The tool's own sentences keep their words: only untrusted text loses the word a secret word announces
# (issue 28: this note read "pass --token <redacted> DISTDOCTOR_TOKEN").
env OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=0 OMPI_COMM_WORLD_LOCAL_SIZE=2 \
  OMPI_MCA_ess_base_jobid=4242 XDG_CONFIG_HOME="$T/config" "${planted[@]}" "$BIN" check --timeout 1 \
  >"$T/outputs/check_launcher.out" 2>&1
expect "a tool sentence is not redacted" "$T/outputs/check_launcher.out" "job token derived from the job id and your secret in"
# Every output distdoctor wrote: stdout, stderr, and its records under the log dir (not the workers' own
# logs: those hold what the user's program printed, byte for byte).
leaks=$(grep -rl "s3cr3t" "$T/outputs" $(find "$T/launch" -type f ! -name '*.log' 2>/dev/null))
if [ -n "$leaks" ]; then
  echo "FAIL: a planted secret reached an output:"
  grep -rn "s3cr3t" $leaks | head -20
  fails=$((fails + 1))
else
  echo "ok: no planted secret in $(ls "$T/outputs" | wc -l) outputs (and nothing else launch wrote under its log dir)"
fi
cli_finish secrets_test
