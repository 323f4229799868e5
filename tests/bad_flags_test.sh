#!/usr/bin/env bash
# Every bad flag value is refused up front: exit code 3, one line naming the flag, nothing started (NaN
# timeouts, malformed masters, bad sizes, unknown engines and collectives, unwritable --plot, too many nodes,
# more workers than the node's open-file limit allows).
# Usage: tests/bad_flags_test.sh path/to/distdoctor
set -u
BIN=${1:?usage: $0 path/to/distdoctor}
. "$(dirname "$0")/cli_test_lib.sh"

refused() {  # description, flag the message must name, command args...
  local desc=$1 flag=$2
  shift 2
  check "$desc" 3 "$BIN" "$@"
  expect "$desc: message names $flag" "$T/err" "$flag"
}
refused_low_nofile() {  # as refused, with the open-file limit at 1024
  local desc=$1 flag=$2
  shift 2
  check "$desc" 3 bash -c 'ulimit -n 1024 && exec "$0" "$@"' "$BIN" "$@"
  expect "$desc: message names $flag" "$T/err" "$flag"
}

# NaN and other non-finite seconds (CLI::Range lets NaN through).
refused "check --timeout nan" --timeout check --nnodes 2 --timeout nan
refused "check --init-timeout nan" --init-timeout check --collectives --init-timeout nan
refused "check --timeout inf" --timeout check --nnodes 2 --timeout inf
refused "launch --hang-timeout nan" --hang-timeout launch --hang-timeout nan -- touch "$T/started"
refused "launch --grace nan" --grace launch --grace nan -- touch "$T/started"
refused "launch --tee nan" --tee launch --tee nan -- touch "$T/started"
refused "launch --timeout nan" --timeout launch --timeout nan -- touch "$T/started"
# A job id is a folder under --log-dir: "../escape" wrote outside it, 300 characters failed as "status 127".
refused "launch --job-id ../escape" --job-id launch --job-id ../escape -- touch "$T/started"
refused "launch --job-id of 300 characters" --job-id launch --job-id "$(printf 'j%.0s' $(seq 300))" -- touch "$T/started"
refused "bench --timeout nan" --timeout bench --engine gloo --timeout nan
refused "bench --init-timeout nan" --init-timeout bench --engine gloo --init-timeout nan
refused "bench --step-factor nan" --step-factor bench --engine gloo -f nan

# Malformed --master: no port, port 0 or > 65535, empty host, etcd:// without a host.
for m in 198.18.0.1 198.18.0.1:0 198.18.0.1:70000 :29500 etcd:// etcd://:2379 host:abc; do
  refused "check --master $m" --master check --nnodes 2 --node-rank 1 --master "$m"
  refused "launch --master $m" --master launch --nnodes 2 --node-rank 1 --master "$m" -- touch "$T/started"
done

# Sizes, engines, collectives, dtypes.
refused "bench -b nan" --min-bytes bench --engine gloo -b nan
refused "bench -b 8X" --min-bytes bench --engine gloo -b 8X
refused "bench -e 1e9" --max-bytes bench --engine gloo -e 1e9
refused "bench -e -8M" --max-bytes bench --engine gloo -e -8M
refused "bench --tune-bytes abc" --tune-bytes bench --engine gloo --tune --tune-bytes abc
refused "bench --gpus 0,x,1" --gpus bench --engine gloo --gpus 0,x,1
refused "bench --engine mpi" --engine bench --engine mpi
refused "check --engine mpi" --engine check --collectives --engine mpi
refused "bench -c foo" --collective bench --engine gloo -c foo
refused "bench -c all_reduce,foo" --collective bench --engine gloo -c all_reduce,foo
refused "bench -c foo --quick" --collective bench --engine gloo --quick -c foo
refused "bench -d complex" --dtype bench --engine gloo -d complex

# An unwritable --plot is refused before the run.
refused "bench --plot unwritable" --plot bench --engine gloo -b 8 -e 8 -n 1 -w 0 --plot "$T/no/such/dir/p.svg"

# Beyond the store: refused up front with the limit.
refused "check --nnodes 1000000" --nnodes check --nnodes 1000000
expect "check --nnodes names the limit" "$T/err" "60000"
refused "launch --nnodes 1000000" --nnodes launch --nnodes 1000000 -- touch "$T/started"

# Beyond the machine: thousands of workers on a node whose open-file limit is 1024.
refused "launch --nproc-per-node 5000" --nproc-per-node launch --nproc-per-node 5000 -- touch "$T/started"
refused_low_nofile "launch --nproc-per-node 3000 (ulimit -n 1024)" --nproc-per-node launch --nproc-per-node 3000 -- touch "$T/started"
refused_low_nofile "bench --nproc 3000 (ulimit -n 1024)" --nproc bench --engine gloo --nproc 3000

# A node that joins without the job token stops before it connects: the store refuses empty tokens.
check "check node without a token" 3 env -u DISTDOCTOR_TOKEN "$BIN" check --nnodes 2 --node-rank 1 --master 198.18.0.1:29500
expect "check node without a token: says so" "$T/err" "no job token"
check "launch node without a token" 3 env -u DISTDOCTOR_TOKEN "$BIN" launch --nnodes 2 --node-rank 1 --master 198.18.0.1:29500 -- touch "$T/started"
expect "launch node without a token: says so" "$T/out" "no job token"
expect "launch node without a token: the sentence is not redacted" "$T/out" "The store refuses nodes without it"
# A node other than rank 0 needs its own command: no node runs one it read from the store (it used to adopt
# node rank 0's).
check "launch node without a command" 3 env DISTDOCTOR_TOKEN=0123456789abcdef0123 "$BIN" launch --nnodes 2 \
  --node-rank 1 --master 198.18.0.1:29500
expect "launch node without a command: says so" "$T/err" "each node runs its own command line"
# A launcher job with no token and no place for the per-user secret stops with the command that makes one.
check "launcher job without HOME" 3 env -u DISTDOCTOR_TOKEN -u HOME -u XDG_CONFIG_HOME OMPI_COMM_WORLD_RANK=1 \
  OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=1 OMPI_COMM_WORLD_LOCAL_SIZE=2 OMPI_MCA_ess_base_jobid=77 \
  "$BIN" check --timeout 2
expect "launcher job without HOME: the command to run" "$T/err" "umask 077; openssl rand -hex 32 >"
# A one-letter token is accepted but named as easy to guess (it was accepted without a word).
check "check node with a 1-character token" 2 env DISTDOCTOR_TOKEN=x "$BIN" check --nnodes 2 --node-rank 1 \
  --master 198.18.0.1:1 --timeout 1
expect "short token: said" "$T/err" "is only 1 character: easy to guess"

if [ -e "$T/started" ]; then
  echo "FAIL: a refused launch started its command"
  fails=$((fails + 1))
fi
cli_finish bad_flags_test
