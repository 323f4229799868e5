#!/bin/bash
# Fault-matrix cells of `launch` across 2 network-namespace nodes (2 workers each, tests/launch/worker.sh).
# Usage: cell_launch.sh BIN launch FAULT. Run-time faults strike once rank 3 (node 1) logs; the log-dir
# faults run one node with --log-dir on a 64 KiB tmpfs (full) or a read-only bind mount.
BIN=$(realpath "$1")
FAULT=$3
. "$(dirname "$0")/lib.sh"
W="$FM_HERE/../launch/worker.sh"
D=25
LOGS="$NL_DIR/logs"
fm_init 2
# launch_node I NAME MASTER TOKEN ENV... -- CMD...
launch_node() {
  local i=$1 name=$2 master=$3 token=$4 envs=()
  shift 4
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  fm_start "$i" "$name" "${envs[@]}" "$BIN" launch --nnodes 2 --node-rank "$i" --master "$master" --token "$token" \
    --nproc-per-node 2 --log-dir "$LOGS" --job-id j --timeout 8 --grace 1 -- "$@"
}
running() { [ -e "$LOGS/j/0/node1.rank3.log" ]; }

case $FAULT in
  port_in_use)
    hold_port || fm_fail "could not hold the port"
    t0=$(now)
    launch_node 0 n0 "$M" tok OTHERS_ACTION=ok -- sh "$W"
    fm_wait_all 10 "$t0" n0 && fm_expect n0 "2|3" "$PORT.*(in use|already)|(in use|already).*$PORT"
    FINDING="node 0: the master's port is in use" ;;
  bad_master | conn_refused)
    t0=$(now)
    m=$M
    [ "$FAULT" = bad_master ] && m="no-such-host.invalid:$PORT"
    launch_node 1 n1 "$m" tok OTHERS_ACTION=ok -- sh "$W"
    fm_wait_all 20 "$t0" n1 && fm_expect n1 "2|3" "${m//./\\.}"
    FINDING="node 1: launch.join.failed naming the master" ;;
  wrong_token)
    launch_node 0 n0 "$M" tok OTHERS_ACTION=ok -- sh "$W"
    until_ok 20 listening 0 "$PORT" || fm_fail "the master never listened"
    t0=$(now)
    launch_node 1 n1 "$M" bad OTHERS_ACTION=ok -- sh "$W"
    fm_wait_all 20 "$t0" n0 n1 && fm_expect n1 "2|3" "wrong job token" && fm_expect n0 "2|3" "node rank 1 did not join"
    FINDING="node 1: cluster.join.refused (wrong job token); node 0: launch.join.failed, node rank 1 did not join" ;;
  logdir_full | logdir_ro)
    mkdir -p "$LOGS"
    if [ "$FAULT" = logdir_full ]; then
      mount -t tmpfs -o size=64k fmfull "$LOGS" && FM_MOUNTS+=("$LOGS")
    else
      mount --bind "$LOGS" "$LOGS" && mount -o remount,bind,ro "$LOGS" && FM_MOUNTS+=("$LOGS")
    fi
    t0=$(now)
    fm_start 0 n0 "$BIN" launch --nproc-per-node 2 --log-dir "$LOGS" --job-id j --grace 1 -- \
      sh -c 'i=0; while [ $i -lt 3000 ]; do echo "a line of 32 bytes for the log $i"; i=$((i + 1)); done'
    fm_wait_all 20 "$t0" n0
    if [ "$FAULT" = logdir_full ]; then
      fm_expect n0 "0|1" "launch.logs.full" && fm_expect n0 "0|1" "No space left on device.*$LOGS/j/0/node0.rank0.log"
      FINDING="launch.logs.full naming node 0 and its log path (the workers exited 0)"
    else
      fm_expect n0 3 "cannot write the log directory $LOGS: Read-only file system"
      FINDING="launch refuses the read-only log directory before any worker starts (exit 3)"
    fi ;;
  *)
    act=OTHERS_ACTION=sleep
    [[ $FAULT == netem || $FAULT == garbage || $FAULT == oversized ]] && act=OTHERS_ACTION=ok
    cmd=(sh "$W")
    [ $act = OTHERS_ACTION=ok ] && cmd=(sh -c 'sleep 4; exec sh "$0"' "$W")
    launch_node 0 n0 "$M" tok "$act" -- "${cmd[@]}"
    until_ok 20 listening 0 "$PORT" || fm_fail "the master never listened"
    launch_node 1 n1 "$M" tok "$act" -- "${cmd[@]}"
    until_ok 20 running || fm_fail "rank 3 never started"
    t0=$(now)
    case $FAULT in
      master_kill) fm_inject kill 0 ;;
      self_kill) fm_inject self_kill 1 n1 ;;
      *) fm_inject "$FAULT" 1 ;;
    esac
    case $FAULT in
      kill | self_kill)
        fm_wait_all $D "$t0" n0 && fm_expect n0 2 "stopped answering: no heartbeat from node rank 1 \(xnode1\)"
        FINDING="node 0: launch.node.lost naming node 1 (xnode1)" ;;
      stop)
        fm_wait_all $D "$t0" n0 && fm_expect n0 2 "launch.node.(silent|lost)"
        fm_resume 1
        fm_wait_all 15 "$(now)" n1
        FINDING="node 0: launch.node.silent naming node 1" ;;
      master_kill)
        fm_wait_all $D "$t0" n1 && fm_expect n1 2 "launch.master.lost"
        FINDING="node 1: launch.master.lost" ;;
      link_down)
        fm_wait_all $D "$t0" n0 n1 && fm_expect n0 2 "launch.node.(silent|lost)" &&
          fm_expect n1 2 "launch.master.lost|launch.node"
        FINDING="node 0: node 1 lost; node 1: the master lost" ;;
      netem | garbage | oversized)
        fm_wait_all 40 "$t0" n0 n1 && fm_expect n0 0 "launch.job.ok" && fm_expect n1 0 "launch.job.ok"
        [ "$FAULT" != netem ] && fm_junk_done
        FINDING="the job ends ok on both nodes" ;;
    esac ;;
esac
[ -n "${FM_SHOW:-}" ] && cat "$NL_DIR"/*.out >&2
fm_no_orphans
fm_finish "$FINDING"
