#include "bench/corpus/native.h"

#include <dlfcn.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <system_error>

#include "bench/compile/ir_to_c.h"
#include "jit/error.h"

namespace augur::bench::corpus {

namespace {

struct Scratch {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("augur_corpus_bench_" + std::to_string(getpid()));
  Scratch() { std::filesystem::create_directories(dir); }
  ~Scratch() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
};

}  // namespace

const std::filesystem::path& scratch_directory() {
  static const Scratch scratch;
  return scratch.dir;
}

void* compile_and_load(const std::string& c_source, const std::string& stem,
                       const std::string& compiler, const std::string& flags) {
  const std::filesystem::path base = scratch_directory() / stem;
  const std::string c = base.string() + ".c", so = base.string() + ".so";
  std::ofstream(c) << c_source;
  const std::string command = compiler + " " + flags + " -fwrapv -shared -fPIC -o " + so + " " + c;
  if (std::system(command.c_str()) != 0) throw jit::error("corpus: failed: " + command);
  void* library = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) throw jit::error("corpus: dlopen " + so + ": " + dlerror());
  return library;
}

void* symbol(void* library, const std::string& name) {
  void* address = dlsym(library, name.c_str());
  if (!address) throw jit::error("corpus: no symbol " + name + " in a compiled corpus library");
  return address;
}

Trampoline trampoline_for(const ir::Function& signature) {
  std::string types = c_type(signature.ret) + " (*)(";
  for (std::uint32_t i = 0; i < signature.num_params; ++i)
    types += (i ? ", " : "") + c_type(signature.vars[i].type);
  types += ")";
  static std::mutex mutex;
  static std::map<std::string, Trampoline> made;
  const std::lock_guard lock(mutex);
  if (const auto it = made.find(types); it != made.end()) return it->second;

  // Each argument is the low bytes of its word (a little-endian host), and so
  // is the result.
  std::string c =
      "#include <stdint.h>\n#include <string.h>\ntypedef " + c_type(signature.ret) + " (*fn_t)(";
  std::string call;
  std::string unpack;
  for (std::uint32_t i = 0; i < signature.num_params; ++i) {
    const std::string type = c_type(signature.vars[i].type), a = "a" + std::to_string(i);
    c += (i ? ", " : "") + type;
    unpack += "  " + type + " " + a + ";\n  memcpy(&" + a + ", &args[" + std::to_string(i) +
              "], sizeof " + a + ");\n";
    call += (i ? ", " : "") + a;
  }
  c += ");\nuint64_t corpus_call(void* f, const uint64_t* args) {\n" + unpack;
  if (signature.ret.is_void()) {
    c += "  ((fn_t)f)(" + call + ");\n  return 0;\n}\n";
  } else {
    c += "  " + c_type(signature.ret) + " r = ((fn_t)f)(" + call +
         ");\n  uint64_t out = 0;\n  memcpy(&out, &r, sizeof r);\n  return out;\n}\n";
  }
  void* library = compile_and_load(c, "trampoline" + std::to_string(made.size()), "cc", "-O2");
  const auto trampoline = reinterpret_cast<Trampoline>(symbol(library, "corpus_call"));
  made.emplace(types, trampoline);
  return trampoline;
}

}  // namespace augur::bench::corpus
