// Where GPU kernels run and how they are compiled.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace jit::gpu {

// A grid or block extent, CUDA's dim3: jit::gpu::dim3{256} or {16, 16}.
struct dim3 {
  std::uint32_t x = 1;
  std::uint32_t y = 1;
  std::uint32_t z = 1;

  constexpr dim3() = default;
  constexpr dim3(std::uint32_t x_, std::uint32_t y_ = 1, std::uint32_t z_ = 1)
      : x(x_), y(y_), z(z_) {}
};

// What a kernel or buffer really runs on.
enum class backend : std::uint8_t {
  cuda,  // an NVIDIA GPU through the CUDA driver
  cpu,   // the CPU fallback: the same kernel compiled for the host, the grid emulated
};

// What a compilation asks for.
enum class target : std::uint8_t {
  automatic,  // the GPU where jit::gpu::available(), else the CPU fallback
  cuda,       // the GPU; a jit::gpu_error where there is none
  cpu,        // the CPU fallback, even where a GPU exists
};

struct options {
  target where = target::automatic;
  // The kernel's name in the IR and the CUDA source.
  std::string name = "staged_kernel";
  // NVRTC's target: "sm_90" compiles a cubin, "compute_90" PTX that the
  // driver finishes for the device. Empty: $AUGUR_GPU_ARCH, else the
  // device's sm_NN, else compute_90.
  std::string arch;
  // Extra NVRTC options, after Augur's own (which keep IEEE semantics:
  // --fmad=false, exact division and square root, no flush to zero).
  std::vector<std::string> nvrtc_options;
  // The disk cache of compiled kernels (GPU images, fallback code), the
  // directory jit::compile_options::cache_dir names too; empty:
  // $AUGUR_CACHE_DIR, and no disk cache if that is unset too.
  std::string cache_dir;
  // Trust cache_dir's group as well (jit::compile_options::cache_dir_group_shared).
  bool cache_dir_group_shared = false;
  bool disk_cache = true;  // false: never read or write the disk or remote cache
  // The fleet's Redis cache behind the disk cache, as
  // jit::compile_options::remote_cache and remote_cache_key_file say (empty:
  // $AUGUR_REMOTE_CACHE and $AUGUR_CACHE_KEY_FILE).
  std::string remote_cache;
  std::string remote_cache_key_file;
  // On the CPU fallback, also compile the CUDA source with NVRTC (for
  // `arch`), so kernels written on machines without a GPU are known to build
  // for one. Costs an NVRTC compilation (tens of ms) unless cached.
  bool check_cuda = false;
  // Augur's optimization level (0 to 3): at 2 and above the PEG optimizer,
  // with the rules registered with jit::register_rule, rewrites the kernel
  // before CUDA C++ is emitted (docs/peg.md), as jit::compile does at O2.
  int opt_level = 2;
  // The CPU fallback's LLVM optimization level (0 to 3).
  int cpu_opt_level = 2;
};

}  // namespace jit::gpu
