#!/usr/bin/env bash
# `make dist`: the portable build's runtime files (cmake --install, component runtime: the binary, its man page,
# bash completion, the Slurm prolog, the docs) as BUILD_DIR/distdoctor-VERSION-linux-x86_64.tar.gz, in one top
# folder laid out as a prefix (bin/, share/), so it runs wherever it is unpacked (a home directory, no root).
# Usage: scripts/make-dist.sh BUILD_DIR (a `make portable` build dir). Prints the tarball's path.
set -euo pipefail
build=${1:?usage: make-dist.sh BUILD_DIR}
version=$("$build/distdoctor" --version | awk '{print $2}')
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]] || { echo "make-dist: no version from $build/distdoctor: $version" >&2; exit 1; }
name=distdoctor-$version-linux-x86_64
stage=$build/dist/$name
rm -rf "$build/dist" && mkdir -p "$stage"
cmake --install "$build" --prefix "$stage" --component runtime >/dev/null
[ -e "$stage/share/man/man1/distdoctor.1.gz" ] || { echo "make-dist: no man page (help2man missing?)" >&2; exit 1; }
cat >"$stage/README" <<EOF
distdoctor $version for Linux x86_64 (glibc 2.31 or newer: Debian 11+, Ubuntu 20.04+, RHEL/Rocky 9, ...).
No installation needed and no root: run bin/distdoctor from here, or
  export PATH=\$PWD/bin:\$PATH MANPATH=\$PWD/share/man:
  . share/bash-completion/completions/distdoctor
NCCL, CUDA and NVML are found at run time (libnccl.so.2 of your PyTorch, or --nccl-lib PATH).
The Slurm prolog is share/distdoctor/slurm/distdoctor-prolog.sh (set DISTDOCTOR to bin/distdoctor's path).
EOF
# Owner and times fixed, so the same build gives the same bytes.
tar --owner=0 --group=0 --numeric-owner --mtime=@0 --sort=name -C "$build/dist" -czf "$build/$name.tar.gz" "$name"
echo "$build/$name.tar.gz"
