#include "runtime/stage/symbolize.h"

#include <cxxabi.h>
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#ifdef AUGUR_HAVE_LIBBACKTRACE
#include <backtrace.h>
#endif

namespace augur::stage {

namespace {

std::string demangle(const char* name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name, nullptr, nullptr, &status),
                                             &std::free);
  return status == 0 && out ? std::string(out.get()) : std::string(name);
}

bool inside_augur(const std::string& function) {
  return function.starts_with("augur::") || function.starts_with("jit::") ||
         function.starts_with("std::") || function.starts_with("void std::") ||
         function.starts_with("decltype(auto) std::") || function.starts_with("_Unwind");
}

std::string hex(std::uintptr_t v) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), digits[v & 15]);
    v >>= 4;
  } while (v != 0);
  return "0x" + out;
}

struct Frame {
  std::string function;  // demangled; empty if unknown
  std::string where;     // "file:line" or "module+0x..."
};

#ifdef AUGUR_HAVE_LIBBACKTRACE
backtrace_state* state() {
  // Made once, never freed (libbacktrace has no way to free it).
  static backtrace_state* s = backtrace_create_state(nullptr, 1, nullptr, nullptr);
  return s;
}

void ignore_error(void*, const char*, int) {}

// The innermost frame at pc (inlined calls included) outside Augur.
int on_line(void* data, std::uintptr_t, const char* file, int line, const char* function) {
  auto& frames = *static_cast<std::vector<Frame>*>(data);
  if (!function) return 0;
  Frame f{demangle(function), file ? std::string(file) + ":" + std::to_string(line) : ""};
  const std::size_t slash = f.where.rfind('/');
  if (slash != std::string::npos) f.where = f.where.substr(slash + 1);
  frames.push_back(std::move(f));
  return 0;
}

void on_symbol(void* data, std::uintptr_t, const char* symbol, std::uintptr_t, std::uintptr_t) {
  if (symbol) static_cast<Frame*>(data)->function = demangle(symbol);
}
#endif

// What is known about the call at return address `ret`: its frames, inlined
// ones first.
std::vector<Frame> resolve(const void* ret) {
  const auto pc = reinterpret_cast<std::uintptr_t>(ret) - 1;  // the call, not the next instruction
  std::vector<Frame> frames;
#ifdef AUGUR_HAVE_LIBBACKTRACE
  if (backtrace_state* s = state()) {
    backtrace_pcinfo(s, pc, &on_line, &ignore_error, &frames);
    if (frames.empty()) {
      Frame f;
      backtrace_syminfo(s, pc, &on_symbol, &ignore_error, &f);
      if (!f.function.empty()) frames.push_back(std::move(f));
    }
  }
#endif
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(pc), &info) != 0) {
    std::string module = info.dli_fname ? info.dli_fname : "?";
    module = module.substr(module.rfind('/') + 1);
    const std::string offset =
        module + "+" + hex(pc - reinterpret_cast<std::uintptr_t>(info.dli_fbase));
    if (frames.empty()) {
      frames.push_back({info.dli_sname ? demangle(info.dli_sname) : "", offset});
    } else {
      for (Frame& f : frames) {
        if (f.where.empty()) f.where = offset;
      }
    }
  } else if (frames.empty()) {
    frames.push_back({"", hex(pc)});
  }
  return frames;
}

}  // namespace

std::string describe_frames(std::span<const void* const> frames, std::size_t limit) {
  std::string out;
  std::size_t shown = 0;
  for (const void* ret : frames) {
    for (const Frame& f : resolve(ret)) {
      if (inside_augur(f.function)) continue;
      if (shown == limit) return out + " <- ...";
      out += shown++ == 0 ? "" : " <- ";
      out += f.function.empty() ? f.where : f.function + " at " + f.where;
    }
  }
  if (!out.empty()) return out;
  // Everything resolved to Augur or the standard library (first-stage code
  // inlined into them, without debug info): give the places as they are.
  for (const void* ret : frames) {
    const std::vector<Frame> resolved = resolve(ret);
    if (resolved.front().function.starts_with("augur::")) continue;
    if (shown == limit) return out + " <- ...";
    out += shown++ == 0 ? "" : " <- ";
    out += resolved.front().where;
  }
  return out.empty() ? "(an unknown site)" : out;
}

}  // namespace augur::stage
