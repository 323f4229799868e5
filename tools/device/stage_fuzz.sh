#!/bin/bash
# Stages the libFuzzer targets of build-fuzz (fuzz/run.sh builds them) into DEST (default .devcarry/fuzz, an
# ignored folder the device tool carries): the stripped targets, the shared libraries they load that a bare
# machine may lack, the seed corpora and tools/device/fuzz_farm.sh, which runs them on many cores; packed as
# DEST.tar.xz.
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
DEST=${1:-$SRC/.devcarry/fuzz}
BUILD=${FUZZ_BUILD_DIR:-$SRC/build-fuzz}
rm -rf "$DEST" && mkdir -p "$DEST/bin" "$DEST/lib" "$DEST/corpus"
for f in "$SRC"/fuzz/*.cc; do
  name=$(basename "$f" .cc)
  [ -x "$BUILD/${name}_fuzz" ] || { echo "stage_fuzz: $BUILD/${name}_fuzz missing (run fuzz/run.sh 1 first)"; exit 1; }
  strip -o "$DEST/bin/${name}_fuzz" "$BUILD/${name}_fuzz"
  cp -r "$SRC/fuzz/corpus/$name" "$DEST/corpus/"
done
for l in $(ldd "$DEST"/bin/*_fuzz | awk '$3 ~ /^\// {print $3}' | sort -u); do
  case $(basename "$l") in libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so* | ld-linux*) ;;
  *) cp -L "$l" "$DEST/lib/" ;;
  esac
done
cp "$SRC/tools/device/fuzz_farm.sh" "$DEST/"
# ASan targets are large: the device tool carries the packed folder (tar -xJf DEST.tar.xz there).
tar -cJf "$DEST.tar.xz" -C "$(dirname "$DEST")" "$(basename "$DEST")"
du -sh "$DEST" "$DEST.tar.xz"
