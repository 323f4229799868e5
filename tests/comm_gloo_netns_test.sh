#!/bin/bash
# Gloo collectives between two network namespaces (two "nodes" joined by a veth pair, 198.18.0.0/15):
# every collective verified across them, then the link taken down so the run must fail within its
# deadline naming the cause. Needs root and iproute2; exit 77 (skipped) otherwise.
set -u
DD=${1:?path to distdoctor}
. "$(dirname "$0")/netns_pair_lib.sh"
# rank 0 in namespace A, rank 1 in B (the wrapper's {rank} picks the namespace by its last letter)
wrap="ip netns exec ${id}{rank}"
# Name the namespaces 0/1 for the wrapper: bind-mount aliases of A and B.
touch "/run/netns/${id}0" "/run/netns/${id}1"
mount --bind "/run/netns/$A" "/run/netns/${id}0" && mount --bind "/run/netns/$B" "/run/netns/${id}1" || exit 1
trap 'umount /run/netns/${id}0 /run/netns/${id}1 2>/dev/null; rm -f /run/netns/${id}0 /run/netns/${id}1; cleanup' EXIT
fail=0
out=$("$DD" bench --engine gloo --nproc 2 -c all -b 4K -e 256K -f 8 --gloo-iface ddv --worker-wrap "$wrap" \
  --init-timeout 10 --timeout 10 --json 2>&1)
rc=$?
echo "$out" | grep -q '"verdict": "pass"' || { echo "FAIL: collectives across namespaces did not pass (rc=$rc)"; echo "$out" | tail -30; fail=1; }
echo "$out" | grep -q '"wrong": 0' || { echo "FAIL: no verified results"; fail=1; }
# Link down: the ranks cannot meet; the run must end within the init deadline with a finding.
ip -n "$B" link set ddv down
start=$(date +%s)
out=$("$DD" bench --engine gloo --nproc 2 -c all_reduce -b 4K -e 4K --gloo-iface ddv --worker-wrap "$wrap" \
  --init-timeout 3 --timeout 3 2>&1)
rc=$?
took=$(( $(date +%s) - start ))
[ $rc = 2 ] || { echo "FAIL: link down should fail (rc=$rc)"; echo "$out"; fail=1; }
[ $took -le 12 ] || { echo "FAIL: took $took s, deadline was 3 s (+3 s supervisor margin)"; fail=1; }
echo "$out" | grep -q "FAIL" || { echo "FAIL: no failing finding"; echo "$out"; fail=1; }
[ $fail = 0 ] && echo "ok: gloo across namespaces; link down failed in $took s:" && echo "$out" | grep -A2 FAIL
exit $fail
