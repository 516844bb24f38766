#include "runtime/cache/pipeline.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>

#include "jit/compile.h"
#include "jit/error.h"
#include "runtime/ir/printer.h"
#include "runtime/ir/verifier.h"
#include "runtime/stage/externs.h"
#include "runtime/stage/extract.h"

namespace augur::cache {

namespace {

bool environment_dumps_ir() {
  const char* value = std::getenv("AUGUR_DUMP");
  std::string_view list = value ? value : "";
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    if (item == "ir" || item == "all") return true;
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  return false;
}

void dump_ir(const jit::compile_options& options, const std::string& text) {
  if (options.dump_sink) {
    options.dump_sink("ir", text);
    return;
  }
  // One dump at a time, so that concurrent compilations do not interleave.
  static std::mutex stderr_lock;
  std::lock_guard lock(stderr_lock);
  std::fprintf(stderr, ";; augur ir of %s\n%s\n", options.name.c_str(), text.c_str());
}

}  // namespace

void optimize(ir::Module&, const jit::compile_options&) {}

cpu::Options backend_options(const jit::compile_options& options) {
  cpu::Options backend;
  backend.opt_level = options.opt_level;
  backend.cpu = options.cpu;
  backend.features = options.features;
  backend.invokers = false;
  backend.dump_llvm = options.dump_llvm;
  backend.dump_asm = options.dump_asm;
  if (options.dump_sink) {
    backend.dump_sink = [sink = options.dump_sink](cpu::DumpKind kind, std::string_view,
                                                   std::string_view text) {
      sink(cpu::name_of(kind), text);
    };
  }
  return backend;
}

std::shared_ptr<const Version> compile_version(const jit::detail::generator& gen,
                                               const jit::compile_options& options,
                                               ProgramCache& programs) {
  if (options.opt_level < 0 || options.opt_level > 3) {
    throw jit::error(
        "jit::compile: opt level " + std::to_string(options.opt_level) + " is not in 0..3",
        jit::location::in_function(options.name));
  }
  jit::extract_options staging;
  staging.name = options.name;
  ir::Module module = stage::extract(gen, staging).module;
  optimize(module, options);
#ifdef AUGUR_CHECKED
  ir::verify(module);
#endif

  auto version = std::make_shared<Version>();
  version->program = ir::print(module);
  static const bool environment_ir = environment_dumps_ir();
  if (options.dump_ir || environment_ir) dump_ir(options, version->program);

  const cpu::Options backend = backend_options(options);
  version->program_hash = ir::content_hash(module);
  version->object_key = cpu::object_key(backend);
  if (auto shared = programs.find(version->program, version->program_hash, version->object_key)) {
    return shared;
  }
  {
    // Callers may be TBB workers waiting on this compilation's key: the
    // backend's work must not need a free pool worker.
    const cpu::CompileOnThisThread here;
    version->code = cpu::compile(module, stage::registered_externs(), backend);
  }
  version->entry = version->code->address(options.name);
  return programs.publish(std::move(version));
}

}  // namespace augur::cache
