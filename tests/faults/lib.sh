# tests/faults/lib.sh: shared by the fault-matrix cells (tests/faults/cell_*.sh). A cell is one fault in one
# phase: it builds its own network-namespace nodes (tests/netns_lib.sh, 198.18.0.0/15 only), starts the
# phase's workload, injects the fault, waits for every surviving process with a deadline, then checks the
# finding, the exit code, orphans (processes carrying the cell's marker) and temp dirs (the cell's TMPDIR).
# It writes one result line to $FM_RESULT: STATUS<TAB>SECONDS<TAB>DETAIL (STATUS pass or fail).
# Usage inside a cell: BIN=... . lib.sh; fm_init; ...; fm_finish.
set -u
FM_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$FM_HERE/../netns_lib.sh"
nl_require
nl_plain_env
unset LOCAL_RANK MASTER_ADDR MASTER_PORT DISTDOCTOR_TOKEN DD_STORE_TOKEN
FM_RESULT=${FM_RESULT:-/dev/stdout}
FM_MARK=fm$$x$RANDOM  # not exported: only the processes fm_start starts carry it
FM_HELPERS=()
FM_FAILS=()
FM_TTD=""
FM_NOTE=""
FM_MOUNTS=()
PORT=$((30000 + RANDOM % 20000))
M=198.18.0.1:$PORT

# fm_init N: N namespace nodes; the cell's own TMPDIR (the runner checks it is empty afterwards).
fm_init() {
  if [ -n "${FM_CELL_DIR:-}" ]; then echo "$FM_MARK" >"$FM_CELL_DIR/mark"; echo "$NL_ID" >"$FM_CELL_DIR/nlid"; fi
  nl_setup "$1" ""
  trap fm_cleanup EXIT
  trap 'exit 143' TERM
}

# Every process of this cell (by its marker), stopped ones included; the netns cleanup after.
fm_marked() { grep -lsaz "^FM_MARK=$FM_MARK\$" /proc/[0-9]*/environ | cut -d/ -f3; }
fm_cleanup() {
  local p m
  for p in $(fm_marked); do kill -CONT "$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done
  for p in "${FM_HELPERS[@]}"; do kill -9 "$p" 2>/dev/null; done
  for m in "${FM_MOUNTS[@]}"; do umount -l "$m" 2>/dev/null; done
  nl_cleanup
}

fm_fail() { FM_FAILS+=("$*"); }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# fm_start I NAME ARGS...: distdoctor ARGS on node I (hostname xnodeI), in the background.
fm_start() {
  local i=$1 name=$2
  shift 2
  nl_start "$i" "xnode$i" "$name" -- env FM_MARK="$FM_MARK" "$@"
}
# fm_started NAME: wait (5 s at most) until NAME's process exists (its pid recorded).
fm_started() { until_ok 5 test -s "$NL_DIR/$1.rc.pid"; }
ended() { [ -s "$NL_DIR/$1.rc" ]; }
pid_of() { cat "$NL_DIR/$1.rc.pid" 2>/dev/null; }

# until_ok SECONDS CMD...: poll CMD every 0.1 s; false when it never succeeded.
until_ok() {
  local s=$1 i
  shift
  for ((i = 0; i < s * 10; i++)); do "$@" && return 0; sleep 0.1; done
  return 1
}
# hold_port: a helper on node 0 that owns the master's port (killed on exit; not marked).
hold_port() {
  ip netns exec "${NL_ID}n0" python3 -c "import socket,time
s=socket.socket(); s.bind(('198.18.0.1',$PORT)); s.listen(); time.sleep(60)" &
  FM_HELPERS+=($!)
  until_ok 5 listening 0 "$PORT"
}
listening() { [ -n "$(ip netns exec "${NL_ID}n$1" ss -Hltn "sport = :$2")" ]; }
connected() { [ -n "$(ip netns exec "${NL_ID}n$1" ss -Htn state established "dport = :$PORT")" ]; }
# worker_pids I: node I's collective worker processes (bench --as-worker).
worker_pids() {
  local p
  for p in $(ip netns pids "${NL_ID}n$1"); do grep -qs -- --as-worker "/proc/$p/cmdline" && echo "$p"; done
}
has_workers() { [ -n "$(worker_pids "$1")" ]; }

# fm_wait_all DEADLINE T0 NAME...: every named process ends within DEADLINE s of T0; FM_TTD gets the time
# from T0 to the last end. A process still running at the deadline is a hang of the cell.
fm_wait_all() {
  local deadline=$1 t0=$2 n left
  shift 2
  while :; do
    left=()
    for n in "$@"; do ended "$n" || left+=("$n"); done
    [ ${#left[@]} = 0 ] && break
    if awk -v a="$t0" -v b="$(now)" -v d="$deadline" 'BEGIN { exit !(b - a > d) }'; then
      fm_fail "HANG: ${left[*]} still running ${deadline} s after the fault"
      [ -z "$FM_TTD" ] && FM_TTD=">$deadline"
      return 1
    fi
    sleep 0.1
  done
  [ -z "$FM_TTD" ] && FM_TTD=$(since "$t0")  # the first wait (the fault's) is the time to detection
  return 0
}

# fm_expect NAME RC REGEX: NAME exited RC (a|b alternatives allowed) and its stdout+stderr match REGEX.
fm_expect() {
  local rc
  rc=$(cat "$NL_DIR/$1.rc" 2>/dev/null)
  [[ "$rc" =~ ^($2)$ ]] || fm_fail "$1 exit $rc, want $2"
  cat "$NL_DIR/$1.out" "$NL_DIR/$1.err" 2>/dev/null | grep -Eq -- "$3" || fm_fail "$1 output lacks /$3/"
}

# fm_no_orphans: after every process of the cell ended, none of its marked processes is left (1 s to settle).
fm_no_orphans() {
  local left
  for _ in $(seq 20); do
    left=$(fm_marked | tr '\n' ' ')
    [ -z "$left" ] && return 0
    sleep 0.1
  done
  fm_fail "orphans: $(for p in $left; do tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-60; echo -n '; '; done)"
}

# fm_finish FINDING: writes the result line (and the outputs of a failed cell to stderr).
fm_finish() {
  local n
  if [ ${#FM_FAILS[@]} = 0 ]; then
    printf 'pass\t%s\t%s%s\n' "${FM_TTD:--}" "$1" "${FM_NOTE:+ ($FM_NOTE)}" >>"$FM_RESULT"
    exit 0
  fi
  for n in "$NL_DIR"/*.out; do
    [ -e "$n" ] || continue
    n=$(basename "$n" .out)
    echo "---- $n exit $(cat "$NL_DIR/$n.rc" 2>/dev/null || echo running)" >&2
    tail -n 40 "$NL_DIR/$n.out" "$NL_DIR/$n.err" >&2
  done
  printf 'fail\t%s\t%s\n' "${FM_TTD:--}" "$(IFS=';'; echo "${FM_FAILS[*]}" | tr '\t\n' '  ' | cut -c1-300)" >>"$FM_RESULT"
  exit 1
}

# Faults. fm_inject FAULT NODE [NAME]: NODE is the node index; NAME the process (for self_kill).
#   kill / stop: SIGKILL / SIGSTOP every process of the node (the whole node dies or freezes);
#   self_kill: SIGKILL distdoctor itself (NAME) on the node, not its children;
#   link_down: the node's cable pulled (hub side of its veth down); netem: 30% loss and 200 ms delay on the
#   node's egress and ingress; garbage / oversized: a raw client on the node writes junk to the store.
fm_inject() {
  local fault=$1 i=$2 name=${3:-} ns="${NL_ID}n$2" p
  case $fault in
    kill | master_kill) for p in $(ip netns pids "$ns"); do kill -9 "$p" 2>/dev/null; done ;;
    stop) for p in $(ip netns pids "$ns"); do kill -STOP "$p" 2>/dev/null; done ;;
    self_kill) kill -9 "$(pid_of "$name")" ;;
    link_down) nl_cut "$i" eth0 ;;
    netem)
      if ip netns exec "$ns" tc qdisc replace dev eth0 root netem loss 30% delay 200ms 2>/dev/null; then
        ip netns exec "$NL_HUB" tc qdisc replace dev "${NL_ID}v${i}a" root netem loss 30% delay 200ms
      else  # a kernel without sch_netem: a 1 Mbit/s link with 200 ms of queue instead (no random loss)
        FM_NOTE="no sch_netem in this kernel: tbf 1 Mbit/s, 200 ms queue instead"
        ip netns exec "$ns" tc qdisc replace dev eth0 root tbf rate 1mbit burst 8kbit latency 200ms
        ip netns exec "$NL_HUB" tc qdisc replace dev "${NL_ID}v${i}a" root tbf rate 1mbit burst 8kbit latency 200ms
      fi ;;
    garbage | oversized)
      ip netns exec "$ns" python3 "$FM_HERE/junk_client.py" "${M%:*}" "${M#*:}" "$fault" 3 \
        >"$NL_DIR/junk.out" 2>&1 &
      FM_JUNK=$! ;;
  esac
}
# fm_resume NODE: SIGCONT every process of a stopped node.
fm_resume() { local p; for p in $(ip netns pids "${NL_ID}n$1"); do kill -CONT "$p" 2>/dev/null; done; }
# fm_junk_done: the junk client ended and the store closed its connection.
fm_junk_done() {
  wait "$FM_JUNK"
  grep -q "closed the connection" "$NL_DIR/junk.out" || fm_fail "store: $(cat "$NL_DIR/junk.out")"
}
