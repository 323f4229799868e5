#!/usr/bin/env bash
# CI check of the portable build (make portable-test): the binary's glibc floor and libraries, the binary run on
# glibc 2.31 itself (inside the bullseye tree of scripts/portable-deps.sh), the wheel installed with
# `pip install --no-index` into a fresh venv and the tarball unpacked into a fresh home, both by a user who is
# not root (nobody), then `distdoctor --version` and `distdoctor check --local` run from each with no library
# path set; then the CPU collective pass, passed or reported not run when the build has no Gloo. Usage: scripts/portable-test.sh BUILD_DIR (after make dist and make wheel). Root, as CI runs it.
set -euo pipefail
build=$(cd "${1:?usage: portable-test.sh BUILD_DIR}" && pwd)
bin=$build/distdoctor
floor=2.31
allowed="libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 ld-linux-x86-64.so.2"
fail() { echo "portable-test: FAIL: $*"; exit 1; }
say() { echo "portable-test: $*"; }
[ "$(id -u)" = 0 ] || { say "SKIP: the user switch and chroot need root (run as root, as CI does)"; exit 0; }

# 1. No glibc symbol above the floor, no libstdc++/libgcc_s symbol at all (both are linked in).
max=$(objdump -T "$bin" | grep -oE '\(GLIBC_[0-9.]+\)' | tr -d '()' | sed 's/GLIBC_//' | sort -uV | tail -1)
[ -n "$max" ] || fail "objdump -T shows no GLIBC symbol in $bin"
[ "$(printf '%s\n%s\n' "$max" "$floor" | sort -V | tail -1)" = "$floor" ] ||
  fail "asks for GLIBC_$max: $(objdump -T "$bin" | grep -E "GLIBC_$max" | awk '{print $NF}' | tr '\n' ' ')"
! objdump -T "$bin" | grep -qE 'GLIBCXX_|CXXABI_|GCC_[0-9]' || fail "asks for libstdc++/libgcc_s symbols"
say "highest glibc symbol version: GLIBC_$max (floor $floor)"
# 2. Only the C library's own files are needed.
for lib in $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
  [[ " $allowed " == *" $lib "* ]] || fail "needs $lib (only $allowed may be needed)"
done
! ldd "$bin" | grep -q "not found" || fail "ldd: $(ldd "$bin" | grep 'not found')"
say "needs: $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dd-portable-test.XXXXXX")
trap 'rm -rf "$tmp"; [ -z "${inroot:-}" ] || rm -rf "$inroot"' EXIT
# 3. On glibc 2.31 itself: the bullseye tree, with /proc and /sys mounted in a private mount namespace (gone with it).
root=${DD_PORTABLE_ROOT:-/var/tmp/distdoctor-bullseye}
if [ -x "$root/usr/bin/env" ]; then
  inroot=$(mktemp -d "$root/tmp/dd-portable-test.XXXXXX")
  cp "$bin" "$inroot/distdoctor"
  rel=${inroot#"$root"}
  out=$(unshare --mount --fork sh -c "mount -t proc proc '$root/proc' && mount -t sysfs sysfs '$root/sys' && chroot '$root' /usr/bin/env -i PATH=/usr/bin:/bin \
        HOME=/tmp NO_COLOR=1 sh -c '$rel/distdoctor --version && $rel/distdoctor check --local; echo rc=\$?'" 2>&1) ||
    fail "in the bullseye tree: $out"
  grep -q "^verdict:" <<<"$out" || fail "in the bullseye tree, check printed no verdict: $out"
  [ "$(sed -n 's/^rc=//p' <<<"$out")" -le 2 ] || fail "in the bullseye tree, check could not run: $out"
  say "on glibc $(chroot "$root" ldd --version | head -1 | awk '{print $NF}'): $(head -1 <<<"$out"), $(grep '^verdict:' <<<"$out")"
else
  say "no bullseye tree at $root: the run on glibc 2.31 is skipped"
fi

# As nobody, in a fresh home, with only PATH and HOME set: version and the local check (exit 0-2 with a verdict).
chown nobody "$tmp"
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups env -i PATH="$1:/usr/bin:/bin" HOME="$tmp" \
  NO_COLOR=1 bash -c "cd '$tmp' && $2"; }
run_both() {  # where the command is, a label
  local v out rc=0
  v=$(as_nobody "$1" "distdoctor --version") || fail "$2: distdoctor --version failed: $v"
  out=$(as_nobody "$1" "distdoctor check --local") || rc=$?
  [ $rc -le 2 ] || fail "$2: distdoctor check could not run (exit $rc): $out"
  grep -q "^verdict:" <<<"$out" || fail "$2: check printed no verdict: $out"
  say "$2: $v, $(grep '^verdict:' <<<"$out")"
}
# 4. The wheel, installed without network into a fresh venv.
whl=$(ls -1 "$build"/distdoctor-*-py3-none-manylinux_*_x86_64.whl 2>/dev/null | head -1)
[ -n "$whl" ] || fail "no wheel in $build (make wheel)"
cp "$whl" "$tmp/" && chown nobody "$tmp/$(basename "$whl")"
as_nobody /usr/bin "python3 -m venv venv && venv/bin/pip install -q --no-index --disable-pip-version-check \
  '$tmp/$(basename "$whl")'" >"$tmp/pip.log" 2>&1 || fail "pip install --no-index: $(cat "$tmp/pip.log")"
[ -x "$tmp/venv/bin/distdoctor" ] || fail "the wheel installed no venv/bin/distdoctor"
[ -e "$tmp/venv/share/man/man1/distdoctor.1.gz" ] || fail "the wheel installed no man page"
run_both "$tmp/venv/bin" "wheel $(basename "$whl")"
# 5. The tarball, unpacked in the home.
tgz=$(ls -1 "$build"/distdoctor-*-linux-x86_64.tar.gz 2>/dev/null | head -1)
[ -n "$tgz" ] || fail "no tarball in $build (make dist)"
as_nobody /usr/bin "tar -xzf '$tgz'" || fail "could not unpack $tgz"
top=$(ls -d "$tmp"/distdoctor-*-linux-x86_64)
for f in bin/distdoctor share/man/man1/distdoctor.1.gz share/bash-completion/completions/distdoctor \
         share/distdoctor/slurm/distdoctor-prolog.sh; do
  [ -e "$top/$f" ] || fail "the tarball lacks $f"
done
as_nobody "$top/bin" ". '$top/share/bash-completion/completions/distdoctor' && complete -p distdoctor" >/dev/null ||
  fail "the bash completion does not load"
run_both "$top/bin" "tarball $(basename "$tgz")"
# 6. The CPU collective pass: with Gloo in the build it passes; without (Debian ships Gloo only as a shared library,
# so `make portable` has it only from DD_GLOO_SRC) it is a warning that says so, never a failure of the node.
v=$("$bin" --version)
CUDA_VISIBLE_DEVICES= timeout 120 "$bin" check --local --collectives --nproc-per-node 2 --json >"$tmp/coll.json" 2>&1 &&
  rc=0 || rc=$?
if [[ $v == *gloo* ]]; then
  jq -e '.findings | any(.id == "comm.collectives.ok")' "$tmp/coll.json" >/dev/null ||
    fail "$v: the Gloo pass did not pass (exit $rc): $(head -c 2000 "$tmp/coll.json")"
  say "$v: the Gloo collective pass passed"
else
  jq -e '.findings | any(.id == "comm.collectives.not_run" and .severity == "warn")' "$tmp/coll.json" >/dev/null ||
    fail "$v: no comm.collectives.not_run warning (exit $rc): $(head -c 2000 "$tmp/coll.json")"
  ! jq -e '.findings | any((.id | startswith("comm.")) and .severity == "fail")' "$tmp/coll.json" >/dev/null ||
    fail "$v: a build without Gloo fails the node: $(jq -c '[.findings[] | select(.id | startswith("comm."))]' "$tmp/coll.json")"
  [ $rc -ge 1 ] && [ $rc -le 2 ] || fail "$v: check --collectives exit $rc, want 1 or 2 (a warning and the node's own findings)"
  say "$v: the CPU collective pass is reported not run (no Gloo), exit $rc"
fi
say "ok: wheel $(du -k "$whl" | cut -f1) KiB, tarball $(du -k "$tgz" | cut -f1) KiB"
