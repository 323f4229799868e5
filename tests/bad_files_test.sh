#!/usr/bin/env bash
# Non-regular and oversized inputs end quickly with a clear message: a FIFO or a device given as
# NCCL_CONF_FILE, `check --facts` or a `logs` input, and a gzip bomb given to `logs`; JSON nested 100,000 deep
# as --facts; a FIFO, /dev/zero or an oversized file as launch's --token-file; output to a full device. Each command runs under
# `timeout 20`: exit 124 means it hung (the defect this test guards against).
# Usage: tests/bad_files_test.sh path/to/distdoctor
set -u
BIN=${1:?usage: $0 path/to/distdoctor}
. "$(dirname "$0")/cli_test_lib.sh"
mkfifo "$T/fifo"

check "logs FIFO: refused (nothing readable)" 3 timeout 20 "$BIN" logs "$T/fifo"
expect "logs FIFO: says what it is" "$T/err" "is a FIFO, not a regular file"
check "logs FIFO --json: input-error finding" 3 timeout 20 "$BIN" logs --json "$T/fifo"
expect_out "logs FIFO --json: logs.input.unreadable" "logs.input.unreadable"
expect_out "logs FIFO --json: the reason" "is a FIFO, not a regular file"
check "logs /dev/zero: refused" 3 timeout 20 "$BIN" logs /dev/zero
expect "logs /dev/zero: says what it is" "$T/err" "is a character device, not a regular file"

check "check --facts FIFO: input error" 3 timeout 20 "$BIN" check --facts "$T/fifo"
expect "check --facts FIFO: says what it is" "$T/err" "is a FIFO, not a regular file"
check "check --facts /dev/zero: input error" 3 timeout 20 "$BIN" check --facts /dev/zero
expect "check --facts /dev/zero: says what it is" "$T/err" "is a character device, not a regular file"

for conf in "$T/fifo" /dev/zero; do
  NCCL_CONF_FILE="$conf" timeout 20 "$BIN" check --json >"$T/out" 2>"$T/err"
  rc=$?
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    echo "FAIL: NCCL_CONF_FILE=$conf check: hung (exit $rc)"; fails=$((fails + 1))
  else
    echo "ok: NCCL_CONF_FILE=$conf check ends (exit $rc)"
  fi
  expect_out "NCCL_CONF_FILE=$conf: probe error names it" "$conf is a"
  expect_out "NCCL_CONF_FILE=$conf: not a regular file" "not a regular file"
done

# A gzip bomb: 200 MB of zeros is about 200 KB compressed (1000x); it is cut at the expansion cap.
head -c 200M /dev/zero | gzip -c >"$T/bomb.log.gz"
start=$(date +%s)
timeout 20 "$BIN" logs --json "$T/bomb.log.gz" >"$T/out" 2>"$T/err"
rc=$?
echo "gzip bomb: exit $rc in $(($(date +%s) - start)) s"
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then echo "FAIL: gzip bomb: hung"; fails=$((fails + 1)); fi
expect_out "gzip bomb: logs.input.unreadable" "logs.input.unreadable"
expect_out "gzip bomb: says it was cut" "decompression stopped after"
# JSON nested 100,000 deep (it crashed the parser with SIGSEGV, also the master's for a peer's facts): refused.
python3 -c "print('['*100000 + ']'*100000)" >"$T/deep.json"
check "check --facts, 100,000 nested arrays: input error" 3 timeout 20 "$BIN" check --facts "$T/deep.json"
expect "deep JSON: says why" "$T/err" "JSON nested deeper than 64 levels"

# --token-file naming a FIFO (hung past --timeout) or /dev/zero (grew to 24 GB): refused at once.
for tok in "$T/fifo" /dev/zero; do
  check "launch --token-file $tok: refused" 3 timeout 20 "$BIN" launch --nnodes 2 --node-rank 1 \
    --master 198.18.0.1:29600 --token-file "$tok" --timeout 5 --nproc-per-node 1 -- true
  expect "token file $tok: says what it is" "$T/out" "not a regular file"
done
printf '%5000s' x >"$T/big.token"
check "launch --token-file over 4 KiB: refused" 3 timeout 20 "$BIN" launch --nnodes 2 --node-rank 1 \
  --master 198.18.0.1:29600 --token-file "$T/big.token" --timeout 5 --nproc-per-node 1 -- true
expect "big token file: says why" "$T/out" "more than 4 KiB"

# Output that cannot be written is an error (it was exit 0): /dev/full takes nothing.
if [ -w /dev/full ]; then
  for cmd in "facts --json" "check --facts $(dirname "$0")/../fixtures/facts/healthy/h100x4.json --json" "explain nccl.duplicate_gpu"; do
    timeout 20 "$BIN" $cmd >/dev/full 2>"$T/err"
    rc=$?
    [ $rc = 3 ] && grep -q "could not write the output" "$T/err" && echo "ok: $cmd >/dev/full: exit 3, said why" ||
      { echo "FAIL: $cmd >/dev/full: exit $rc: $(cat "$T/err")"; fails=$((fails + 1)); }
  done
else
  echo "note: /dev/full is not writable here: the output-error checks did not run"
fi

cli_finish bad_files_test
