#!/usr/bin/env bash
# Fuzzes the IR parser with libFuzzer for [seconds] (default 60), seeded with
# tests/ir/programs and tests/fuzz/seeds (kernel bodies: the fuzzer also tries
# each input as one), then disk cache entries for half as long, seeded with
# tests/fuzz/disk_seeds, and remote cache entries for a quarter as long. Builds its own tree in build/fuzz with clang++-14 and
# -fsanitize=fuzzer,address,undefined. Exits non-zero on any finding: a crash,
# a sanitizer report, an exception that is not a jit::error, a leak, or a
# module whose print -> parse -> print is not the identity, a disk cache file
# that loads though it is not its key's entry, a remote entry accepted that
# is not its key's signed encoding. The input that caused it is
# saved under build/fuzz/artifacts/.
set -euo pipefail

seconds="${1:-60}"
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build/fuzz"

cmake -S "$root/tests/fuzz" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build"

mkdir -p "$build/corpus" "$build/disk_corpus" "$build/remote_corpus" "$build/artifacts"
"$build/parse_fuzzer" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
  -dict="$root/tests/fuzz/ir.dict" -artifact_prefix="$build/artifacts/" -print_final_stats=1 \
  "$build/corpus" "$root/tests/ir/programs" "$root/tests/fuzz/seeds"
"$build/disk_entry_fuzzer" \
  -max_total_time="$(((seconds + 1) / 2))" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
  -artifact_prefix="$build/artifacts/" -print_final_stats=1 \
  "$build/disk_corpus" "$root/tests/fuzz/disk_seeds"
exec "$build/remote_entry_fuzzer" \
  -max_total_time="$(((seconds + 3) / 4))" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
  -artifact_prefix="$build/artifacts/" -print_final_stats=1 \
  "$build/remote_corpus" "$root/tests/fuzz/remote_seeds"
