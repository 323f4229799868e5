#!/usr/bin/env bash
# Installs the Debian packages distdoctor needs to build and test. Idempotent and quiet when all are present.
set -euo pipefail
pkgs=(cmake ninja-build g++ pkg-config libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev libgmock-dev
      libssl-dev zlib1g-dev libgloo-dev iproute2 openmpi-bin libopenmpi-dev etcd-server etcd-client jq
      bsdutils python3 clang libclang-rt-dev
      dpkg-dev file help2man python3-prometheus-client)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
