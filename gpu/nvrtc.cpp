#include "gpu/nvrtc.h"

#include <memory>

#include "jit/error.h"

#if AUGUR_HAVE_NVRTC
#include <nvrtc.h>
#endif

namespace augur::gpu {

std::vector<std::string> nvrtc_base_options(const std::string& arch) {
  return {"--gpu-architecture=" + arch, "--std=c++17", "--fmad=false", "--prec-div=true",
          "--prec-sqrt=true",           "--ftz=false"};
}

#if AUGUR_HAVE_NVRTC

namespace {

bool is_real(const std::string& arch) {
  return arch.rfind("sm_", 0) == 0 && arch.size() > 3;
}
bool is_virtual(const std::string& arch) {
  return arch.rfind("compute_", 0) == 0 && arch.size() > 8;
}

void check(nvrtcResult result, const char* what) {
  if (result != NVRTC_SUCCESS) {
    throw jit::compile_error(std::string("NVRTC: ") + what +
                             " failed: " + nvrtcGetErrorString(result));
  }
}

struct ProgramDeleter {
  void operator()(nvrtcProgram program) const { nvrtcDestroyProgram(&program); }
};
using Program = std::unique_ptr<std::remove_pointer_t<nvrtcProgram>, ProgramDeleter>;

std::string program_log(nvrtcProgram program) {
  std::size_t size = 0;
  if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1) return {};
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS) return {};
  log.resize(size - 1);  // the terminating NUL
  return log;
}

}  // namespace

bool have_nvrtc() {
  return true;
}

std::string nvrtc_version() {
  int major = 0;
  int minor = 0;
  check(nvrtcVersion(&major, &minor), "nvrtcVersion");
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<std::string> nvrtc_architectures() {
  int count = 0;
  check(nvrtcGetNumSupportedArchs(&count), "nvrtcGetNumSupportedArchs");
  std::vector<int> archs(static_cast<std::size_t>(count));
  check(nvrtcGetSupportedArchs(archs.data()), "nvrtcGetSupportedArchs");
  std::vector<std::string> out;
  for (int a : archs) out.push_back("sm_" + std::to_string(a));
  return out;
}

NvrtcImage nvrtc_compile(const std::string& source, const std::string& file,
                         const std::string& arch, std::span<const std::string> extra_options) {
  if (!is_real(arch) && !is_virtual(arch)) {
    throw jit::compile_error(
        "NVRTC: '" + arch + "' is not a GPU architecture; use sm_NN (a cubin) or compute_NN (PTX)");
  }
  nvrtcProgram raw = nullptr;
  check(nvrtcCreateProgram(&raw, source.c_str(), file.c_str(), 0, nullptr, nullptr),
        "nvrtcCreateProgram");
  const Program program(raw);

  std::vector<std::string> options = nvrtc_base_options(arch);
  options.insert(options.end(), extra_options.begin(), extra_options.end());
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());

  const nvrtcResult compiled =
      nvrtcCompileProgram(program.get(), static_cast<int>(argv.size()), argv.data());
  NvrtcImage image;
  image.log = program_log(program.get());
  if (compiled != NVRTC_SUCCESS) {
    throw jit::compile_error("NVRTC could not compile " + file + " for " + arch + " (" +
                                 nvrtcGetErrorString(compiled) + "):\n" + image.log +
                                 "\n(AUGUR_DUMP=cuda prints the generated source)",
                             jit::location::in_text(file, 0, 0));
  }
  std::size_t size = 0;
  if (is_real(arch)) {
    image.cubin = true;
    check(nvrtcGetCUBINSize(program.get(), &size), "nvrtcGetCUBINSize");
    image.bytes.resize(size);
    check(nvrtcGetCUBIN(program.get(), image.bytes.data()), "nvrtcGetCUBIN");
  } else {
    check(nvrtcGetPTXSize(program.get(), &size), "nvrtcGetPTXSize");
    image.bytes.resize(size);  // includes the NUL that cuModuleLoadData needs
    check(nvrtcGetPTX(program.get(), image.bytes.data()), "nvrtcGetPTX");
  }
  return image;
}

#else

namespace {
[[noreturn]] void built_without() {
  throw jit::compile_error(
      "Augur was built without NVRTC (the CUDA toolkit was not found at configure time), so GPU "
      "kernels cannot be compiled; they can still run on the CPU fallback "
      "(jit::gpu::target::cpu)");
}
}  // namespace

bool have_nvrtc() {
  return false;
}
std::string nvrtc_version() {
  return "none";
}
std::vector<std::string> nvrtc_architectures() {
  return {};
}
NvrtcImage nvrtc_compile(const std::string&, const std::string&, const std::string&,
                         std::span<const std::string>) {
  built_without();
}

#endif

}  // namespace augur::gpu
