#!/bin/sh
# Gives one rank an environment of its own, as a user's wrapper script would: when $RANK is $DIFF_RANK, the
# assignments in $DIFF_ENV ("NCCL_PROTO=LL", "LD_PRELOAD=/path/libnccl.so.2") are exported before the command
# runs; every other rank runs the command unchanged. Usage: DIFF_RANK=R DIFF_ENV="A=1 B=2" rank_env.sh CMD...
if [ "${RANK:-}" = "${DIFF_RANK:-x}" ]; then
  for kv in ${DIFF_ENV:-}; do export "$kv"; done
fi
exec "$@"
