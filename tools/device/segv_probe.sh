#!/usr/bin/env bash
# The exception case of tools/device/hang_worker.py under torchrun twice: with the Flight Recorder variables
# launch sets, then with only a faulthandler sitecustomize like launch's hook; prints each run's exit codes (is
# either one what turns launch's exit 1 into SIGSEGV? On 4x H100 neither alone did). Run from the checkout.
W=$(mktemp -d); mkdir -p $W/site
build_site() { python3 - "$W/site" <<'PY'
import sys
open(sys.argv[1] + "/sitecustomize.py", "w").write("import faulthandler, signal, os\nf = open(os.environ['DD_SF'], 'a')\nfaulthandler.register(signal.SIGUSR2, file=f, all_threads=True, chain=False)\nimport sys; sys._f = f\n")
PY
}
build_site
TORCH_FR_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1 TORCH_FR_DUMP_TEMP_FILE=$W/fr_ TORCH_NCCL_DEBUG_INFO_PIPE_FILE=$W/pipe_ timeout 60 python3 -m torch.distributed.run --standalone --nproc_per_node=4 tools/device/hang_worker.py exception > $W/fr.log 2>&1
echo "FR only: torchrun exit $?; $(grep -o 'exitcode *: [-0-9]*' $W/fr.log | head -2 | tr '\n' ' ')"
DD_SF=$W/stack PYTHONPATH=$W/site timeout 60 python3 -m torch.distributed.run --standalone --nproc_per_node=4 tools/device/hang_worker.py exception > $W/hook.log 2>&1
echo "hook only: torchrun exit $?; $(grep -o 'exitcode *: [-0-9]*' $W/hook.log | head -2 | tr '\n' ' ')"
