#include "gpu/image.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <span>

#include "gpu/statistics.h"
#include "jit/error.h"

namespace augur::gpu {

namespace {

const std::string& nvrtc_version_text() {
  static const auto* version = new std::string(nvrtc_version());
  return *version;
}

}  // namespace

CompiledImage::~CompiledImage() {
  if (!module_) return;
  // Kernels of the module may still be running: let the device finish first.
  // Errors cannot be reported from here, and the module goes either way.
  try {
    device_->bind();
    device_->driver().api().cuCtxSynchronize();
    device_->driver().api().cuModuleUnload(module_);
  } catch (const jit::gpu_error&) {
  }
}

cu::Function CompiledImage::function(const Device& device, const std::string& name) const {
  std::lock_guard lock(mutex_);
  device.bind();
  const cu::Api& api = device.driver().api();
  if (!module_) {
    cu::Module module = nullptr;
    device.check(api.cuModuleLoadData(&module, image_.bytes.data()), "cuModuleLoadData");
    module_ = module;
    device_ = &device;
    ++counters().module_loads;
  }
  cu::Function function = nullptr;
  device.check(api.cuModuleGetFunction(&function, module_, name.c_str()), "cuModuleGetFunction");
  return function;
}

std::string image_toolchain(const std::string& arch, std::span<const std::string> options) {
  std::string toolchain = "nvrtc " + nvrtc_version_text() + " arch " + arch + " options";
  for (const std::string& option : nvrtc_base_options(arch)) toolchain += " " + option;
  for (const std::string& option : options) toolchain += "\x1f" + option;
  return toolchain;
}

NvrtcImage compile_image(const std::string& source, const std::string& name,
                         const std::string& arch, std::span<const std::string> options) {
  const auto start = std::chrono::steady_clock::now();
  NvrtcImage image = nvrtc_compile(source, name + ".cu", arch, options);
  Counters& stats = counters();
  ++stats.nvrtc_compiles;
  stats.nvrtc_nanoseconds += static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count());
  return image;
}

std::string default_arch() {
  if (const char* chosen = std::getenv("AUGUR_GPU_ARCH"); chosen && *chosen) return chosen;
  const Device* device = Device::get();
  if (!device || !have_nvrtc()) return "compute_90";
  const std::string arch = device->info().arch();
  const std::vector<std::string> supported = nvrtc_architectures();
  if (std::find(supported.begin(), supported.end(), arch) != supported.end()) return arch;
  // A device newer than this NVRTC: PTX for the newest architecture it knows,
  // which the driver compiles for the device when loading it.
  if (!supported.empty()) return "compute_" + supported.back().substr(3);
  return "compute_90";
}

}  // namespace augur::gpu
