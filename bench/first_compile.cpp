// The first jit::compile of a process: what an application pays once, on
// top of a compile's usual cost. It stages, optimizes and compiles
// power(x, 13) at O2, then power(x, 14) (a later compile), and builds the same
// function as C with `cc -O2 -shared` + dlopen, the route a first compile
// competes with. With --rules-first it builds the PEG optimizer's rule set
// alone before the first compile (what peg::warm_up costs). One run is one
// process, so run it a few times:
//
//   for i in 1 2 3 4 5; do build/release/bench/first_compile; done
//   for i in 1 2 3 4 5; do build/release/bench/first_compile --rules-first; done
#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "jit/jit.h"
#include "runtime/peg/optimize.h"
#include "tests/support/staged_programs.h"

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

constexpr const char* kPowerC = R"(double power13(double x) {
  double r = 1.0, y = x;
  for (int e = 13; e > 0; e /= 2) {
    if (e % 2 == 1) r = r * y;
    y = y * y;
  }
  return r;
}
)";

// cc -O2 -shared + dlopen of power13, in ms; exits on failure.
double system_compiler() {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("augur_first_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "power13.c") << kPowerC;
  const Clock::time_point start = Clock::now();
  const std::string command = "cc -O2 -shared -fPIC -o " + (dir / "power13.so").string() + " " +
                              (dir / "power13.c").string();
  if (std::system(command.c_str()) != 0) std::exit(1);
  void* handle = dlopen((dir / "power13.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle || !dlsym(handle, "power13")) std::exit(1);
  const double ms = ms_since(start);
  dlclose(handle);
  std::filesystem::remove_all(dir);
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  const bool rules_first = argc > 1 && std::string_view(argv[1]) == "--rules-first";
  if (rules_first) {
    const Clock::time_point start = Clock::now();
    augur::peg::warm_up();
    std::printf("rule set      %7.2f ms\n", ms_since(start));
  }
  Clock::time_point start = Clock::now();
  const jit::function<double(double)> first = jit::compile(augur::staged::power, 13);
  const double first_ms = ms_since(start);
  start = Clock::now();
  const jit::function<double(double)> second = jit::compile(augur::staged::power, 14);
  const double second_ms = ms_since(start);
  if (first(2.0) != 8192.0 || second(2.0) != 16384.0) return 1;
  const double cc_ms = system_compiler();
  std::printf("first compile %7.2f ms\nlater compile %7.2f ms\ncc + dlopen   %7.2f ms\n", first_ms,
              second_ms, cc_ms);
  std::printf("cc / first compile %.1fx, cc / later compile %.1fx\n", cc_ms / first_ms,
              cc_ms / second_ms);
  return 0;
}
