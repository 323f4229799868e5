# netns_lib.sh: shared helpers to build "clusters" of network namespaces for the cluster tests.
# Layout: one hub namespace holding bridges br0 (198.18.0.0/24) and br1 (198.18.1.0/24); node i gets eth0 on
# br0 (198.18.0.<i+1>), optionally eth1 on br1 (198.18.1.<i+1>), and a decoy dummy docker0 (198.19.0.1/24,
# the same on every node, like real docker0). Addresses only in 198.18.0.0/15. Source it, then call
# nl_setup; cleanup runs on exit. Nodes run in their own UTS namespace so each can have its own hostname.

NL_ID="dd$(head -c3 /dev/urandom | od -An -tx1 | tr -d ' \n')"
NL_HUB="${NL_ID}h"
NL_NODES=()
NL_PIDS=()
NL_DIR="$(mktemp -d "${TMPDIR:-/tmp}/${NL_ID}.XXXX")"
export TMPDIR="$NL_DIR"  # what the tool writes there (token files of a by-hand master) goes with it
export XDG_CONFIG_HOME="$NL_DIR/config"  # the per-user job secret of launcher runs (not the tester's own)
trap 'rm -rf "$NL_DIR"' EXIT  # nl_setup replaces this with nl_cleanup

nl_require() {
  if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root (network namespaces)"; exit 77; fi
  for t in ip unshare; do command -v $t >/dev/null || { echo "SKIP: $t not installed"; exit 77; }; done
  ip netns add "${NL_ID}probe" 2>/dev/null || { echo "SKIP: cannot create network namespaces here"; exit 77; }
  ip netns del "${NL_ID}probe"
}

nl_cleanup() {
  local p
  for p in "${NL_PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  for n in "${NL_NODES[@]}"; do ip netns del "$n" 2>/dev/null; done
  ip netns del "$NL_HUB" 2>/dev/null
  rm -rf "$NL_DIR"
}

# nl_setup N "i j ..." : N nodes; the listed node indexes also get eth1 on br1.
nl_setup() {
  local n=$1 second=" $2 " i ns
  trap nl_cleanup EXIT
  ip netns add "$NL_HUB"
  ip -n "$NL_HUB" link set lo up
  for br in br0 br1; do
    ip -n "$NL_HUB" link add $br type bridge
    ip -n "$NL_HUB" link set $br up
  done
  for ((i = 0; i < n; i++)); do
    ns="${NL_ID}n$i"
    NL_NODES+=("$ns")
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    ip -n "$ns" link add docker0 type veth peer name dockerpeer
    ip -n "$ns" link set dockerpeer up
    ip -n "$ns" addr add 198.19.0.1/24 dev docker0
    ip -n "$ns" link set docker0 up
    nl_link "$ns" eth0 "v${i}a" br0 "198.18.0.$((i + 1))/24"
    if [[ "$second" == *" $i "* ]]; then nl_link "$ns" eth1 "v${i}b" br1 "198.18.1.$((i + 1))/24"; fi
  done
  # Carrier comes up asynchronously (linkwatch); wait until every node interface is LOWER_UP.
  for _ in $(seq 50); do
    local down=0
    for ns in "${NL_NODES[@]}"; do
      ip -n "$ns" -br link | grep -E '^(eth|docker)' | grep -Eq 'NO-CARRIER|^[^ ]+ +DOWN' && down=1
    done
    [ $down = 0 ] && break
    sleep 0.1
  done
}

# nl_link NS IFNAME HUBSIDE BRIDGE ADDR: a veth from the node namespace to a hub bridge.
nl_link() {
  ip link add "$2" netns "$1" type veth peer name "${NL_ID}$3" netns "$NL_HUB"
  ip -n "$NL_HUB" link set "${NL_ID}$3" master "$4" up
  ip -n "$1" addr add "$5" dev "$2"
  ip -n "$1" link set "$2" up
}

# nl_cut I IF: pull the cable of node I's interface IF (eth0 -> a, eth1 -> b): its hub side goes down.
nl_cut() { ip -n "$NL_HUB" link set "${NL_ID}v$1$([ "$2" = eth0 ] && echo a || echo b)" down; }

# nl_start I HOSTNAME NAME -- cmd...: runs cmd in node I with that hostname, in the background;
# stdout/stderr go to $NL_DIR/NAME.out/.err, the exit code to $NL_DIR/NAME.rc. Env: pass with env VAR=...
nl_start() {
  local i=$1 host=$2 name=$3
  shift 4
  ip netns exec "${NL_ID}n$i" unshare --uts sh -c \
    'hostname "$1"; shift; "$@" & echo $! > "$0.pid"; wait $!; echo $? > "$0"' \
    "$NL_DIR/$name.rc" "$host" "$@" >"$NL_DIR/$name.out" 2>"$NL_DIR/$name.err" &
  NL_PIDS+=($!)
  eval "NL_PID_$name=$!"
}

# nl_wait NAME SECONDS: waits for a started command; fails if it runs longer.
nl_wait() {
  local t=0
  while [ ! -s "$NL_DIR/$1.rc" ]; do
    sleep 0.2
    t=$((t + 1))
    if [ $t -gt $(($2 * 5)) ]; then echo "FAIL: $1 still running after $2 s"; return 1; fi
  done
}

# nl_wait_nodes SECONDS NAME...: nl_wait on each; the first that does not end prints its output and fails
# the test.
nl_wait_nodes() {
  local secs=$1 n
  shift
  for n in "$@"; do nl_wait "$n" "$secs" || { cat "$NL_DIR/$n.out" "$NL_DIR/$n.err"; exit 1; }; done
}

nl_rc() { cat "$NL_DIR/$1.rc"; }
# nl_kill NAME: SIGKILL the command itself (its pid was recorded when it started).
nl_kill() { kill -9 "$(cat "$NL_DIR/$1.rc.pid")"; }
nl_out() { cat "$NL_DIR/$1.out"; }

# expect NAME PATTERN: the command's stdout contains PATTERN (grep -E), else show it and fail.
expect() {
  if ! grep -Eq -- "$2" "$NL_DIR/$1.out"; then
    echo "FAIL: $1 output lacks /$2/"; echo "---- $1 stdout"; cat "$NL_DIR/$1.out"; echo "---- $1 stderr"
    cat "$NL_DIR/$1.err"; exit 1
  fi
}
expect_not() {
  if grep -Eq -- "$2" "$NL_DIR/$1.out"; then
    echo "FAIL: $1 output has /$2/"; cat "$NL_DIR/$1.out"; exit 1
  fi
}

# The environment of a by-hand cluster run: no colour, and none of the launcher or NCCL/Gloo interface
# variables of the shell that runs the test (they would turn the run into a launcher run or pin interfaces).
nl_plain_env() {
  export NO_COLOR=1
  unset NCCL_SOCKET_IFNAME GLOO_SOCKET_IFNAME OMPI_COMM_WORLD_RANK RANK WORLD_SIZE PMI_RANK PMIX_RANK SLURM_PROCID
}

# nl_start_check_nodes N PORT ARGS...: node i (hostname xnode$i, namespace n$i) runs
# `check --nnodes N --master 198.18.0.1:PORT --node-rank i --token tPORT ARGS...` in the background.
nl_start_check_nodes() {
  local n=$1 port=$2 i
  shift 2
  for ((i = 0; i < n; i++)); do
    nl_start $i "xnode$i" n$i -- "$BIN" check --nnodes "$n" --master 198.18.0.1:"$port" --node-rank $i \
      --token t"$port" "$@"
  done
}

