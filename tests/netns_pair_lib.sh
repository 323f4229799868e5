# Sourced by tests: two network namespaces "${id}a" and "${id}b" joined by a veth pair named ddv on both sides,
# 198.18.0.1/24 in A and 198.18.0.2/24 in B, lo and ddv up, removed on exit. Needs root and iproute2: exits 77
# (skipped) otherwise. Sets id, A, B, and NP_TMP: a temp dir under $TMPDIR, removed on exit too.
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root for network namespaces"; exit 77; }
command -v ip >/dev/null || { echo "SKIP: no iproute2"; exit 77; }
id=dd$(head -c3 /dev/urandom | od -An -tx1 | tr -d ' \n')
A=${id}a B=${id}b
NP_TMP=$(mktemp -d "${TMPDIR:-/tmp}/$id.XXXXXX")
cleanup() { ip netns del "$A" 2>/dev/null; ip netns del "$B" 2>/dev/null; rm -rf "$NP_TMP"; }
trap cleanup EXIT
ip netns add "$A" && ip netns add "$B" || { echo "SKIP: cannot create namespaces"; exit 77; }
ip link add "${id}x" netns "$A" type veth peer name "${id}y" netns "$B" || exit 1
ip -n "$A" link set "${id}x" name ddv && ip -n "$B" link set "${id}y" name ddv
ip -n "$A" addr add 198.18.0.1/24 dev ddv && ip -n "$B" addr add 198.18.0.2/24 dev ddv
for n in "$A" "$B"; do ip -n "$n" link set lo up; ip -n "$n" link set ddv up; done
