#!/bin/sh
# Test worker for launch_output_test.sh: OUTPUT_LINES lines (default 200), each written in two pieces; rank 1
# also a line of 100000 x's (longer than the terminal relay's 64 KiB pieces; OUTPUT_LONG=0: not); then a last
# line without newline.
# OUTPUT_SLOW=N: first N lines 0.2 s apart (time for the status line to be drawn and erased).
r=$RANK
i=0
while [ "$i" -lt "${OUTPUT_SLOW:-0}" ]; do echo "r$r slow $i"; sleep 0.2; i=$((i + 1)); done
i=0
while [ "$i" -lt "${OUTPUT_LINES:-200}" ]; do printf 'r%s line %s ' "$r" "$i"; printf 'end\n'; i=$((i + 1)); done
if [ "$r" = 1 ] && [ "${OUTPUT_LONG:-1}" = 1 ]; then printf 'r1 long '; head -c 100000 /dev/zero | tr '\0' x; echo; fi
printf 'r%s last words' "$r"
