#!/usr/bin/env bash
# Packs the GPU tests, examples/gpu_conv and bench/gpu_bench (dev preset) with
# the shared libraries they load, for a GPU machine that has a CUDA driver and
# NVRTC but not this project's toolchain (LLVM, TBB, GoogleTest):
#   scripts/gpu_bundle.sh                  → build/gpu-bundle/{libs,bins}.tar.xz
#   copy the repository with build/gpu-bundle/ to the GPU machine, there:
#   scripts/gpu_bundle_run.sh [bench] [sanitize]
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(gpu_emitter_test gpu_nvrtc_test gpu_fallback_test gpu_cache_test gpu_device_test gpu_table_test
  gpu_staging_test gpu_einsum_test gpu_fault_test gpu_scan_test gpu_scan_helper_test gpu_conv gpu_bench)
scripts/build.sh dev "${targets[@]}"

out=build/gpu-bundle
stage=$out/stage
rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/lib"
binaries=(build/dev/tests/gpu/gpu_*_test build/dev/examples/gpu_conv build/dev/bench/gpu_bench)
cp "${binaries[@]}" "$stage/bin/"
# Everything but glibc's own libraries and NVRTC, which the GPU machine's CUDA provides.
ldd "${binaries[@]}" | awk '/=> \//{print $3}' | sort -u |
  grep -vE '/lib(c|m|pthread|rt|dl|nvrtc)\.so' | xargs cp -L -t "$stage/lib/"
strip "$stage"/bin/* "$stage"/lib/*
tar -C "$stage" -cJf "$out/bins.tar.xz" bin

# The libraries (~45 MB compressed, minutes of xz) are packed again only when they change.
(cd "$stage/lib" && sha256sum -- *) >"$stage/libs.sha256"
if ! cmp -s "$stage/libs.sha256" "$out/libs.sha256" || [ ! -f "$out/libs.tar.xz" ]; then
  XZ_OPT=-T0 tar -C "$stage" -cJf "$out/libs.tar.xz" lib
  cp "$stage/libs.sha256" "$out/libs.sha256"
fi
rm -rf "$stage"
ls -l "$out"
