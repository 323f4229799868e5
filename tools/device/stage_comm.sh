#!/bin/bash
# Stages what tools/device/comm_batch.sh needs into DEST (default .devcarry/comm of this checkout, an ignored
# folder of the checkout the device tool sends): stripped distdoctor, its shared libraries, the scripts.
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
DEST=${1:-$SRC/.devcarry/comm}
rm -rf "$DEST" && mkdir -p "$DEST/lib"
strip -o "$DEST/distdoctor" "$SRC/build/distdoctor"
for l in libfmt.so.9 libgloo.so.0 libhiredis.so.0.14 libibverbs.so.1 libnl-route-3.so.200 libnl-3.so.200; do
  p=$(ldd "$SRC/build/distdoctor" | awk -v l=$l '$1==l{print $3}')
  [ -n "$p" ] && cp -L "$p" "$DEST/lib/"
done
cp "$SRC/tools/device/comm_batch.sh" "$SRC/bench/torch_busbw.py" "$SRC/bench/compare_torch.py" "$DEST/"
du -sh "$DEST"
