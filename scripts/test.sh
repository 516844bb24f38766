#!/usr/bin/env bash
# Sets up a Debian 12 machine (missing packages only), builds Augur and runs the
# whole test suite: the plain suite, the ASan+UBSan suite, and the parser fuzzer
# for a bounded time. AUGUR_TEST_SUITES picks a subset ("dev asan fuzz tsan");
# AUGUR_FUZZ_SECONDS sets the fuzzing time.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

suites=${AUGUR_TEST_SUITES:-dev asan fuzz}
for suite in $suites; do
  echo "=== suite: $suite"
  start=$SECONDS
  case $suite in
    dev | asan | tsan)
      scripts/build.sh "$suite"
      ctest --preset "$suite"
      ;;
    fuzz)
      scripts/fuzz.sh "${AUGUR_FUZZ_SECONDS:-60}"
      ;;
    *)
      echo "unknown suite '$suite'" >&2
      exit 2
      ;;
  esac
  echo "=== suite $suite passed in $((SECONDS - start)) s"
done
