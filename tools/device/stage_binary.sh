#!/bin/bash
# Stages a build for the device machine into DEST (default .devcarry/dd, an ignored folder of this checkout that
# the device tool carries): the stripped distdoctor and the shared libraries it loads that a bare GPU machine
# may lack (libfmt, gloo, hiredis, ibverbs, libnl). Every GPU script of tools/device/ takes such a folder.
# Usage: tools/device/stage_binary.sh [DEST] (after `cmake --build build --target distdoctor`).
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
DEST=${1:-$SRC/.devcarry/dd}
rm -rf "$DEST" && mkdir -p "$DEST/lib"
strip -o "$DEST/distdoctor" "$SRC/build/distdoctor"
for l in libfmt.so.9 libgloo.so.0 libhiredis.so.0.14 libibverbs.so.1 libnl-route-3.so.200 libnl-3.so.200; do
  p=$(ldd "$SRC/build/distdoctor" | awk -v l=$l '$1==l{print $3}')
  [ -n "$p" ] && cp -L "$p" "$DEST/lib/"
done
du -sh "$DEST"
