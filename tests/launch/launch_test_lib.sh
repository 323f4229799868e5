# Shared by the one-node launch tests: sources cli_test_lib.sh ($T, check, expect), clears the launcher
# variables of the calling shell, and defines W (the test worker), Q (queries of the last --json report),
# L [VAR=value...] ARGS... (launch with a deadline, logs under $T/logs) and marked MARK (how many processes
# hold DD_LAUNCH_TEST_MARK=MARK in their environment: workers and what they started). Set BIN and HERE first.
. "$HERE/cli_test_lib.sh"
export NO_COLOR=1
unset RANK WORLD_SIZE LOCAL_RANK MASTER_ADDR MASTER_PORT SLURM_PROCID OMPI_COMM_WORLD_RANK PMI_RANK PMIX_RANK
W="$HERE/launch/worker.sh"
Q() { python3 "$HERE/launch/query.py" "$@" <"$T/out"; }
L() {
  local envs=()
  while [[ $1 == *=* ]]; do envs+=("$1"); shift; done
  env "${envs[@]}" timeout 60 "$BIN" launch --log-dir "$T/logs" "$@"
}
marked() {
  local p n=0
  for p in /proc/[0-9]*; do grep -qs "DD_LAUNCH_TEST_MARK=$1" "$p/environ" && n=$((n + 1)); done
  echo $n
}
