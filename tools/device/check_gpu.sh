#!/bin/bash
# The GPU paths of `check` and `bench` on this node, for one build or several side by side (the build before a
# change and after it), each a folder with a stripped distdoctor and lib/ (tools/device/stage_binary.sh):
#   check       `check --local --collectives --json` on every GPU and on two, RUNS runs each with the builds
#               interleaved: exit code, verdict, the ids that are not ok, the median wall time
#   bench       `bench -c all -b 1M -e 64M -f 8 --json` (every timed run's data checked): rows incomplete or
#               wrong, and each collective's busbw at 64 MiB out of place; on a 1-GPU machine two ranks share
#               the GPU as two NCCL hosts (--nproc-per-node 2 --gpus 0,0 --fake-hosts)
#   threads     `bench --quick --threads --json`: one process driving every GPU
#   tune        `bench -c all_reduce --tune --tune-bytes 256M,1G --tune-seconds 20`: ends within about 22 s
#   cross_node  two `check --nnodes 2 --collectives` processes on GPU 0, each its own NCCL host (NCCL_HOSTID, P2P
#               and SHM off, sockets over lo), so NCCL's network path carries the cross-node pass
# Usage (repo root on the device): tools/device/check_gpu.sh NAME=DIR [NAME=DIR...]; STEPS (default: all five,
# in that order), RUNS (3). About 3 minutes per build on 4 GPUs. Writes $OUT/check_gpu/: summary.txt and
# reports.tgz (the last JSON report and stderr of each build and step: NAME.STEP.json). Exits 1 when a run of the
# first build gave no report.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: check_gpu.sh NAME=DIR [NAME=DIR...]" >&2; exit 2; }
BUILDS=("$@")
. "$HERE/torch_nccl_env.sh" "$(cd "${1#*=}" && pwd)"
FINAL=${OUT:-${TMPDIR:-/tmp}/dd-check-gpu}/check_gpu
O=$(mktemp -d)
mkdir -p "$FINAL"
S=$O/summary.txt
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader >"$S"
echo "NCCL: $NCCL" >>"$S"
NG=$(nvidia-smi -L | wc -l)
ONE_GPU=()  # a 1-GPU machine: two ranks on it, each its own NCCL host, so the collectives have a peer
[ "$NG" -eq 1 ] && ONE_GPU=(--nproc-per-node 2 --gpus 0,0 --fake-hosts)
FAILED=0

run_build() {  # run_build DIR ARGS...: that build's distdoctor with its own libraries and PyTorch's NCCL
  local dir=$1
  shift
  LD_LIBRARY_PATH="$dir/lib:$NCCL_DIR/lib" "$dir/distdoctor" "$@"
}

report() {  # report JSON: "verdict [ids that are not ok]", and for bench the rows' state and busbw at 64 MiB
  python3 - "$1" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print("no report:", e); sys.exit(1)
out = [str(r.get("verdict")), str(sorted(f["id"] for f in r.get("findings", []) if f["severity"] != "ok"))]
rows = r.get("results")
if rows:
    bad = [x for x in rows if not x.get("complete") or x.get("wrong")]
    bw = {x["collective"]: round(x["busbw_gbps"], 1) for x in rows if x["bytes"] == 64 << 20 and not x["in_place"]}
    out.append("%d rows, %d incomplete or wrong; busbw at 64 MiB: %s" % (len(rows), len(bad), bw))
print(" ".join(out))
PY
}

once() {  # once NAME DIR STEP ARGS...: one timed run of distdoctor ARGS, its report line in the summary
  local name=$1 dir=$2 step=$3 t0=$EPOCHREALTIME rc line
  shift 3
  run_build "$dir" "$@" --json >"$O/$name.$step.json" 2>"$O/$name.$step.err"
  rc=$?
  echo "$(secs "$t0")" >>"$O/$name.$step.walls"
  line=$(report "$O/$name.$step.json") || { [ "$name" = "${BUILDS[0]%%=*}" ] && FAILED=1; }
  echo "$name $step: rc=$rc wall $(tail -1 "$O/$name.$step.walls") s $line" >>"$S"
}

median() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)] " s (" a[1] "-" a[NR] ", n=" NR ")"}'; }

step_check() {
  local sets=(all)
  [ "$NG" -ge 2 ] && sets+=(0,1)
  for cvd in "${sets[@]}"; do
    for _ in $(seq "${RUNS:-3}"); do
      for b in "${BUILDS[@]}"; do
        local dir=$(cd "${b#*=}" && pwd) name=${b%%=*}
        if [ "$cvd" = all ]; then once "$name" "$dir" "check_$cvd" check --local --collectives --nccl-lib "$NCCL"
        else CUDA_VISIBLE_DEVICES=$cvd once "$name" "$dir" "check_$cvd" check --local --collectives --nccl-lib "$NCCL"; fi
      done
    done
    for b in "${BUILDS[@]}"; do echo "${b%%=*} check_$cvd median wall: $(median "$O/${b%%=*}.check_$cvd.walls")" >>"$S"; done
  done
}

step_cross_node() {  # step_cross_node NAME DIR
  local port=$((30000 + RANDOM % 20000)) token=xn-$RANDOM$RANDOM t0=$EPOCHREALTIME pids=()
  for r in 0 1; do
    CUDA_VISIBLE_DEVICES=0 NCCL_HOSTID="distdoctor-node-$r" NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_SOCKET_IFNAME=lo \
      DISTDOCTOR_TOKEN=$token LD_LIBRARY_PATH="$2/lib:$NCCL_DIR/lib" timeout 150 "$2/distdoctor" check --nnodes 2 \
      --master 127.0.0.1:$port --node-rank $r --collectives --json --timeout 60 --init-timeout 30 \
      >"$O/$1.cross_node_rank$r.json" 2>"$O/$1.cross_node_rank$r.err" &
    pids+=($!)
    sleep 0.5
  done
  wait "${pids[@]}"
  for r in 0 1; do echo "$1 cross_node rank $r: wall $(secs "$t0") s $(report "$O/$1.cross_node_rank$r.json")" >>"$S"; done
}

for step in ${STEPS:-check bench threads tune cross_node}; do
  echo "== $step" >>"$S"
  case $step in
    check) step_check ;;
    bench) for b in "${BUILDS[@]}"; do once "${b%%=*}" "$(cd "${b#*=}" && pwd)" bench bench -c all -b 1M -e 64M -f 8 "${ONE_GPU[@]}" --nccl-lib "$NCCL"; done ;;
    threads) for b in "${BUILDS[@]}"; do once "${b%%=*}" "$(cd "${b#*=}" && pwd)" threads bench --quick --threads --nccl-lib "$NCCL"; done ;;
    tune) for b in "${BUILDS[@]}"; do
        once "${b%%=*}" "$(cd "${b#*=}" && pwd)" tune bench -c all_reduce --tune --tune-bytes 256M,1G --tune-seconds 20 --nccl-lib "$NCCL"
      done ;;
    cross_node) for b in "${BUILDS[@]}"; do step_cross_node "${b%%=*}" "$(cd "${b#*=}" && pwd)"; done ;;
    *) echo "unknown step $step (check bench threads tune cross_node)" | tee -a "$S"; exit 2 ;;
  esac
done
rm -f "$O"/*.walls
cp "$S" "$FINAL/"
(cd "$O" && tar czf "$FINAL/reports.tgz" --exclude=summary.txt .)
cat "$S"
rm -rf "$O"
exit $FAILED
