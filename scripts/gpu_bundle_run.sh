#!/usr/bin/env bash
# Runs the bundle that scripts/gpu_bundle.sh made, on a GPU machine, from the
# repository (the golden files and IR corpus are read from its tests/):
#   scripts/gpu_bundle_run.sh            the GPU tests
#   scripts/gpu_bundle_run.sh bench      also examples/gpu_conv and bench/gpu_bench
#   scripts/gpu_bundle_run.sh sanitize   also the kernel tests under compute-sanitizer
# One summary line per program on stdout; full logs in $GPU_LOGS (default
# /tmp/augur-gpu-logs). Exits non-zero when any program failed.
set -u
cd "$(dirname "$0")/.."

bundle=$PWD/build/gpu-bundle
unpacked=$(mktemp -d)
tar -C "$unpacked" -xJf "$bundle/libs.tar.xz" && tar -C "$unpacked" -xJf "$bundle/bins.tar.xz" || exit 1
nvrtc=$(find /usr/local /usr/lib* /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -1)
export LD_LIBRARY_PATH=$unpacked/lib${nvrtc:+:$(dirname "$nvrtc")}
export AUGUR_GPU_TEST_DATA=$PWD/tests/gpu
logs=${GPU_LOGS:-/tmp/augur-gpu-logs}
mkdir -p "$logs"
nvidia-smi -L
failed=0

run() {  # run NAME COMMAND...: logs to $logs/NAME.log, prints a summary line
  local name=$1
  shift
  timeout 300 "$@" >"$logs/$name.log" 2>&1
  local rc=$?
  ((rc == 0)) || failed=1
  echo "$name rc=$rc $(grep -E '^\[  (PASSED|FAILED|SKIPPED) |ERROR SUMMARY|RACECHECK SUMMARY' \
    "$logs/$name.log" | sort -u | tr '\n' ' ')"
}

for test in "$unpacked"/bin/gpu_*_test; do run "$(basename "$test")" "$test"; done
for mode in "$@"; do
  case $mode in
    bench)
      run gpu_conv "$unpacked/bin/gpu_conv"
      tail -8 "$logs/gpu_conv.log"
      run gpu_bench "$unpacked/bin/gpu_bench" --benchmark_repetitions=3 \
        --benchmark_report_aggregates_only=true --benchmark_color=false
      grep -E 'device:|median|ratio' "$logs/gpu_bench.log"
      ;;
    sanitize)
      sanitizer=$(command -v compute-sanitizer || find /usr/local -name compute-sanitizer -type f | head -1)
      for tool in memcheck racecheck synccheck initcheck; do
        run "sanitizer_$tool" "$sanitizer" --tool "$tool" --error-exitcode 9 \
          "$unpacked/bin/gpu_device_test" --gtest_filter='Kernels/*'
      done
      ;;
    *) echo "unknown mode $mode (bench, sanitize)" && failed=1 ;;
  esac
done
rm -rf "$unpacked"
exit $failed
