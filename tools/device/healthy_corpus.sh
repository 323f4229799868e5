#!/usr/bin/env bash
# Device batch for issue 25 (a healthy node gets a clean bill) and issue 30's last open point, on a 4-GPU
# machine: healthy_corpus.sh DIR (DIR: a stripped distdoctor and lib/, as tools/device/launch_hangs.sh uses).
#   1. facts of the whole node, of CUDA_VISIBLE_DEVICES subsets (0; 1,2; 0,1,2,3 reordered 3,2,1,0), and of the
#      node with a container-sized /dev/shm (64 MiB and 1 MiB tmpfs in a private mount namespace): the healthy
#      corpus (fixtures/facts/healthy/), each must be `check --facts` pass with no warn (or a warn only for
#      the small /dev/shm)
#   2. `check` wall time, 7 runs, with DISTDOCTOR_PROBE_TIMING's per-probe times; `check --collectives`, 3 runs
#   3. a 4-rank PyTorch job (tools/device/hang_worker.py healthy) under `launch` with a 1 MiB /dev/shm and
#      NCCL_P2P_DISABLE=1: the preflight must start it (warn) and the job run to the end
#   4. bench all_reduce 1 GiB with rank 3 stalled in its own code (--fault 3:stall@0): who is named
# Everything lands in $OUT/healthy (summary.txt first). NCCL_NVLS_ENABLE=0 throughout.
set -u
DIR=$(cd "$1" && pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export LD_LIBRARY_PATH=$DIR/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=$DIR/distdoctor
HERE=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp}/healthy
mkdir -p "$O/facts"
S=$O/summary.txt
ms() { date +%s%3N; }
verdict() { python3 -c "import json,sys;r=json.load(open(sys.argv[1]));print(r['verdict'], [f['id']+':'+f['severity'] for f in r['findings'] if f['severity'] in ('warn','fail')])" "$1" 2>&1; }

"$B" facts --json >"$O/facts/h100x4.json"
CUDA_VISIBLE_DEVICES=0 "$B" facts --json >"$O/facts/h100x4_cvd0.json"
CUDA_VISIBLE_DEVICES=1,2 "$B" facts --json >"$O/facts/h100x4_cvd12.json"
CUDA_VISIBLE_DEVICES=3,2,1,0 "$B" facts --json >"$O/facts/h100x4_cvd3210.json"
for size in 64m 1m; do
  unshare -m sh -c "mount -t tmpfs -o size=$size tmpfs /dev/shm && exec \"$B\" facts --json" \
    >"$O/facts/h100x4_shm$size.json" 2>"$O/facts/h100x4_shm$size.err" || echo "shm $size: unshare/mount failed: $(cat "$O/facts/h100x4_shm$size.err")" >>"$S"
done
for f in "$O"/facts/*.json; do
  [ -s "$f" ] || continue
  "$B" check --facts "$f" --json >"$f.check" 2>/dev/null
  echo "check --facts $(basename "$f"): $(verdict "$f.check")" >>"$S"
done

for i in 1 2 3 4 5 6 7; do
  t0=$(ms); DISTDOCTOR_PROBE_TIMING=1 "$B" check --json >"$O/check$i.json" 2>"$O/check$i.err"; rc=$?; t1=$(ms)
  echo "check $i: exit $rc, $((t1 - t0)) ms, $(verdict "$O/check$i.json"); $(grep 'probe timing' "$O/check$i.err")" >>"$S"
done
for i in 1 2 3; do
  t0=$(ms); "$B" check --collectives --json >"$O/coll$i.json" 2>"$O/coll$i.err"; rc=$?; t1=$(ms)
  echo "check --collectives $i: exit $rc, $((t1 - t0)) ms, $(verdict "$O/coll$i.json")" >>"$S"
done

mkdir -p "$O/shm1m"
t0=$(ms)
unshare -m sh -c "mount -t tmpfs -o size=1m tmpfs /dev/shm && NCCL_P2P_DISABLE=1 STEPS=20 exec \"$B\" launch \
  --nproc-per-node 4 --log-dir \"$O/shm1m/logs\" --job-id shm1m --tee none --json -- python3 \"$HERE/hang_worker.py\" healthy" \
  >"$O/shm1m/report.json" 2>"$O/shm1m/launch.err"
rc=$?; t1=$(ms)
echo "launch, /dev/shm 1 MiB, NCCL_P2P_DISABLE=1: exit $rc, $((t1 - t0)) ms, $(verdict "$O/shm1m/report.json")" >>"$S"
grep -h "sys.shm\|preflight" "$O/shm1m/launch.err" | head -5 >>"$S"

t0=$(ms)
timeout -k 5 120 "$B" bench -c all_reduce -b 1G -e 1G -n 20 --fault 3:stall@0 --json >"$O/stall.json" 2>"$O/stall.err"
rc=$?; t1=$(ms)
echo "bench --fault 3:stall@0: exit $rc, $((t1 - t0)) ms: $(python3 -c "import json;r=json.load(open('$O/stall.json'));f=[x for x in r['findings'] if x['severity']=='fail'];print(f[0]['id'], f[0]['title'], f[0].get('rank')) if f else print('no fail')" 2>&1)" >>"$S"
cat "$S"
