#!/usr/bin/env bash
# Makes the sysroot the portable build (make portable, cmake/portable-toolchain.cmake) compiles against: a
# Debian 11 "bullseye" tree (glibc 2.31) made with debootstrap, outside the source tree in
# ${DD_PORTABLE_ROOT:-/var/tmp/distdoctor-bullseye}. Into its opt/distdoctor/ go what bullseye lacks or has too
# old: the header-only libraries and OpenSSL 3 of this Debian 12 host (apt-get download, unpacked there), gcc-10's
# libgcc_eh.a (GCC 12's own calls _dl_find_object, glibc 2.35) and, when given its source, Gloo as a static
# library. Idempotent: a stamp file ends it at once when everything is there. Needs root (debootstrap, chroot).
set -euo pipefail
ROOT=${DD_PORTABLE_ROOT:-/var/tmp/distdoctor-bullseye}
MIRROR=${DD_DEBIAN_MIRROR:-http://deb.debian.org/debian}
GLOO_VERSION=0.0~git20220518.5b14351-3  # the libgloo-dev of Debian 12, which the normal build links
STAMP=$ROOT/.distdoctor-portable-2        # bump the number when what this script puts there changes
[ -e "$STAMP" ] && { [ -z "${DD_GLOO_SRC:-}" ] || [ -e "$ROOT/opt/distdoctor/usr/lib/libgloo.a" ]; } && exit 0
[ "$(id -u)" -eq 0 ] || { echo "portable-deps: needs root (debootstrap, chroot); run it with sudo" >&2; exit 1; }
here=$(cd "$(dirname "$0")/.." && pwd)
export DEBIAN_FRONTEND=noninteractive
need=()
for p in debootstrap cmake ninja-build g++ dpkg-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# 1. The bullseye tree, made aside and moved into place only when complete.
if [ ! -e "$ROOT/usr/lib/x86_64-linux-gnu/libc_nonshared.a" ]; then
  echo "portable-deps: debootstrap bullseye into $ROOT (a few minutes)"
  rm -rf "$ROOT.partial"
  debootstrap --variant=minbase --include=libc6-dev,zlib1g-dev,libgcc-10-dev bullseye "$ROOT.partial" "$MIRROR" \
    >"${TMPDIR:-/tmp}/distdoctor-debootstrap.log" 2>&1 ||
    { tail -20 "${TMPDIR:-/tmp}/distdoctor-debootstrap.log"; echo "portable-deps: debootstrap failed" >&2; exit 1; }
  rm -rf "$ROOT" && mv "$ROOT.partial" "$ROOT"
fi
# The linker reads the tree from outside: links to absolute paths (libc.so's loader, libpthread.so, ...) would
# point into this host, so each becomes relative to its own folder.
for l in $(find "$ROOT/usr/lib/x86_64-linux-gnu/" "$ROOT/usr/lib64/" -maxdepth 1 -type l -lname '/*'); do
  ln -sfn "$(realpath -ms --relative-to="$(dirname "$l")" "$ROOT$(readlink "$l")")" "$l"
done

# 2. What the build takes from Debian 12, unpacked into opt/distdoctor (never over the bullseye files).
P=$ROOT/opt/distdoctor
mkdir -p "$P/gcc-eh" "$P/debs"
cp "$ROOT/usr/lib/gcc/x86_64-linux-gnu/10/libgcc_eh.a" "$P/gcc-eh/"
(cd "$P/debs" && chown _apt . 2>/dev/null; apt-get download -qq libssl-dev libcli11-dev nlohmann-json3-dev libfmt-dev libfmt9 >/dev/null)
for d in "$P"/debs/*.deb; do dpkg-deb -x "$d" "$P"; done

# 3. Gloo, static, TCP transport only (what distdoctor uses), from a source tree named by DD_GLOO_SRC (e.g.
# Debian 12's gloo 0.0~git20220518.5b14351, what the normal build links). Without one the portable build has no
# Gloo engine: Debian ships Gloo only as a shared library, and the mirror here serves no upstream source tarballs
# (apt-get source gloo fails with 404 on the .orig.tar.xz).
if [ -n "${DD_GLOO_SRC:-}" ] && [ ! -e "$P/usr/lib/libgloo.a" ]; then
  echo "portable-deps: building Gloo (static) from $DD_GLOO_SRC against the bullseye tree"
  env -u LIBRARY_PATH -u CPATH cmake -S "$DD_GLOO_SRC" -B "$P/gloo-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$here/cmake/portable-toolchain.cmake" -DDD_PORTABLE_ROOT="$ROOT" \
    -DCMAKE_INSTALL_PREFIX="$P/usr" -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
    -DUSE_REDIS=OFF -DUSE_IBVERBS=OFF -DUSE_MPI=OFF -DUSE_CUDA=OFF -DUSE_LIBUV=OFF -DBUILD_TEST=OFF \
    -DCMAKE_CXX_FLAGS="-include array" >/dev/null  # its tcp/device.cc uses std::array unincluded (GCC 12 refuses)
  env -u LIBRARY_PATH -u CPATH nice -n 19 cmake --build "$P/gloo-build" -j 2 >/dev/null
  cmake --install "$P/gloo-build" >/dev/null
fi
[ -n "${DD_GLOO_SRC:-}" ] || [ -e "$P/usr/lib/libgloo.a" ] || echo "portable-deps: no DD_GLOO_SRC: the portable build has no Gloo engine"
touch "$STAMP"
echo "portable-deps: $ROOT is ready"
