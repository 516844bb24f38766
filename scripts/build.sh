#!/usr/bin/env bash
# Configures (once) and builds one CMake preset: scripts/build.sh PRESET [targets...]
set -euo pipefail
cd "$(dirname "$0")/.."

preset=$1
shift
if [ ! -f "build/$preset/build.ninja" ]; then
  mkdir -p build
  log="build/$preset.configure.log"
  cmake --preset "$preset" >"$log" 2>&1 || {
    cat "$log"
    exit 1
  }
fi
if (($#)); then
  cmake --build --preset "$preset" --target "$@"
else
  cmake --build --preset "$preset"
fi
