#!/usr/bin/env bash
# Installs the Debian 12 packages Augur needs that this machine lacks.
# Idempotent: when everything is present it only checks, in well under a second.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache git
  llvm-19-dev libtbb-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-14 libclang-rt-14-dev clang-format lld
  libhiredis-dev libssl-dev redis-server
  libre2-dev libpcre2-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
