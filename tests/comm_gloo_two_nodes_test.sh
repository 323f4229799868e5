#!/bin/bash
# Two nodes as network namespaces (veth, 198.18.0.0/15), each running its own `distdoctor bench` with one
# Gloo rank; node A serves the embedded TCP store, node B joins it with the token. Every collective must
# be verified on both. Then B is started with a wrong token: it must fail naming the store, within deadline.
# Needs root and iproute2; exit 77 (skipped) otherwise.
set -u
DD=${1:?path to distdoctor}
[ "$(id -u)" = 0 ] || { echo "skip: needs root for network namespaces"; exit 77; }
command -v ip >/dev/null || { echo "skip: no iproute2"; exit 77; }
id=dd$(head -c3 /dev/urandom | od -An -tx1 | tr -d ' \n')
A=${id}a B=${id}b
cleanup() { ip netns del "$A" 2>/dev/null; ip netns del "$B" 2>/dev/null; }
trap cleanup EXIT
ip netns add "$A" && ip netns add "$B" || { echo "skip: cannot create namespaces"; exit 77; }
ip link add "${id}x" netns "$A" type veth peer name "${id}y" netns "$B" || exit 1
ip -n "$A" link set "${id}x" name ddv && ip -n "$B" link set "${id}y" name ddv
ip -n "$A" addr add 198.18.0.1/24 dev ddv && ip -n "$B" addr add 198.18.0.2/24 dev ddv
for n in "$A" "$B"; do ip -n "$n" link set lo up; ip -n "$n" link set ddv up; done
export DD_STORE_TOKEN=tok-$id
common=(bench --engine gloo --nproc 1 --world 2 -c all -b 4K -e 64K -f 4 --gloo-iface ddv
        --store tcp://198.18.0.1:29561 --timeout 10)
ip netns exec "$A" "$DD" "${common[@]}" --first-rank 0 --store-master --init-timeout 10 >"/tmp/$id.a" 2>&1 &
pa=$!
ip netns exec "$B" "$DD" "${common[@]}" --first-rank 1 --init-timeout 10 >"/tmp/$id.b" 2>&1
rb=$?
wait $pa
ra=$?
fail=0
for n in a b; do
  grep -q "verdict: pass" "/tmp/$id.$n" || { echo "FAIL: node $n did not pass"; tail -20 "/tmp/$id.$n"; fail=1; }
done
[ $ra = 0 ] && [ $rb = 0 ] || { echo "FAIL: exit codes $ra $rb"; fail=1; }
# Wrong token on node B: it must name the store and end within the init deadline.
ip netns exec "$A" "$DD" "${common[@]}" --first-rank 0 --store-master --init-timeout 3 >/dev/null 2>&1 &
pa=$!
start=$(date +%s)
DD_STORE_TOKEN=wrong ip netns exec "$B" "$DD" "${common[@]}" --first-rank 1 --init-timeout 3 >"/tmp/$id.b" 2>&1
rb=$?
took=$(( $(date +%s) - start ))
wait $pa
[ $rb = 2 ] && grep -q "cannot reach the store" "/tmp/$id.b" || { echo "FAIL: wrong token not named (rc=$rb)"; cat "/tmp/$id.b"; fail=1; }
[ $took -le 10 ] || { echo "FAIL: wrong token took $took s"; fail=1; }
rm -f "/tmp/$id.a" "/tmp/$id.b"
[ $fail = 0 ] && echo "ok: two namespace nodes through the TCP store; wrong token named in $took s"
exit $fail
