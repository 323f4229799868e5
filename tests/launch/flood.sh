#!/bin/sh
# Test worker: rank 0 writes $FLOOD_MB MiB of 100-byte lines as fast as it can; rank 1 does a fixed amount of
# its own work and records how long it took in its log.
if [ "$RANK" = 0 ]; then
  head -c $((FLOOD_MB * 1048576)) /dev/zero | tr '\0' 'x' | fold -w 99
  exit 0
fi
start=$(date +%s%N)
i=0
while [ $i -lt 20000 ]; do i=$((i + 1)); done
echo "rank 1 work took $((($(date +%s%N) - start) / 1000000)) ms"
