#!/usr/bin/env bash
# Sets up a Debian 12 machine (missing packages only), builds Augur and runs the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh dev augur_demo
./build/dev/examples/augur_demo
