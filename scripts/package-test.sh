#!/usr/bin/env bash
# The Debian package as a user gets it: `make package` built it; this installs build/distdoctor_*.deb with apt
# (which pulls its dependencies), checks what it put where, runs the installed `distdoctor check`, removes the
# package and checks that it left nothing. Needs root (it installs a system package): for another user it
# says so and exits 0 without doing anything; `make package-test` calls it, CI runs that as root.
# Refuses to touch a distdoctor package that was installed before it ran.
# Usage: scripts/package-test.sh BUILD_DIR
set -euo pipefail
build=${1:-build}
if [ "$(id -u)" != 0 ]; then
  echo "package-test: SKIP: installing a package needs root (run as root, as CI does)"
  exit 0
fi
deb=$(ls -1 "$build"/distdoctor_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { echo "package-test: FAIL: no $build/distdoctor_*.deb (make package)"; exit 1; }
if dpkg-query -W -f='${Status}' distdoctor 2>/dev/null | grep -q "install ok installed"; then
  echo "package-test: FAIL: a distdoctor package is already installed here; remove it first (dpkg -r distdoctor)"
  exit 1
fi
fail() { echo "package-test: FAIL: $*"; dpkg -r distdoctor >/dev/null 2>&1 || true; exit 1; }
echo "package-test: $(dpkg-deb -f "$deb" Package Version Architecture Depends | tr '\n' ' ')"
dpkg-deb -f "$deb" Depends | grep -q "libc6" || fail "the package's Depends has no libc6 (dpkg-shlibdeps did not run?)"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "./$deb" >/dev/null 2>&1 ||
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$(realpath "$deb")" >/dev/null || fail "apt could not install $deb"
for f in /usr/bin/distdoctor /usr/share/man/man1/distdoctor.1.gz /usr/share/bash-completion/completions/distdoctor \
         /usr/share/distdoctor/slurm/distdoctor-prolog.sh; do
  [ -e "$f" ] || fail "$f is not installed"
done
version=$(/usr/bin/distdoctor --version) || fail "distdoctor --version failed"
echo "package-test: installed: $version"
grep -Eq "^distdoctor [0-9]+\.[0-9]+\.[0-9]+ \(commit [0-9a-f]{7,}" <<<"$version" || fail "--version lacks the commit: $version"
ldd /usr/bin/distdoctor | grep -q "not found" && fail "the installed binary misses a library: $(ldd /usr/bin/distdoctor | grep 'not found')"
rc=0
(cd / && env -i PATH=/usr/bin:/bin HOME=/root NO_COLOR=1 distdoctor check --local >/tmp/dd-package-check.out 2>&1) || rc=$?
[ $rc -le 2 ] || { cat /tmp/dd-package-check.out; fail "the installed distdoctor check could not run (exit $rc)"; }
grep -q "^verdict:" /tmp/dd-package-check.out || fail "the installed check printed no verdict"
echo "package-test: the installed check ran: $(grep '^verdict:' /tmp/dd-package-check.out)"
rm -f /tmp/dd-package-check.out
dpkg -r distdoctor >/dev/null || fail "dpkg -r distdoctor failed"
[ ! -e /usr/bin/distdoctor ] || fail "/usr/bin/distdoctor is still there after dpkg -r"
echo "package-test: removed; passed"
