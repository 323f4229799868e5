#!/bin/bash
# The namespace cluster meeting through etcd (--master etcd://HOST:PORT) instead of the embedded store;
# run twice on one etcd to show a run leaves no keys that confuse the next.
# Needs root and etcd; exits 77 otherwise. Usage: cluster_etcd_test.sh path/to/distdoctor
set -u
BIN=$(realpath "${1:-build/distdoctor}")
. "$(dirname "$0")/netns_lib.sh"
nl_require
command -v etcd >/dev/null || { echo "SKIP: etcd not installed"; exit 77; }
nl_plain_env
nl_setup 3 ""
CP=$((30000 + RANDOM % 20000))
PP=$((CP + 1))
C=http://198.18.0.1:$CP
nl_start 0 etcd etcd -- etcd --name dd --data-dir "$NL_DIR/etcd" --listen-client-urls $C --advertise-client-urls $C \
  --listen-peer-urls http://127.0.0.1:$PP --initial-advertise-peer-urls http://127.0.0.1:$PP \
  --initial-cluster dd=http://127.0.0.1:$PP
for run in 1 2; do
  for i in 0 1 2; do
    nl_start $i node$i e$run$i -- "$BIN" check --nnodes 3 --node-rank $i --master etcd://198.18.0.1:$CP \
      --token tok --timeout 20
  done
  for i in 0 1 2; do nl_wait e$run$i 25 || exit 1; done
  for i in 0 1 2; do
    expect e$run$i "all 3 nodes joined"
    expect e$run$i "rendezvous: etcd at"
    expect_not e$run$i "claimed by"
  done
done
echo PASS
