#!/usr/bin/env bash
# A /proc file that says it is regular but blocks (/proc/kmsg: size 0, a read waits for the next kernel
# message) ends by the reader's deadline with a message, never hangs: given to `check --facts`, to
# `--token-file`, or linked into a folder given to `logs` (the deadline was checked only between reads).
# Root only: reading /proc/kmsg returns the messages not yet read, then blocks; it takes those messages from
# whoever else reads /proc/kmsg (a syslog daemon), acceptable on a test machine.
# Usage: tests/proc_kmsg_test.sh path/to/distdoctor
set -u
BIN=${1:?usage: $0 path/to/distdoctor}
if ! python3 -c 'import os; os.close(os.open("/proc/kmsg", os.O_RDONLY | os.O_NONBLOCK))' 2>/dev/null \
  || [ ! -f /proc/kmsg ]; then
  echo "SKIP: /proc/kmsg cannot be opened here (needs root or CAP_SYSLOG, and a /proc that has it)"
  exit 77
fi
. "$(dirname "$0")/cli_test_lib.sh"

ends_within 20 "check --facts /proc/kmsg ends" "blocks" "$BIN" check --facts /proc/kmsg
mkdir -p "$T/logs"
cp "$(dirname "$0")/../fixtures/logs/healthy/nccl.gpu-node-1.12345.log" "$T/logs/rank0.log"
ln -s /proc/kmsg "$T/logs/kmsg.log"
ends_within 20 "logs on a folder with a link to /proc/kmsg ends" "blocks" "$BIN" logs "$T/logs"
expect "the other log is still read" "$T/out" "rank0.log"
ends_within 20 "--token-file /proc/kmsg ends" "token file /proc/kmsg" \
  "$BIN" check --master 127.0.0.1:1 --nnodes 2 --node-rank 1 --token-file /proc/kmsg --timeout 5
cli_finish proc_kmsg
