#!/usr/bin/env bash
# Sets up a Debian 12 machine (missing packages only), builds Augur and runs the
# whole test suite: the plain suite, a build with CMake's default generator,
# the ASan+UBSan suite, and the parser fuzzer for a bounded time.
# AUGUR_TEST_SUITES picks a subset ("dev make asan fuzz tsan");
# AUGUR_FUZZ_SECONDS sets the fuzzing time.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# Absolute paths in ccache's keys (a base_dir would make them relative to each
# build directory, which differs between Ninja and Makefiles): see `make`.
# Depend mode keys a compile on its source and the headers the compiler
# listed, so a miss (every compile of a first build) costs no extra run of
# the preprocessor.
export CCACHE_BASEDIR= CCACHE_DEPEND=1

suites=${AUGUR_TEST_SUITES:-dev make asan fuzz}
for suite in $suites; do
  echo "=== suite: $suite"
  start=$SECONDS
  case $suite in
    dev | asan | tsan)
      scripts/build.sh "$suite"
      ctest --preset "$suite"
      ;;
    make)
      # The README's plain route, `cmake -S . -B build && cmake --build build`,
      # uses CMake's default generator on Linux, Unix Makefiles, where the
      # presets use Ninja: configure with it (named, so that CMAKE_GENERATOR
      # in the environment cannot change it), build the library, one example
      # and the benchmark object whose generated source once failed under
      # Makefiles (its directory was made by Ninja only), and run the example.
      # The dev preset's settings make each compile command the dev suite's,
      # so that ccache answers this second build of the library from the first.
      mkdir -p build
      cmake -S . -B build/make -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CXX_FLAGS_RELEASE=-O2 -DCMAKE_C_FLAGS_RELEASE=-O2 -DAUGUR_CHECKED=ON \
        -DAUGUR_WERROR=ON >build/make.configure.log 2>&1 || {
        cat build/make.configure.log
        exit 1
      }
      cmake --build build/make --target augur_demo compile_bench_native_o3 --parallel 2
      build/make/examples/augur_demo >/dev/null
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
