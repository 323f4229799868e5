#!/bin/bash
# No node runs a command it read from the store (issue 36, the critical case). Two launch nodes in network
# namespaces and an attacker on a third:
# A. Under Slurm's variables with no DISTDOCTOR_TOKEN, the attacker computes the token the way distdoctor used
#    to derive it (job id and uid, with a constant key: anyone who reads squeue can), joins node rank 0's
#    store and rewrites launch/job to run `touch PWNED`. The job token now comes from the user's secret file
#    (a shared home: XDG_CONFIG_HOME here), so the store refuses the attacker, and the job runs its own command.
# B. The attacker holds the real token (a leaked one; with etcd any user could write values before they were
#    sealed) and rewrites launch/job, the digest included. Node 1 runs nothing it read: it compares its own
#    command's digest, stops with launch.join.command_differs naming node rank 0, and PWNED never appears.
# Both failed before: node 1 ran the replaced command as the job's owner and reported pass.
# Needs root; exits 77 (skipped) otherwise.
set -u
BIN=$(realpath "${1:-build/distdoctor}")
POKE="$(dirname "$BIN")/store_poke"
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/netns_lib.sh"
nl_require
[ -x "$POKE" ] || { echo "FAIL: $POKE not built (cmake --build build --target store_poke)"; exit 1; }
nl_plain_env
unset LOCAL_RANK MASTER_ADDR MASTER_PORT DISTDOCTOR_TOKEN
nl_setup 3 ""
W="$HERE/launch/worker.sh"
LOGS="$NL_DIR/logs"
slurm() {  # slurm I: Slurm's variables of task I of job 4243 (one task per node), meeting on node 0
  echo SLURM_PROCID=$1 SLURM_STEP_ID=0 SLURM_NTASKS=2 SLURM_NNODES=2 SLURM_LOCALID=0 SLURM_NTASKS_PER_NODE=1 \
    SLURM_NODEID=$1 SLURM_JOB_ID=4243 SLURM_NODELIST='xnode[0-1]' MASTER_ADDR=198.18.0.1 MASTER_PORT=29433
}
wait_key() {  # the store is up once node 0 printed that it waits for nodes
  for _ in $(seq 100); do grep -q "waiting for nodes\|node rank 0 of" "$NL_DIR/$1.err" 2>/dev/null && return; sleep 0.1; done
}

# A: a token derived from public values.
mkdir -m 700 "$NL_DIR/victim" "$NL_DIR/attacker"
nl_start 0 xnode0 a0 -- env $(slurm 0) XDG_CONFIG_HOME="$NL_DIR/victim" OTHERS_ACTION=ok \
  "$BIN" launch --nproc-per-node 1 --log-dir "$LOGS" --timeout 20 -- sh "$W"
sleep 1
nl_start 2 xnode2 pa -- env $(slurm 1) XDG_CONFIG_HOME="$NL_DIR/attacker" \
  "$POKE" 198.18.0.1:29433 --old-derived-token -- sh -c "touch $NL_DIR/PWNED_A"
nl_wait_nodes 25 pa
nl_start 1 xnode1 a1 -- env $(slurm 1) XDG_CONFIG_HOME="$NL_DIR/victim" OTHERS_ACTION=ok \
  "$BIN" launch --nproc-per-node 1 --log-dir "$LOGS" --timeout 20 -- sh "$W"
nl_wait_nodes 30 a0 a1
echo "info: attacker A: rc $(nl_rc pa): $(cat "$NL_DIR/pa.out" "$NL_DIR/pa.err")"
[ ! -e "$NL_DIR/PWNED_A" ] || { echo "FAIL: A: node 1 ran the command the attacker wrote into the store"; exit 1; }
[ "$(nl_rc pa)" = 2 ] || { echo "FAIL: A: the store did not refuse a token derived from the job id alone"; exit 1; }
for i in 0 1; do
  [ "$(nl_rc a$i)" = 0 ] || { echo "FAIL: A: node $i exit $(nl_rc a$i)"; nl_out a$i; cat "$NL_DIR/a$i.err"; exit 1; }
done
grep -q "job token derived from the job id and your secret" "$NL_DIR/a0.out" ||
  { echo "FAIL: A: the report does not say where the token came from"; nl_out a0; exit 1; }
perm=$(stat -c %a "$NL_DIR/victim/distdoctor/job-secret")
[ "$perm" = 600 ] || { echo "FAIL: A: the secret file has mode $perm"; exit 1; }
echo "ok: A: the attacker's derived token was refused; both nodes ran their own command (secret mode $perm)"

# B: the attacker holds the token.
TOK=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
nl_start 0 xnode0 b0 -- env DISTDOCTOR_TOKEN="$TOK" OTHERS_ACTION=ok "$BIN" launch --nnodes 2 --node-rank 0 \
  --master 198.18.0.1:29434 --nproc-per-node 1 --log-dir "$LOGS" --timeout 15 -- sh "$W"
wait_key b0
nl_start 2 xnode2 pb -- env DISTDOCTOR_TOKEN="$TOK" "$POKE" 198.18.0.1:29434 -- sh -c "touch $NL_DIR/PWNED_B"
nl_wait_nodes 25 pb
[ "$(nl_rc pb)" = 0 ] || { echo "FAIL: B: the token holder could not write (rc $(nl_rc pb))"; cat "$NL_DIR/pb.err"; exit 1; }
nl_start 1 xnode1 b1 -- env DISTDOCTOR_TOKEN="$TOK" OTHERS_ACTION=ok "$BIN" launch --nnodes 2 --node-rank 1 \
  --master 198.18.0.1:29434 --nproc-per-node 1 --log-dir "$LOGS" --timeout 15 -- sh "$W"
nl_wait_nodes 30 b1 b0
[ ! -e "$NL_DIR/PWNED_B" ] || { echo "FAIL: B: node 1 ran the command the attacker wrote into the store"; exit 1; }
[ "$(nl_rc b1)" = 3 ] || { echo "FAIL: B: node 1 exit $(nl_rc b1), want 3"; nl_out b1; cat "$NL_DIR/b1.err"; exit 1; }
expect b1 "launch.join.command_differs"
expect b1 "node rank 0 was started with another command than this node .rank 1."
[ "$(nl_rc b0)" != 0 ] || { echo "FAIL: B: node 0 reported success without node 1"; nl_out b0; exit 1; }
echo "ok: B: node 1 refused the settings whose command digest differs from its own; nothing ran"
