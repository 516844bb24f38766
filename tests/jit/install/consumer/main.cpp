#include <jit/error.h>

#include <string>
#include <string_view>

// From jit/cpu/compile.h, which is not installed: calling it links the CPU
// backend's objects, and with them LLVM and TBB, into this program.
namespace augur::cpu {
bool is_loaded(std::string_view label);
}

int main() {
  if (augur::cpu::is_loaded("augur.v0")) return 1;  // creates the JIT, loads nothing
  try {
    throw jit::compile_error("no such CPU", jit::location::in_function("power"));
  } catch (const jit::error& e) {
    return std::string(e.what()) == "function 'power': no such CPU" ? 0 : 1;
  }
}
