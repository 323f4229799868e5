#!/usr/bin/env bash
# Network probe on real interfaces: builds a network namespace with a veth named docker0, a bond (when the
# kernel has bonding), a vlan (when it has 8021q), an interface that is down and an IPv6-only link, runs
# `distdoctor facts --json` inside it and checks order, kinds, flags, addresses and the default route.
# Every part that cannot run here (no bonding or 8021q in the kernel, no loadable libnccl.so.2) is named at the
# end and makes the test exit 77 (skipped, with the reason) once everything else has passed.
# Usage: tests/net_probe_test.sh path/to/distdoctor   (root only; exit 77 = skipped)
set -euo pipefail
BIN=${1:?usage: $0 path/to/distdoctor}
BIN=$(readlink -f "$BIN")
if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root for network namespaces"; exit 77; fi
command -v ip >/dev/null || { echo "SKIP: iproute2 missing"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }

NS="dd$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dd_net_probe.XXXXXX")
SKIPPED=()
cleanup() { ip netns del "$NS" 2>/dev/null || true; rm -rf "$TMP"; }
trap cleanup EXIT
ip netns add "$NS" || { echo "SKIP: cannot create a network namespace"; exit 77; }
in_ns() { ip -n "$NS" "$@"; }

in_ns link set lo up
# docker0: a veth pretending to be Docker's bridge, its peer carries the default route's gateway.
in_ns link add docker0 type veth peer name ddpeer0
in_ns addr add 198.18.0.1/24 dev docker0
in_ns addr add 198.18.0.2/24 dev ddpeer0
in_ns link set docker0 up
in_ns link set ddpeer0 up
in_ns route add default via 198.18.0.2 dev docker0
# An interface with an address that is down.
in_ns link add dddown0 type veth peer name dddown1
in_ns addr add 198.18.1.1/24 dev dddown0
# An IPv6-only link: no IPv4, only the kernel's link-local address.
in_ns link add ddv6a type veth peer name ddv6b
in_ns link set ddv6a up
in_ns link set ddv6b up
# A bond with one slave, and a vlan, where the kernel supports them.
HAVE_BOND=0
command -v modprobe >/dev/null && { modprobe -q bonding 2>/dev/null || true; modprobe -q 8021q 2>/dev/null || true; }
if in_ns link add ddbond0 type bond 2>"$TMP/bond.err"; then
  HAVE_BOND=1
  in_ns link add ddslave0 type veth peer name ddslave1
  in_ns link set ddslave0 master ddbond0
  in_ns addr add 198.18.2.1/24 dev ddbond0
  in_ns link set ddbond0 up
else
  SKIPPED+=("bond checks: this kernel cannot create a bond ($(tr -d "\n" <"$TMP/bond.err" | head -c 100))")
fi
HAVE_VLAN=0
if in_ns link add link ddpeer0 name ddpeer0.7 type vlan id 7 2>"$TMP/vlan.err"; then
  HAVE_VLAN=1
  in_ns addr add 198.18.3.1/24 dev ddpeer0.7
  in_ns link set ddpeer0.7 up
else
  SKIPPED+=("vlan checks: this kernel cannot create a vlan ($(tr -d "\n" <"$TMP/vlan.err" | head -c 100))")
fi
# Wait (at most 3 s) for the link-local address of the IPv6-only link.
for _ in $(seq 30); do
  in_ns -6 addr show dev ddv6a | grep -q fe80 && break
  sleep 0.1
done

ip netns exec "$NS" "$BIN" facts --json >"$TMP/facts.json"
ip netns exec "$NS" "$BIN" facts >"$TMP/facts.txt"
grep -q "docker0" "$TMP/facts.txt" || { echo "FAIL: text summary lacks docker0"; cat "$TMP/facts.txt"; exit 1; }

# What NCCL itself picks (ncclGetUniqueId needs no GPU), for a few NCCL_SOCKET_IFNAME prefixes.
NCCL_TRUTH=""
nccl_pick() {
  NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=$1 timeout 20 ip netns exec "$NS" python3 -c '
import ctypes, sys
lib = ctypes.CDLL("libnccl.so.2")
buf = ctypes.create_string_buffer(128)
sys.exit(lib.ncclGetUniqueId(buf))' 2>&1 | sed -n 's/.*Bootstrap: Using \([^:]*\):.*/\1/p' | head -1 || true
}
if python3 -c 'import ctypes; ctypes.CDLL("libnccl.so.2")' 2>/dev/null; then
  for p in dd ddv6 docker; do NCCL_TRUTH+="$p=$(nccl_pick $p);"; done
  echo "NCCL's own choices: $NCCL_TRUTH"
else
  SKIPPED+=("NCCL ground-truth checks: no loadable libnccl.so.2")
fi

NCCL_TRUTH=$NCCL_TRUTH HAVE_BOND=$HAVE_BOND HAVE_VLAN=$HAVE_VLAN python3 - "$TMP/facts.json" <<'PY'
import json, os, sys
f = json.load(open(sys.argv[1]))
net = f["net"]
ifs = {i["name"]: i for i in net["interfaces"]}
errors = []
def check(cond, msg):
    if not cond:
        errors.append(msg)

names = [i["name"] for i in net["interfaces"]]
with_addr = [i for i in net["interfaces"] if i["order"] >= 0]
orders = [i["order"] for i in with_addr]
check(orders == sorted(orders), f"interfaces not in getifaddrs order: {names}")
first_without = next((k for k, i in enumerate(net["interfaces"]) if i["order"] < 0), len(names))
check(all(i["order"] < 0 for i in net["interfaces"][first_without:]), f"address-less interfaces not last: {names}")
# IPv4 addresses come before IPv6 ones in getifaddrs, so the IPv6-only link sorts after every IPv4 one.
v4_names = [i["name"] for i in with_addr if i["ipv4"]]
check(names.index("ddv6a") > max(names.index(n) for n in v4_names), f"ddv6a should follow the IPv4 interfaces: {names}")
check(names[0] == "lo", f"lo should be first: {names}")

kinds = {"lo": "loopback", "docker0": "docker", "ddpeer0": "veth", "dddown0": "veth", "dddown1": "veth",
         "ddv6a": "veth"}
if os.environ["HAVE_BOND"] == "1":
    kinds.update({"ddbond0": "bond", "ddslave0": "veth"})
if os.environ["HAVE_VLAN"] == "1":
    kinds["ddpeer0.7"] = "vlan"
for n, k in kinds.items():
    check(n in ifs, f"{n} missing from {names}")
    if n in ifs:
        check(ifs[n]["kind"] == k, f"{n}: kind {ifs[n]['kind']}, want {k}")

d = ifs.get("docker0", {})
check(d.get("ipv4") == ["198.18.0.1/24"], f"docker0 ipv4 {d.get('ipv4')}")
check(d.get("up") and d.get("running"), "docker0 should be up and running")
check(d.get("mtu") == 1500, f"docker0 mtu {d.get('mtu')}")
check(len(d.get("mac", "")) == 17, f"docker0 mac {d.get('mac')}")
check(d.get("index", 0) > 0, "docker0 index")
down = ifs.get("dddown0", {})
check(down.get("up") is False and down.get("running") is False, "dddown0 should be down")
check(down.get("ipv4") == ["198.18.1.1/24"], f"dddown0 ipv4 {down.get('ipv4')}")
check(ifs.get("dddown1", {}).get("order") == -1, "dddown1 has no address: order -1")
v6 = ifs.get("ddv6a", {})
check(v6.get("ipv4") == [], f"ddv6a ipv4 {v6.get('ipv4')}")
check(len(v6.get("ipv6", [])) >= 1 and all(a.startswith("fe80:") and a.endswith("/64") for a in v6["ipv6"]),
      f"ddv6a ipv6 {v6.get('ipv6')}")
check(ifs.get("lo", {}).get("ipv4") == ["127.0.0.1/8"], "lo ipv4")
check(net["default_route_ifname"] == "docker0", f"default route {net['default_route_ifname']}")
if os.environ["HAVE_BOND"] == "1":
    check(ifs["ddslave0"]["master"] == "ddbond0", f"ddslave0 master {ifs['ddslave0']['master']}")
    check(ifs["ddbond0"]["ipv4"] == ["198.18.2.1/24"], "ddbond0 ipv4")
check(not any(e.startswith("net:") for e in f["probe_errors"]), f"net probe errors: {f['probe_errors']}")

# Ground truth, when a libnccl.so.2 is loadable: NCCL's own bootstrap choice for a prefix must be the first
# running interface of that prefix, with an address, in the facts' order.
truth = os.environ.get("NCCL_TRUTH", "")
for line in filter(None, truth.split(";")):
    prefix, used = line.split("=", 1)
    want = next((i["name"] for i in net["interfaces"] if i["name"].startswith(prefix) and i["running"]
                 and (i["ipv4"] or i["ipv6"])), "")
    check(used == want, f"NCCL_SOCKET_IFNAME={prefix}: NCCL used {used!r}, facts order says {want!r}")

if errors:
    print("FAIL:\n  " + "\n  ".join(errors))
    print(json.dumps(net, indent=1))
    sys.exit(1)
print(f"ok: {len(names)} interfaces checked in namespace: {names}")
PY
if [ ${#SKIPPED[@]} -gt 0 ]; then
  echo "SKIP: the rest passed, but not run: $(IFS=';'; echo "${SKIPPED[*]}")"
  exit 77
fi
