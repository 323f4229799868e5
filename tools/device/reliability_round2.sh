#!/usr/bin/env bash
# Issue 28 on a 4-GPU machine: launch_hangs.sh desync/stall/exception cases, the same --job-id twice (the second
# run goes to JOB.2), and 4 ranks that each leave a `setsid sleep 777` (named as launch.job.strays, stopped).
# Usage (device tool, a stripped distdoctor and lib/ carried in .devcarry/hangs): bash tools/device/reliability_round2.sh
set -u
fail=0
export LD_LIBRARY_PATH=$PWD/.devcarry/hangs/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
B=$PWD/.devcarry/hangs/distdoctor
NO_HEALTHY=1 OUT=$OUT bash tools/device/launch_hangs.sh .devcarry/hangs desync_op:desync_op:600 stall_idle:stall_idle:600 exception:exception:600 2>&1 | tail -8
for r in 1 2; do
  $B launch --nproc-per-node 4 --log-dir $OUT/again --job-id again --tee none -- python3 tools/device/hang_worker.py healthy > $OUT/again_$r.txt 2>&1; rc=$?; echo "again run $r: exit $rc"; [ $rc = 0 ] || fail=1
  grep -E "logs:|verdict" $OUT/again_$r.txt
done
ls $OUT/again
$B launch --nproc-per-node 4 --log-dir $OUT/stray --tee none -- bash -c 'setsid sleep 777 </dev/null >/dev/null 2>&1 & exec python3 tools/device/hang_worker.py healthy' > $OUT/stray.txt 2>&1; rc=$?; echo "stray run: exit $rc"; [ $rc = 0 ] || fail=1
grep -E "strays|pid|verdict" $OUT/stray.txt | head -8
if pgrep -f "sleep 777"; then echo "LEFT: sleep 777 still runs"; fail=1; else echo "no sleep 777 left"; fi
grep -q "again.2/ATTEMPT" $OUT/again_2.txt || { echo "the second run did not get its own folder"; fail=1; }
cd $OUT && tar czf all.tgz launch_hangs again_*.txt stray.txt 2>/dev/null; ls -la all.tgz
exit $fail
