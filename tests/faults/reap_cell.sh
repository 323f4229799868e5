#!/bin/bash
# After a cell hit the matrix's hard timeout: kills what is left of it (its marked processes, by pid) and
# removes its network namespaces and temp dir. Usage: reap_cell.sh CELL_DIR (as run_matrix.sh made it).
dir=$1
mark=$(cat "$dir/mark" 2>/dev/null)
nlid=$(cat "$dir/nlid" 2>/dev/null)
if [ -n "$mark" ]; then
  for p in /proc/[0-9]*; do
    grep -qsaz "^FM_MARK=$mark$" "$p/environ" || continue
    echo "reaped ${p#/proc/}: $(tr '\0' ' ' <"$p/cmdline" | cut -c1-80)"
    kill -CONT "${p#/proc/}" 2>/dev/null; kill -9 "${p#/proc/}" 2>/dev/null
  done
fi
if [ -n "$nlid" ]; then
  for ns in $(ip netns list | awk '{print $1}' | grep "^$nlid"); do ip netns del "$ns"; done
  rm -rf "$dir/tmp/$nlid".*
fi
