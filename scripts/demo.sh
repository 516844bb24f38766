#!/usr/bin/env bash
# Sets up a Debian 12 machine (missing packages only), builds Augur and runs the
# demos: staged C++ compiled with jit::compile (examples/power.cpp), then the IR
# underneath, parsed, verified, hashed, interpreted and compiled with jit::ir
# (examples/augur_demo.cpp).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh dev example_power augur_demo
echo "=== examples/power.cpp: jit::compile(power, 13)"
./build/dev/examples/example_power
echo
echo "=== examples/augur_demo.cpp: the IR"
./build/dev/examples/augur_demo
