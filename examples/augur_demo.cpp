// The README's demo: an IR program, as a language front end would generate
// it, is parsed, verified, hashed, interpreted and compiled (jit/ir.h).
#include <cstdint>
#include <cstdio>
#include <vector>

#include <jit/jit.h>

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
  try {
    const jit::ir::module module = jit::ir::parse(kProgram, "demo.ir");
    module.verify();
    std::printf("Parsed and verified %zu functions; canonical text:\n\n%s\n",
                module.functions().size(), module.print().c_str());
    std::printf("content hash: %s\n\n", module.content_hash().c_str());

    // The interpreter: the oracle every compiled version is tested against.
    for (int n : {0, 1, 10, 13}) {
      std::printf("power(2.0, %d) = %g\n", n,
                  module.interpret<double(double, int)>("power", 2.0, n));
    }

    // Bounds-checked, the program may touch only the buffers it is given.
    std::vector<std::int64_t> values = {3, 1, 4, 1, 5, 9, 2, 6};
    jit::ir::interpret_options checked;
    checked.bounds_check = true;
    checked.buffers.push_back({values.data(), values.size() * sizeof(values[0]), "values"});
    module.interpret<void(std::int64_t*, int)>("prefix_sums", checked, values.data(),
                                               static_cast<int>(values.size()));
    std::printf("prefix_sums(3 1 4 1 5 9 2 6) =");
    for (std::int64_t v : values) std::printf(" %lld", static_cast<long long>(v));
    std::printf("\n\n");

    // Native code, through jit::compile's optimizer, backend and cache.
    const jit::function<double(double, int)> power =
        jit::ir::compile<double(double, int)>(module, "power");
    const double compiled = power(2.0, 13);
    const double interpreted = module.interpret<double(double, int)>("power", 2.0, 13);
    std::printf("compiled power(2.0, 13) = %g (interpreted: %g)\n", compiled, interpreted);
    return compiled == interpreted ? 0 : 1;
  } catch (const jit::error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
