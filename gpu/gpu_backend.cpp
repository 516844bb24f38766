// The GPU backend behind the compile pipeline's interface
// (runtime/compile/backend.h), made through compile::gpu_backend
// (runtime/compile/backends.h): a module holding one kernel → CUDA C++
// (cuda_emitter.h) → NVRTC → a CudaKernel on the device, or on the CPU
// fallback the CPU backend's code with the grid emulated (a FallbackKernel).
// Its code is the kernel (KernelCode), and a kernel's entry is that object.
// Caching (by key, by program, on disk) is the pipeline's: nothing here
// remembers a compilation.
//
// The artifact is a sequence of fields, each a length (8 bytes,
// little-endian) and its bytes:
//
//   "augur gpu kernel 1"
//   the kind: "cubin" or "ptx" (an NVRTC image), "cpu" (the fallback)
//   the kernel's IR name, and its name in the CUDA source
//   the kernel's optimized IR text and its CUDA source (kernel::ir(), cuda_source())
//   the payload: the image, or the CPU backend's artifact of the fallback program
//
// AUGUR_DUMP=cuda (or all) prints each kernel's CUDA source to stderr when
// it is emitted.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/cuda_emitter.h"
#include "gpu/cuda_kernel.h"
#include "gpu/device.h"
#include "gpu/fallback.h"
#include "gpu/image.h"
#include "gpu/statistics.h"
#include "jit/error.h"
#include "runtime/compile/backends.h"
#include "runtime/dump_request.h"
#include "runtime/ir/parser.h"
#include "runtime/ir/printer.h"
#include "runtime/ir/verifier.h"

namespace augur::gpu {

namespace {

constexpr std::string_view kMagic = "augur gpu kernel 1";
constexpr std::size_t kFields = 7;

struct Artifact {
  std::string kind;
  std::string name;
  std::string cuda_name;
  std::string ir;
  std::string cuda_source;
  std::span<const char> payload;  // inside the decoded bytes
};

void put(std::vector<char>& out, std::span<const char> field) {
  std::uint64_t size = field.size();
  for (int i = 0; i < 8; ++i, size >>= 8) out.push_back(static_cast<char>(size & 0xff));
  out.insert(out.end(), field.begin(), field.end());
}

std::vector<char> encode(const Artifact& a) {
  std::vector<char> out;
  for (std::string_view field :
       {kMagic, std::string_view(a.kind), std::string_view(a.name), std::string_view(a.cuda_name),
        std::string_view(a.ir), std::string_view(a.cuda_source)}) {
    put(out, field);
  }
  put(out, a.payload);
  return out;
}

// Throws jit::error naming the field that does not fit in `bytes`.
Artifact decode(std::span<const char> bytes) {
  std::vector<std::span<const char>> fields;
  std::size_t at = 0;
  while (fields.size() < kFields) {
    if (bytes.size() - at < 8) {
      throw jit::error("GPU kernel artifact: truncated before field " +
                       std::to_string(fields.size() + 1) + " of " + std::to_string(kFields));
    }
    std::uint64_t size = 0;
    for (int i = 7; i >= 0; --i) size = size << 8 | static_cast<unsigned char>(bytes[at + i]);
    at += 8;
    if (size > bytes.size() - at) {
      throw jit::error("GPU kernel artifact: field " + std::to_string(fields.size() + 1) + " of " +
                       std::to_string(size) + " bytes overruns the artifact's " +
                       std::to_string(bytes.size()) + " bytes");
    }
    fields.push_back(bytes.subspan(at, size));
    at += size;
  }
  const auto text = [&](std::size_t i) { return std::string(fields[i].begin(), fields[i].end()); };
  if (text(0) != kMagic) throw jit::error("GPU kernel artifact: not one (bad magic)");
  if (at != bytes.size()) throw jit::error("GPU kernel artifact: bytes after the last field");
  return {text(1), text(2), text(3), text(4), text(5), fields[6]};
}

const ir::Function& the_kernel(const ir::Module& module) {
  if (module.functions.size() != 1 || !module.functions[0].kernel) {
    throw jit::compile_error("a GPU compilation takes a module holding one kernel");
  }
  return module.functions[0];
}

// A kernel's module, verified and emitted as CUDA C++.
struct Emitted {
  const ir::Function& kernel;
  CudaSource source;
  std::string ir;
};

Emitted emit(const ir::Module& module) {
  const ir::Function& kernel = the_kernel(module);
  ir::verify(module);
  Emitted e{kernel, emit_cuda(module), ir::print(module)};
  if (dump_requested("cuda")) {
    const std::string text = "augur cuda: " + kernel.name + "\n" + e.source.text;
    std::fwrite(text.data(), 1, text.size(), stderr);
  }
  return e;
}

// What both kinds share: NVRTC's settings and the entry.
class GpuBackend : public compile::Backend {
 public:
  // `uses_nvrtc`: whether it compiles with NVRTC (the default architecture
  // asks NVRTC and the device, so it is found only then).
  GpuBackend(const jit::gpu::options& options, bool uses_nvrtc)
      : arch_(options.arch.empty() && uses_nvrtc ? default_arch() : options.arch),
        nvrtc_options_(options.nvrtc_options) {}

  void* entry(const compile::Code& code, std::string_view function) const override {
    const auto& kernel = static_cast<const KernelCode&>(code);
    if (kernel.name() != function) {
      throw jit::error("the GPU backend compiled kernel '" + kernel.name() + "', not '" +
                       std::string(function) + "'");
    }
    return const_cast<void*>(static_cast<const void*>(&kernel));
  }

 protected:
  const std::string& arch() const { return arch_; }
  std::string image_line() const { return image_toolchain(arch_, nvrtc_options_); }
  NvrtcImage nvrtc(const Emitted& e) const {
    return compile_image(e.source.text, e.kernel.name, arch_, nvrtc_options_);
  }

 private:
  std::string arch_;  // NVRTC's target: the option's, else default_arch()
  std::vector<std::string> nvrtc_options_;
};

// NVRTC and the driver.
class CudaBackend final : public GpuBackend {
 public:
  CudaBackend(const jit::gpu::options& options, const Device& device)
      : GpuBackend(options, true), device_(device) {}

  std::string toolchain() const override { return "gpu cuda " + image_line(); }

  std::shared_ptr<const compile::Code> build(const ir::Module& module,
                                             const ir::ExternTable&) const override {
    Emitted e = emit(module);
    NvrtcImage image = nvrtc(e);
    const std::string cuda_name = e.source.cuda_name(e.kernel.name);
    return kernel(e.kernel, cuda_name, std::move(image), std::move(e.ir), std::move(e.source.text));
  }

  std::vector<char> compile(const ir::Module& module) const override {
    const Emitted e = emit(module);
    const NvrtcImage image = nvrtc(e);
    return encode({image.cubin ? "cubin" : "ptx", e.kernel.name, e.source.cuda_name(e.kernel.name),
                   e.ir, e.source.text, image.bytes});
  }

  std::shared_ptr<const compile::Code> load(std::span<const char> bytes, const ir::Module& module,
                                            const ir::ExternTable&) const override {
    const Artifact a = decode(bytes);
    if (a.kind != "cubin" && a.kind != "ptx") {
      throw jit::error("GPU kernel artifact: a '" + a.kind + "' kernel, not a GPU image");
    }
    const ir::Function& staged = the_kernel(module);
    if (a.name != staged.name) {
      throw jit::error("GPU kernel artifact: holds kernel '" + a.name + "', not '" + staged.name +
                       "'");
    }
    NvrtcImage image{std::string(a.payload.begin(), a.payload.end()), a.kind == "cubin", {}};
    return kernel(staged, a.cuda_name, std::move(image), a.ir, a.cuda_source);
  }

 private:
  std::shared_ptr<const KernelCode> kernel(const ir::Function& kernel, const std::string& cuda_name,
                                           NvrtcImage image, std::string ir,
                                           std::string cuda_source) const {
    return std::make_shared<const CudaKernel>(
        device_, std::make_shared<const CompiledImage>(arch(), std::move(image)), cuda_name,
        kernel.num_params, kernel.name, std::move(ir), std::move(cuda_source));
  }

  const Device& device_;
};

// The CPU backend, the grid emulated (fallback.h).
class FallbackBackend final : public GpuBackend {
 public:
  explicit FallbackBackend(const jit::gpu::options& options)
      : GpuBackend(options, options.check_cuda),
        check_cuda_(options.check_cuda),
        cpu_(cpu_backend_of(options)) {}

  std::string toolchain() const override {
    std::string line = "gpu fallback " + cpu_->toolchain();
    if (check_cuda_) line += " checked with " + image_line();
    return line;
  }

  std::shared_ptr<const compile::Code> build(const ir::Module& module,
                                             const ir::ExternTable&) const override {
    Emitted e = emit(module);
    if (check_cuda_) nvrtc(e);
    FallbackProgram program = fallback_program(e.kernel);
    std::shared_ptr<const compile::Code> code = cpu_->build(program.module, *program.externs);
    ++counters().fallback_compiles;
    return std::make_shared<const FallbackKernel>(e.kernel, std::move(program), std::move(code),
                                                  std::move(e.ir), std::move(e.source.text));
  }

  std::vector<char> compile(const ir::Module& module) const override {
    const Emitted e = emit(module);
    if (check_cuda_) nvrtc(e);
    const FallbackProgram program = fallback_program(e.kernel);
    const std::vector<char> object = cpu_->compile(program.module);
    ++counters().fallback_compiles;
    return encode(
        {"cpu", e.kernel.name, e.source.cuda_name(e.kernel.name), e.ir, e.source.text, object});
  }

  std::shared_ptr<const compile::Code> load(std::span<const char> bytes, const ir::Module&,
                                            const ir::ExternTable&) const override {
    const Artifact a = decode(bytes);
    if (a.kind != "cpu") {
      throw jit::error("GPU kernel artifact: a '" + a.kind + "' image, not a fallback kernel");
    }
    // The optimized kernel, as compiled: what the fallback program is made of.
    const ir::Module optimized = ir::parse_module(a.ir, "the GPU kernel artifact's IR");
    const ir::Function& kernel = the_kernel(optimized);
    FallbackProgram program = fallback_program(kernel);
    std::shared_ptr<const compile::Code> code =
        cpu_->load(a.payload, program.module, *program.externs);
    return std::make_shared<const FallbackKernel>(kernel, std::move(program), std::move(code), a.ir,
                                                  a.cuda_source);
  }

 private:
  // The fallback's code at cpu_opt_level for the host CPU; C ABI entries only.
  static std::unique_ptr<const compile::Backend> cpu_backend_of(const jit::gpu::options& options) {
    jit::compile_options cpu;
    cpu.opt_level = options.cpu_opt_level;
    cpu.name = options.name;
    return compile::cpu_backend(cpu);
  }

  bool check_cuda_;
  std::unique_ptr<const compile::Backend> cpu_;
};

jit::gpu::backend resolve_backend(jit::gpu::target where) {
  switch (where) {
    case jit::gpu::target::cpu:
      return jit::gpu::backend::cpu;
    case jit::gpu::target::cuda:
      if (!Device::get()) {
        throw jit::gpu_error("no GPU to compile for (target::cuda): " +
                             Device::unavailable_reason());
      }
      return jit::gpu::backend::cuda;
    case jit::gpu::target::automatic:
      break;
  }
  return Device::get() ? jit::gpu::backend::cuda : jit::gpu::backend::cpu;
}

}  // namespace

}  // namespace augur::gpu

namespace augur::compile {

std::unique_ptr<const Backend> gpu_backend(const jit::gpu::options& options) {
  if (gpu::resolve_backend(options.where) == jit::gpu::backend::cuda) {
    return std::make_unique<const gpu::CudaBackend>(options, *gpu::Device::get());
  }
  return std::make_unique<const gpu::FallbackBackend>(options);
}

}  // namespace augur::compile
