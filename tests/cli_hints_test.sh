#!/usr/bin/env bash
# torchrun habits on distdoctor's command line (issue 40): torchrun's spellings of launch's and check's flags
# work as the documented ones (--nproc_per_node, --node_rank, --max_restarts, --log_dir, --master_addr with
# --master_port), launch's command without "--" gets the corrected line, and a mistyped command, flag or finding
# id gets "did you mean" (exit 3 for a usage error, 1 for an id explain cannot read, as before).
# Usage: tests/cli_hints_test.sh path/to/distdoctor
set -u
BIN=$(realpath "${1:-build/distdoctor}")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/cli_test_lib.sh"
export NO_COLOR=1
unset RANK WORLD_SIZE LOCAL_RANK MASTER_ADDR MASTER_PORT SLURM_PROCID OMPI_COMM_WORLD_RANK PMI_RANK PMIX_RANK
not_in() {  # description, file, text that must not be in it
  if grep -qF -- "$3" "$2"; then echo "FAIL: $1: '$3' in $2"; cat "$2"; fails=$((fails + 1)); else echo "ok: $1"; fi
}

# torchrun's spellings: two workers, the log folder, the restarts, as with --nproc-per-node and --log-dir.
check "launch --nproc_per_node 2 --log_dir --max_restarts" 0 "$BIN" launch --nproc_per_node 2 --log_dir "$T/logs" \
  --max_restarts 0 --job-id tr --tee all -- sh -c 'echo "rank $RANK of $WORLD_SIZE, restarts $TORCHELASTIC_MAX_RESTARTS"'
expect_out "two workers started" "rank 1 of 2, restarts 0"
expect "rank 1 logs under --log_dir" "$T/logs/tr/0/node0.rank1.log" "rank 1 of 2"
check "check --nproc_per_node 4 on 2 GPUs" 2 "$BIN" check --facts "$HERE/../fixtures/facts/healthy_2gpu.json" \
  --nproc_per_node 4
expect_out "check took the count" "cuda.visible_devices.too_few"
# --master_addr with --master_port is --master HOST:PORT (port 9 on loopback refuses: the join names it).
for sub in launch check; do
  cmd=(); want=2
  [ $sub = launch ] && { cmd=(-- true); want=3; }
  check "$sub --node_rank 1 --master_addr --master_port" $want env DISTDOCTOR_TOKEN=0123456789abcdef0123 \
    "$BIN" $sub --nnodes 2 --node_rank 1 --master_addr 127.0.0.1 --master_port 9 --timeout 1 "${cmd[@]}"
  expect_out "$sub: joins the master they name" "cannot reach the master 127.0.0.1:9"
  check "$sub --master_port alone" 3 "$BIN" $sub --nnodes 2 --node_rank 1 --master_port 9 "${cmd[@]}"
  expect "$sub --master_port alone: names --master-addr" "$T/err" "needs --master-addr"
  check "$sub --master_addr alone" 3 "$BIN" $sub --nnodes 2 --node_rank 1 --master_addr 127.0.0.1 "${cmd[@]}"
  expect "$sub --master_addr alone: names --master-port" "$T/err" "needs --master-port"
  check "$sub --master with --master_addr" 3 "$BIN" $sub --nnodes 2 --master 127.0.0.1:9 \
    --master_addr 127.0.0.1 --master_port 9 "${cmd[@]}"
  expect "$sub --master with --master_addr: refused" "$T/err" "excludes"
done
check "launch --master_port alone on one node" 3 "$BIN" launch --master_port 29500 -- touch "$T/started"
expect "launch --master_port alone: --job-port named" "$T/err" "--job-port fixes it"

# launch's command without "--": the line with it, nothing started.
check "launch python3 train.py" 3 "$BIN" launch --nproc_per_node 2 touch "$T/started"
expect "says where the command goes" "$T/err" "distdoctor launch: the command to run goes after --:"
expect "shows the corrected line" "$T/err" "  distdoctor launch --nproc_per_node 2 -- touch $T/started"
not_in "not CLI11's message" "$T/err" "not expected"
[ ! -e "$T/started" ] && echo "ok: nothing started" || { echo "FAIL: the command ran"; fails=$((fails + 1)); }
check "the command's own flags stay with it" 3 "$BIN" launch python3 train.py --lr 3e-4
expect "the command's flags after --" "$T/err" "distdoctor launch -- python3 train.py --lr 3e-4"
not_in "--lr is not called launch's" "$T/err" "unknown flag"

# "Did you mean": commands, flags (CLI11's and the verbatim subcommands'), finding ids; garbage gets none.
check "distdoctor chek" 3 "$BIN" chek
expect "chek: check" "$T/err" "distdoctor: unknown command \"chek\"; did you mean check?"
check "distdoctor xyzzy" 3 "$BIN" xyzzy
expect "garbage: the commands listed" "$T/err" "(the commands: check, facts, explain, logs, bench, launch)"
not_in "garbage: no guess" "$T/err" "did you mean"
check "check --colectives" 3 "$BIN" check --colectives
expect "--colectives: --collectives" "$T/err" "distdoctor check: unknown flag --colectives; did you mean --collectives?"
check "launch --hang-timout" 3 "$BIN" launch --hang-timout 5 -- touch "$T/started"
expect "--hang-timout: --hang-timeout" "$T/err" "did you mean --hang-timeout?"
check "explain --lst" 3 "$BIN" explain --lst
expect "--lst: --list" "$T/err" "did you mean --list?"
check "explain gpu.nvml_misng" 1 "$BIN" explain gpu.nvml_misng
expect "the id meant" "$T/err" "distdoctor explain: no finding id \"gpu.nvml_misng\"; did you mean gpu.nvml_missing?"
check "explain a message that matches nothing" 1 "$BIN" explain "zzz qqq"
expect "a message: no reading, no guess" "$T/err" "no reading for"
not_in "a message: no guess" "$T/err" "did you mean"
check "explain gpu.nvml_missing still explains" 0 "$BIN" explain gpu.nvml_missing
expect_out "its long form" "gpu.nvml_missing:"

# Bash completion lists the documented spellings, not torchrun's cut at their first '_'.
complete_words() {
  bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _distdoctor; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$HERE/../packaging/distdoctor.bash" "$@"
}
complete_words "$BIN" launch --nproc >"$T/c1"
[ "$(cat "$T/c1")" = "--nproc-per-node" ] && echo "ok: completion: --nproc-per-node only" ||
  { echo "FAIL: completion of --nproc: $(tr '\n' ' ' <"$T/c1")"; fails=$((fails + 1)); }
complete_words "$BIN" check --master >"$T/c2"
expect "completion: --master-addr" "$T/c2" "--master-addr"
not_in "completion: no --master_addr" "$T/c2" "--master_addr"

cli_finish cli_hints_test
