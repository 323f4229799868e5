#!/bin/bash
# Two nodes as network namespaces (veth, 198.18.0.0/15), each running its own `distdoctor bench` with one
# Gloo rank; node A serves the embedded TCP store, node B joins it with the token. Every collective must
# be verified on both. Then B is started with a wrong token: it must fail naming the store, within deadline.
# Needs root and iproute2; exit 77 (skipped) otherwise.
set -u
DD=${1:?path to distdoctor}
. "$(dirname "$0")/netns_pair_lib.sh"
export DD_STORE_TOKEN=tok-$id
common=(bench --engine gloo --nproc 1 --world 2 -c all -b 4K -e 64K -f 4 --gloo-iface ddv
        --store tcp://198.18.0.1:29561 --timeout 10)
ip netns exec "$A" "$DD" "${common[@]}" --first-rank 0 --store-master --init-timeout 10 >"$NP_TMP/a" 2>&1 &
pa=$!
ip netns exec "$B" "$DD" "${common[@]}" --first-rank 1 --init-timeout 10 >"$NP_TMP/b" 2>&1
rb=$?
wait $pa
ra=$?
fail=0
for n in a b; do
  grep -q "verdict: pass" "$NP_TMP/$n" || { echo "FAIL: node $n did not pass"; tail -20 "$NP_TMP/$n"; fail=1; }
done
[ $ra = 0 ] && [ $rb = 0 ] || { echo "FAIL: exit codes $ra $rb"; fail=1; }
# Wrong token on node B: it must name the store and end within the init deadline.
ip netns exec "$A" "$DD" "${common[@]}" --first-rank 0 --store-master --init-timeout 3 >/dev/null 2>&1 &
pa=$!
start=$(date +%s)
DD_STORE_TOKEN=wrong ip netns exec "$B" "$DD" "${common[@]}" --first-rank 1 --init-timeout 3 >"$NP_TMP/b" 2>&1
rb=$?
took=$(( $(date +%s) - start ))
wait $pa
[ $rb = 2 ] && grep -q "cannot reach the store" "$NP_TMP/b" || { echo "FAIL: wrong token not named (rc=$rb)"; cat "$NP_TMP/b"; fail=1; }
[ $took -le 10 ] || { echo "FAIL: wrong token took $took s"; fail=1; }
[ $fail = 0 ] && echo "ok: two namespace nodes through the TCP store; wrong token named in $took s"
exit $fail
