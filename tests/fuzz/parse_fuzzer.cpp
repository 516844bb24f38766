// libFuzzer target for the IR parser (run by scripts/fuzz.sh). Any input must
// either parse or be rejected with a jit::error; what parses must print to text
// that parses back to the same module and prints the same again. The verifier
// and the content hash take every module that parses: check() must not throw,
// verify() must throw exactly when check() finds a problem, and the reparsed
// module must hash the same. A crash, a sanitizer report, another exception
// type or a broken promise is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "jit/error.h"
#include "runtime/ir/hash.h"
#include "runtime/ir/parser.h"
#include "runtime/ir/printer.h"
#include "runtime/ir/verifier.h"

namespace {

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "parse_fuzzer finding: %s\n%s\n", what, detail.c_str());
  std::abort();
}

// Declarations in scope when the input is also tried as a kernel's body, so
// that statement- and expression-level mutations parse more often.
constexpr std::string_view kPrelude =
    "extern fn pure_f(f64) -> f64 pure;\n"
    "extern fn read_f(i32*, i64) -> i32 readonly;\n"
    "extern fn effect_f(i32) -> void effect;\n"
    "kernel fn k(a: i32, b: i64, c: u8, d: u16, e: u64, p: bool, x: f32, y: f64, v: i32*, w: f64*) "
    "-> void {\n";

void check(std::string_view text) {
  augur::ir::Module module;
  try {
    module = augur::ir::parse_module(text, "fuzz");
  } catch (const jit::error&) {
    return;  // a clean rejection; any other exception escapes and aborts
  }
  std::string printed;
  augur::ir::Module again;
  try {
    printed = augur::ir::print(module);
    again = augur::ir::parse_module(printed, "printed");
  } catch (const std::exception& e) {
    finding("the printed module does not parse", std::string(e.what()) + "\n" + printed);
  }
  if (!(again == module)) finding("print -> parse changed the module", printed);
  const std::string reprinted = augur::ir::print(again);
  if (reprinted != printed) finding("print -> parse -> print is not the identity", reprinted);

  const std::vector<jit::verify_error> problems = augur::ir::check(module);
  bool rejected = false;
  try {
    augur::ir::verify(module);
  } catch (const jit::verify_error&) {
    rejected = true;
  }
  if (rejected == problems.empty()) finding("verify() and check() disagree", printed);
  if (augur::ir::content_hash(again) != augur::ir::content_hash(module)) {
    finding("the reparsed module hashes differently", printed);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  check(input);
  check(std::string(kPrelude) + std::string(input) + "\n}\n");
  return 0;
}
