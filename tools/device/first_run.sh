#!/bin/bash
# The first ten minutes of a new user on a GPU machine (issue 40): the README's quick start, each command as the
# README shows it, then the mistakes people make. Writes a markdown transcript to OUT_MD: each command as typed,
# its output as it came (stdout and stderr together; not a terminal, so no colour and no live status line), its
# exit code and wall time. The temporary folder the commands run in is written as ~/demo.
# Usage: tools/device/first_run.sh CARRY_DIR OUT_MD   (CARRY_DIR made by tools/device/stage_binary.sh: the binary
# and its libraries; PyTorch and NCCL on the machine)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
CARRY=$(cd "$1" && pwd)
OUT_MD=$(realpath -m "$2")
source "$HERE/torch_nccl_env.sh" "$CARRY"
export PATH=$CARRY:$PATH
work=$(mktemp -d)
cd "$work" || exit 1
cp "$HERE/first_run_train.py" train.py
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$ngpu" -gt 0 ] || ngpu=2  # no GPU: the transcript still runs (its GPU steps then fail, as they would)

# step TITLE COMMAND: runs COMMAND in bash, appends it and its output to the transcript.
step() {
  local t0=$EPOCHREALTIME rc
  bash -c "$2" >out.txt 2>&1
  rc=$?
  {
    printf '\n### %s\n\n```\n$ %s\n' "$1" "$2"
    sed "s|$work|~/demo|g; s|$CARRY/||g" out.txt
    printf '```\nexit code %s, %s s\n' "$rc" "$(secs "$t0")"
  } >>"$OUT_MD"
  echo "$1: exit $rc" >&2
}

{
  echo "# The first ten minutes with distdoctor"
  echo
  echo "Recorded by \`tools/device/first_run.sh\` on $(date -u +%Y-%m-%d), $ngpu GPU(s): $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | sed 's/^ *//' | paste -sd, -)."
  echo "Every block is one command as typed and its output as it came."
} >"$OUT_MD"

printf '\n## The quick start\n' >>"$OUT_MD"
step "What is this?" "distdoctor --version"
step "Is this node ready?" "distdoctor check"
step "Do the GPUs talk to each other?" "distdoctor check --collectives"
step "How fast?" "distdoctor bench -b 1M -e 64M -f 4"
step "Run my job under it" "distdoctor launch --nproc-per-node $ngpu -- python3 train.py"
step "A rank crashes" "FAULT=crash distdoctor launch --nproc-per-node $ngpu -- python3 train.py"
step "A rank hangs" "FAULT=hang distdoctor launch --nproc-per-node $ngpu --hang-timeout 10 -- python3 train.py"
step "A hang, and Ctrl-C after 15 s" "FAULT=hang timeout --preserve-status -s INT 15 distdoctor launch --nproc-per-node $ngpu -- python3 train.py"
step "Read the run again later" "distdoctor logs --brief distdoctor-logs"
step "What does this message mean?" "distdoctor explain 'NCCL WARN Net : No interface found in the same subnet as remote address'"
step "What does this finding mean?" "distdoctor explain launch.hang"

printf '\n## The mistakes people make\n' >>"$OUT_MD"
step "The command without --" "distdoctor launch python3 train.py"
step "torchrun's spelling" "distdoctor launch --nproc_per_node $ngpu -- python3 train.py"
step "A typo in a flag" "distdoctor check --colectives"
step "A typo in a command" "distdoctor chek"
step "A typo in a finding id" "distdoctor explain gpu.nvml_misng"
step "A typo in the program" "distdoctor launch --nproc-per-node $ngpu -- pyhton3 train.py"
step "A file with nothing to read" "distdoctor logs /etc/hostname"
step "Sizes the wrong way round" "distdoctor bench -b 1M -e 1K"
step "Sizes that cannot fit" "distdoctor bench -b 1T -e 1T"
step "One process" "distdoctor bench --nproc-per-node 1 -b 1M -e 1M"
step "Two nodes, output to a file" "distdoctor check --nnodes 2 --deadline 3 2>&1 | tee check.txt"
rm -rf "$work"
