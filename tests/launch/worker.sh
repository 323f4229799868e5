#!/bin/sh
# Test worker for `distdoctor launch`: behaves as $WORKER_ACTION says when its RANK is $WORKER_RANK, else as
# $OTHERS_ACTION (default: sleep until stopped when a WORKER_RANK is named, else ok). Actions: ok, exit:N,
# kill:SIG, sleep, stubborn (sleep ignoring SIGINT and SIGTERM), lines:N (then exit 3), stray:N (leave
# `sleep N` running in its own session, as a daemon would, then exit 0).
act=${OTHERS_ACTION:-$([ -n "${WORKER_RANK:-}" ] && echo sleep || echo ok)}
[ "${RANK:-x}" = "${WORKER_RANK:-none}" ] && act=${WORKER_ACTION:-ok}
# A restart test: fail on attempts below $FAIL_UNTIL_ATTEMPT.
if [ -n "${FAIL_UNTIL_ATTEMPT:-}" ] && [ "${TORCHELASTIC_RESTART_COUNT:-0}" -lt "$FAIL_UNTIL_ATTEMPT" ]; then
  [ "$RANK" = 1 ] && { echo "rank 1 fails on attempt $TORCHELASTIC_RESTART_COUNT"; exit 9; }
  act=sleep
fi
echo "worker rank $RANK of $WORLD_SIZE starting ($act)"
case $act in
  ok) echo "worker rank $RANK done"; exit 0 ;;
  exit:*) echo "worker rank $RANK exits ${act#exit:}" >&2; exit "${act#exit:}" ;;
  kill:*) echo "worker rank $RANK kills itself"; kill -s "${act#kill:}" $$ ;;
  lines:*) n=${act#lines:}; i=0; while [ $i -lt "$n" ]; do echo "line $i of rank $RANK"; i=$((i + 1)); done; exit 3 ;;
  stray:*) setsid sleep "${act#stray:}" </dev/null >/dev/null 2>&1 & echo "worker rank $RANK done"; exit 0 ;;
  sleep) exec sleep 1000 ;;
  stubborn) trap '' INT TERM; exec sleep 1000 ;;
esac
