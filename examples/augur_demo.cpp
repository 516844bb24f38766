// The README's demo: an IR program is parsed, verified, hashed and interpreted.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "jit/error.h"
#include "runtime/ir/hash.h"
#include "runtime/ir/interp.h"
#include "runtime/ir/parser.h"
#include "runtime/ir/printer.h"
#include "runtime/ir/verifier.h"

namespace {

constexpr const char* kProgram = R"(
// x to the n-th power by repeated squaring.
fn power(x: f64, n: i32) -> f64 {
  var r: f64 = 1.0f64;
  while (n > 0i32) {
    if ((n & 1i32) == 1i32) { r = r * x; }
    x = x * x;
    n = n >> 1i32;
  }
  return r;
}

// Running sums of an array, in place.
fn prefix_sums(a: i64*, n: i32) -> void {
  for (var i: i32 = 1i32; i < n; i = i + 1i32) {
    a[i] = a[i] + a[i - 1i32];
  }
}
)";

}  // namespace

int main() {
  using namespace augur::ir;
  try {
    Module module = parse_module(kProgram, "demo.ir");
    verify(module);
    std::printf("Parsed and verified %zu functions; canonical text:\n\n%s\n",
                module.functions.size(), print(module).c_str());
    std::printf("content hash: %s\n\n", content_hash(module).hex().c_str());

    Interpreter power(module, "power");
    for (int n : {0, 1, 10, 13}) {
      std::printf("power(2.0, %d) = %g\n", n, power.call<double>(2.0, std::int32_t{n}));
    }

    std::vector<std::int64_t> values = {3, 1, 4, 1, 5, 9, 2, 6};
    InterpOptions checked;
    checked.bounds_check = true;
    checked.buffers.push_back({values.data(), values.size() * sizeof(values[0]), "values"});
    Interpreter sums(module, "prefix_sums", checked);
    sums.call<void>(values.data(), static_cast<std::int32_t>(values.size()));
    std::printf("prefix_sums(3 1 4 1 5 9 2 6) =");
    for (std::int64_t v : values) std::printf(" %lld", static_cast<long long>(v));
    std::printf("\n");
    return 0;
  } catch (const jit::error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
