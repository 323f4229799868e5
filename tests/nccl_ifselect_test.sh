#!/usr/bin/env bash
# Ground truth for the NCCL interface prediction: in network namespaces made here (addresses in 198.18.0.0/15,
# IPv6 only as kernel link-local), run NCCL's own ncclGetUniqueId (libnccl.so.2 dlopen'ed by a tiny C program,
# NCCL_DEBUG=INFO) and compare its "Bootstrap: Using IF:ADDR" / "no socket interface found" with the
# nccl_bootstrap_if/nccl_bootstrap_addr evidence of `distdoctor check --json` run in the same namespace.
# Needs root (exit 77 otherwise) and /usr/local/cuda/lib64/libnccl.so.2 (or DD_NCCL_LIB). No GPU needed.
set -u
BIN=$(readlink -f "${1:-build/distdoctor}")
LIB=${DD_NCCL_LIB:-/usr/local/cuda/lib64/libnccl.so.2}
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to create network namespaces"; exit 77; }
[ -e "$LIB" ] || { echo "SKIP: $LIB absent"; exit 77; }
for t in gcc ip jq; do command -v $t >/dev/null || { echo "SKIP: $t not installed"; exit 77; }; done
[ -x "$BIN" ] || { echo "FAIL: no distdoctor binary at $BIN"; exit 1; }

TMP=$(mktemp -d)
TAG=dd$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
cleanup() {  # every namespace this run made carries $TAG (mkns runs in subshells, so no list is kept)
  local ns
  for ns in $(ip netns list | awk '{print $1}' | grep "^$TAG"); do ip netns del "$ns" 2>/dev/null; done
  rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

cat > "$TMP/uid.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char** argv) {
  void* h = dlopen(argv[1], RTLD_NOW);
  if (!h) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 3; }
  if (argc > 2) {  /* "version": print ncclGetVersion's code */
    int (*ver)(int*) = (int (*)(int*))dlsym(h, "ncclGetVersion");
    int v = -1;
    if (!ver || ver(&v)) return 3;
    printf("%d\n", v);
    return 0;
  }
  int (*get)(void*) = (int (*)(void*))dlsym(h, "ncclGetUniqueId");
  if (!get) return 3;
  char id[128];
  return get(id) == 0 ? 0 : 1;
}
C
# Fallback facts when the net probe is not built: getifaddrs() as NodeFacts JSON (order = first address seen).
cat > "$TMP/ifaddrs.c" <<'C'
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#define MAXI 64
struct it { char name[IF_NAMESIZE + 1]; unsigned flags; char v4[2048], v6[2048]; int order; };
static int bits(const unsigned char* m, int n) { int b = 0; for (int i = 0; i < n; i++) b += __builtin_popcount(m[i]); return b; }
int main(void) {
  struct ifaddrs *ifs, *a; struct it t[MAXI]; int n = 0, pos = 0;
  if (getifaddrs(&ifs)) return 1;
  for (a = ifs; a; a = a->ifa_next) {
    if (!a->ifa_addr || (a->ifa_addr->sa_family != AF_INET && a->ifa_addr->sa_family != AF_INET6)) continue;
    int k; for (k = 0; k < n && strcmp(t[k].name, a->ifa_name); k++) {}
    if (k == n) { if (n == MAXI) continue; memset(&t[n], 0, sizeof t[n]); snprintf(t[n].name, sizeof t[n].name, "%s", a->ifa_name); t[n].order = pos; n++; }
    pos++;
    t[k].flags = a->ifa_flags;
    char buf[INET6_ADDRSTRLEN], ent[96];
    if (a->ifa_addr->sa_family == AF_INET) {
      inet_ntop(AF_INET, &((struct sockaddr_in*)a->ifa_addr)->sin_addr, buf, sizeof buf);
      snprintf(ent, sizeof ent, "%s\"%s/%d\"", t[k].v4[0] ? "," : "", buf, a->ifa_netmask ? bits((unsigned char*)&((struct sockaddr_in*)a->ifa_netmask)->sin_addr, 4) : 32);
      strncat(t[k].v4, ent, sizeof t[k].v4 - strlen(t[k].v4) - 1);
    } else {
      inet_ntop(AF_INET6, &((struct sockaddr_in6*)a->ifa_addr)->sin6_addr, buf, sizeof buf);
      snprintf(ent, sizeof ent, "%s\"%s/%d\"", t[k].v6[0] ? "," : "", buf, a->ifa_netmask ? bits(((struct sockaddr_in6*)a->ifa_netmask)->sin6_addr.s6_addr, 16) : 128);
      strncat(t[k].v6, ent, sizeof t[k].v6 - strlen(t[k].v6) - 1);
    }
  }
  printf("{\"host\":{\"hostname\":\"ns\"},\"net\":{\"interfaces\":[");
  for (int k = 0; k < n; k++)
    printf("%s{\"name\":\"%s\",\"kind\":\"%s\",\"up\":%s,\"running\":%s,\"ipv4\":[%s],\"ipv6\":[%s],\"order\":%d}", k ? "," : "",
           t[k].name, (t[k].flags & IFF_LOOPBACK) ? "loopback" : "other", (t[k].flags & IFF_UP) ? "true" : "false",
           (t[k].flags & IFF_RUNNING) ? "true" : "false", t[k].v4, t[k].v6, t[k].order);
  printf("]}}\n");
  freeifaddrs(ifs);
  return 0;
}
C
gcc -O1 -o "$TMP/uid" "$TMP/uid.c" -ldl || { echo "FAIL: cannot compile uid.c"; exit 1; }
gcc -O1 -o "$TMP/ifaddrs" "$TMP/ifaddrs.c" || { echo "FAIL: cannot compile ifaddrs.c"; exit 1; }

NCCL_CODE=$("$TMP/uid" "$LIB" version) || { echo "FAIL: ncclGetVersion"; exit 1; }
PASS=0
FAILS=0
MODE=""

# run_env NS VAR=VALUE...: a clean environment (no NCCL_* or GLOO_* from the caller, no ~/.nccl.conf).
run_env() { local ns=$1; shift; ip netns exec "$ns" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$TMP" "$@"; }

truth() {  # prints "IF ADDR" or "none"
  local ns=$1; shift
  local out
  out=$(run_env "$ns" "$@" NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=ALL timeout 20 "$TMP/uid" "$LIB" 2>&1)
  local line
  line=$(printf '%s\n' "$out" | grep -m1 -E 'Bootstrap: Using|no socket interface found|No usable listening interface found|Invalid NCCL_COMM_ID')
  if [[ $line == *"no socket interface found"* || $line == *"No usable listening"* || $line == *"Invalid NCCL_COMM_ID"* ]]; then
    echo none; return
  fi
  if [[ $line =~ Bootstrap:\ Using\ ([^:]+):(.*)$ ]]; then
    local name=${BASH_REMATCH[1]} addr=${BASH_REMATCH[2]}
    addr=${addr%%<*}; addr=${addr%%\%*}
    echo "$name $addr"; return
  fi
  echo "unparsed: $(printf '%s\n' "$out" | tail -3 | tr '\n' '|')"
}

predict() {  # prints "IF ADDR" or "none"
  local ns=$1; shift
  local json
  if [ "$MODE" = probe ]; then
    json=$(run_env "$ns" "$@" "$BIN" check --json 2>/dev/null)
  else
    local envjson='{}' kv
    for kv in "$@"; do envjson=$(jq -c --arg k "${kv%%=*}" --arg v "${kv#*=}" '. + {($k): $v}' <<<"$envjson"); done
    ip netns exec "$ns" "$TMP/ifaddrs" |
      jq --argjson e "$envjson" --arg lib "$LIB" --argjson code "$NCCL_CODE" \
        '. + {env: $e, nccl: {libs: [{path: $lib, source: "test", version_code: $code}]}}' > "$TMP/facts.json"
    json=$("$BIN" check --facts "$TMP/facts.json" --json 2>/dev/null)
  fi
  local ifn addr
  ifn=$(jq -r '[.findings[].evidence[]? | select(startswith("nccl_bootstrap_if="))][0] // "missing" | sub("nccl_bootstrap_if=";"")' <<<"$json" 2>/dev/null)
  addr=$(jq -r '[.findings[].evidence[]? | select(startswith("nccl_bootstrap_addr="))][0] // "" | sub("nccl_bootstrap_addr=";"")' <<<"$json" 2>/dev/null)
  addr=${addr%%\%*}
  if [ "$ifn" = none ]; then echo none; else echo "$ifn $addr"; fi
}

compare() {  # compare NS LABEL [VAR=VALUE...]
  local ns=$1 label=$2; shift 2
  local t p
  t=$(truth "$ns" "$@")
  p=$(predict "$ns" "$@")
  if [ "$t" = "$p" ]; then
    PASS=$((PASS + 1)); printf 'ok    %-10s %-34s -> %s\n' "$label" "${*:-(unset)}" "$t"
  else
    FAILS=$((FAILS + 1)); printf 'FAIL  %-10s %-34s NCCL: %s  distdoctor: %s\n' "$label" "${*:-(unset)}" "$t" "$p"
  fi
}

mkns() {  # mkns SUFFIX: a fresh namespace with lo up
  local ns=$TAG$1
  ip netns add "$ns" || { echo "FAIL: ip netns add $ns"; exit 1; }
  ip -n "$ns" link set lo up
  echo "$ns"
}
# Interfaces are veth pairs whose peer sits in a separate namespace (no dummy module needed; the peer's state
# gives carrier). The only IPv6 addresses are the kernel's link-local ones.
PEERNS=""
dummy() {  # dummy NS NAME [ADDR|-] [up|down]
  local peer="p$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')"
  ip -n "$1" link add "$2" type veth peer name "$peer" netns "$PEERNS" || { echo "FAIL: veth $2"; exit 1; }
  ip -n "$PEERNS" link set "$peer" up
  if [ -n "${3:-}" ] && [ "$3" != - ]; then ip -n "$1" addr add "$3" dev "$2"; fi
  ip -n "$1" link set "$2" "${4:-up}"
}
PEERNS=$(mkns p)
# The kernel reports carrier changes (IFF_RUNNING) up to a second late (linkwatch): wait before comparing.
settle() { sleep 1.2; }

# Which prediction path: the real net probe when it records interfaces, else getifaddrs facts made here.
NS=$(mkns a)
if [ "$(run_env "$NS" "$BIN" facts --json 2>/dev/null | jq '.net.interfaces | length' 2>/dev/null)" -gt 0 ] 2>/dev/null; then
  MODE=probe
else
  MODE=facts
  echo "note: distdoctor's net probe records no interfaces; predicting from getifaddrs facts (check --facts)"
fi

# 1. docker0 created first, then eth0, enp3s0; every value from NCCL's grammar.
dummy "$NS" docker0 198.18.1.1/24
dummy "$NS" eth0 198.18.0.1/24
dummy "$NS" enp3s0 198.18.2.1/24
settle
compare "$NS" basic
for v in eth =eth0 "^docker,lo" "^=eth0" 198.18.0.1 nomatch = "" en docker "^=" ",," "=eth" "eth0:1234" "^" "lo" "^eth,docker" "^docker0" "eth0,enp3s0" "=enp3s0,=eth0"; do
  compare "$NS" basic "NCCL_SOCKET_IFNAME=$v"
done
compare "$NS" family NCCL_SOCKET_FAMILY=AF_INET6
compare "$NS" family NCCL_SOCKET_FAMILY=AF_INET6 NCCL_SOCKET_IFNAME=enp
compare "$NS" commid NCCL_COMM_ID=198.18.2.77:29500
compare "$NS" commid NCCL_COMM_ID=198.18.2.77:29500 NCCL_SOCKET_IFNAME=eth0
compare "$NS" commid NCCL_COMM_ID=198.19.0.1:29500
compare "$NS" commid NCCL_COMM_ID=:29500
compare "$NS" commid NCCL_COMM_ID==

# 2. An IPoIB-style name wins when unset, even after eth0.
NS=$(mkns b)
dummy "$NS" eth0 198.18.0.1/24
dummy "$NS" ib0 198.18.3.1/24
settle
compare "$NS" ib
compare "$NS" ib NCCL_SOCKET_IFNAME=eth

# 3. Down interfaces are skipped: docker0 then lo are the fallbacks.
NS=$(mkns c)
dummy "$NS" eth0 198.18.0.1/24 down
dummy "$NS" docker0 198.18.1.1/24
settle
compare "$NS" down
compare "$NS" down NCCL_SOCKET_IFNAME=eth
ip -n "$NS" link set docker0 down
settle
compare "$NS" down
compare "$NS" down "NCCL_SOCKET_IFNAME=^lo"

# 4. IPv6-only (kernel link-local) interface while the IPv4 one is down; veth up without carrier.
NS=$(mkns d)
dummy "$NS" eth0 198.18.0.1/24 down
ip -n "$NS" link add enp5s0 type veth peer name "p6$TAG" netns "$PEERNS"
ip -n "$PEERNS" link set "p6$TAG" up
ip -n "$NS" link set enp5s0 up
ip -n "$NS" link add eth1 type veth peer name vpeer1
ip -n "$NS" addr add 198.18.4.1/24 dev eth1
ip -n "$NS" link set eth1 up   # vpeer1 stays down: eth1 is up but not RUNNING
settle
for _ in $(seq 50); do ip -n "$NS" -6 addr show dev enp5s0 | grep -q fe80 && break; sleep 0.1; done
compare "$NS" ipv6only
compare "$NS" ipv6only NCCL_SOCKET_IFNAME=eth
compare "$NS" ipv6only NCCL_SOCKET_FAMILY=AF_INET
compare "$NS" ipv6only NCCL_SOCKET_FAMILY=AF_INET6
ip -n "$NS" link set vpeer1 up
settle
compare "$NS" carrier
compare "$NS" carrier NCCL_SOCKET_IFNAME=eth
compare "$NS" carrier NCCL_SOCKET_IFNAME=enp

# 5. virbr* (libvirt) bridges: NCCL 2.28.3+ skips them until after lo; older versions treat them as normal.
NS=$(mkns e)
dummy "$NS" virbr0 198.18.5.1/24
dummy "$NS" eth0 198.18.0.1/24
settle
compare "$NS" virbr
ip -n "$NS" link set eth0 down
settle
compare "$NS" virbr
ip -n "$NS" link set lo down
settle
compare "$NS" virbr
compare "$NS" virbr NCCL_SOCKET_IFNAME=vir

echo "nccl_ifselect: $PASS agree, $FAILS disagree (mode $MODE, $LIB, NCCL version code $NCCL_CODE)"
[ "$FAILS" -eq 0 ]
