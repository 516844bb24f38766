// jit::ir, as a front end uses it: through <jit/jit.h> only (this target does
// not see the private headers). Parse and verify errors with their
// locations, the interpreter and compiled code agreeing on random inputs,
// signature checks, the cache, a 100,000-statement function, and a registered
// rule matching either operand order.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <jit/jit.h>

namespace {

using ::testing::HasSubstr;

double ir_api_halve(double x) {
  return x / 2;
}

const auto halve = jit::register_external("ir_api_halve", &ir_api_halve, jit::effect::pure);

constexpr const char* kPrograms = R"(
extern fn ir_api_halve(f64) -> f64 pure;

// A loop: x to the n-th power by repeated squaring.
fn power(x: f64, n: i32) -> f64 {
  var r: f64 = 1.0f64;
  while (n > 0i32) {
    if ((n & 1i32) == 1i32) {
      r = r * x;
    }
    x = x * x;
    n = n >> 1i32;
  }
  return r;
}

// Branches.
fn clamp(x: i64, lo: i64, hi: i64) -> i64 {
  if (x < lo) {
    return lo;
  } else if (x > hi) {
    return hi;
  }
  return x;
}

// Loads and stores through pointers: out[i] = a[i] * k + out[i - 1].
fn scan(out: f64*, a: f64*, n: i32, k: f64) -> f64 {
  var total: f64 = 0.0f64;
  for (var i: i32 = 0i32; i < n; i = i + 1i32) {
    total = total + a[i] * k;
    out[i] = total;
  }
  return total;
}

// A call to a registered extern.
fn halved_sum(a: f64, b: f64) -> f64 {
  return @ir_api_halve(a + b) + @ir_api_halve(a - b);
}

fn divide(a: i32, b: i32) -> i32 {
  return a / b;
}
)";

const jit::ir::module& programs() {
  static const jit::ir::module m = jit::ir::parse(kPrograms, "programs.ir");
  return m;
}

TEST(IrApi, ParseErrorsNameTheLineAndColumn) {
  try {
    jit::ir::parse("fn f(x: i32) -> i32 {\n  return x +;\n}\n", "bad.ir");
    FAIL() << "parsed";
  } catch (const jit::parse_error& e) {
    EXPECT_EQ(e.where().file, "bad.ir");
    EXPECT_EQ(e.where().line, 2);
    EXPECT_EQ(e.where().column, 13);
    EXPECT_THAT(e.what(), HasSubstr("bad.ir:2:13"));
  }
}

TEST(IrApi, IllTypedExpressionsNameTheLineAndColumn) {
  try {
    jit::ir::parse("fn f(x: i32, y: f64) -> i32 {\n  return x + y;\n}\n");
    FAIL() << "parsed";
  } catch (const jit::verify_error& e) {
    EXPECT_EQ(e.where().line, 2);
    EXPECT_GT(e.where().column, 0);
  }
}

TEST(IrApi, VerifyErrorsNameTheFunctionAndProblem) {
  const jit::ir::module m = jit::ir::parse(
      "fn fine() -> i32 { return 1i32; }\n"
      "fn no_return(x: i32) -> i32 { if (x > 0i32) { return x; } }\n"
      "fn stray() -> void { break; }\n");
  const std::vector<jit::verify_error> problems = m.check();
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].where().function, "no_return");
  EXPECT_THAT(problems[0].message(), HasSubstr("return"));
  EXPECT_EQ(problems[1].where().function, "stray");
  EXPECT_THAT(problems[1].message(), HasSubstr("break"));
  EXPECT_THROW(m.verify(), jit::verify_error);
  EXPECT_NO_THROW(programs().verify());
}

TEST(IrApi, PrintsCanonicalTextThatParsesBack) {
  const std::string text = programs().print();
  EXPECT_EQ(jit::ir::parse(text).print(), text);
  EXPECT_EQ(jit::ir::parse(text).content_hash(), programs().content_hash());
  EXPECT_EQ(programs().content_hash().size(), 32u);
}

TEST(IrApi, ListsFunctionsWithSignatures) {
  const std::vector<jit::ir::function_info> functions = programs().functions();
  ASSERT_EQ(functions.size(), 5u);
  EXPECT_EQ(functions[0].signature(), "fn power(x: f64, n: i32) -> f64");
  EXPECT_EQ(functions[2].signature(), "fn scan(out: f64*, a: f64*, n: i32, k: f64) -> f64");
  const jit::ir::function_info clamp = programs().function("clamp");
  ASSERT_EQ(clamp.params.size(), 3u);
  EXPECT_EQ(clamp.params[1].name, "lo");
  EXPECT_TRUE(clamp.params[1].type == jit::ir::type::of<std::int64_t>());
  EXPECT_EQ(clamp.result.name(), "i64");
  EXPECT_TRUE(jit::ir::type::named("f32*") == jit::ir::type::of<float*>());
  EXPECT_THROW(jit::ir::type::named("f128"), jit::error);
  try {
    programs().function("nope");
    FAIL();
  } catch (const jit::error& e) {
    EXPECT_THAT(e.message(), HasSubstr("power, clamp, scan, halved_sum, divide"));
  }
}

TEST(IrApi, InterpretsTypedAndDynamically) {
  EXPECT_EQ(programs().interpret<double(double, int)>("power", 2.0, 10), 1024.0);
  // Arguments convert as in a C++ call.
  EXPECT_EQ(programs().interpret<std::int64_t(std::int64_t, std::int64_t, std::int64_t)>("clamp", 5,
                                                                                         0, 3),
            3);

  const std::vector<jit::ir::value> args = {1.5, 3};
  const jit::ir::value r = programs().interpret("power", args);
  EXPECT_EQ(r.type().name(), "f64");
  EXPECT_EQ(r.as<double>(), 3.375);
  EXPECT_THROW(r.as<float>(), jit::error);
}

TEST(IrApi, InterpretRejectsWrongCallsAndReportsTraps) {
  const std::vector<jit::ir::value> too_few = {1.5};
  EXPECT_THROW(programs().interpret("power", too_few), jit::error);
  const std::vector<jit::ir::value> wrong_type = {1.5, std::int64_t{3}};
  try {
    programs().interpret("power", wrong_type);
    FAIL();
  } catch (const jit::error& e) {
    EXPECT_THAT(e.message(), HasSubstr("argument 2"));
    EXPECT_THAT(e.message(), HasSubstr("i64"));
  }
  EXPECT_THROW((programs().interpret<double(double, long)>("power", 1.0, 2L)), jit::error);
  EXPECT_THROW((programs().interpret<int(int, int)>("divide", 1, 0)), jit::trap_error);

  // Bounds-checked: the program may touch only the registered buffers.
  std::vector<double> a(4, 1.0), out(3);
  jit::ir::interpret_options checked;
  checked.bounds_check = true;
  checked.buffers = {{a.data(), a.size() * sizeof(double), "a"},
                     {out.data(), out.size() * sizeof(double), "out"}};
  EXPECT_THROW((programs().interpret<double(double*, double*, int, double)>(
                   "scan", checked, out.data(), a.data(), 4, 1.0)),
               jit::trap_error);
}

TEST(IrApi, SignatureMismatchNamesBoth) {
  try {
    jit::ir::compile<int(double, int)>(programs(), "power");
    FAIL();
  } catch (const jit::error& e) {
    EXPECT_THAT(e.message(), HasSubstr("fn power(x: f64, n: i32) -> f64"));
    EXPECT_THAT(e.message(), HasSubstr("i32(f64, i32)"));
  }
  EXPECT_THROW((jit::ir::compile<double(double)>(programs(), "power")), jit::error);
  EXPECT_THROW((jit::ir::compile<double(double, int)>(programs(), "missing")), jit::error);
  const jit::ir::module kernel =
      jit::ir::parse("kernel fn k(p: f32*) -> void { p[thread_idx.x] = 0.0f32; }");
  EXPECT_THROW((jit::ir::compile<void(float*)>(kernel, "k")), jit::error);
}

TEST(IrApi, CompilingAFunctionThatDoesNotVerifyThrows) {
  const jit::ir::module m = jit::ir::parse("fn f(x: i32) -> i32 { if (x > 0i32) { return x; } }");
  EXPECT_THROW((jit::ir::compile<int(int)>(m, "f")), jit::verify_error);
  jit::compile_options bad;
  bad.opt_level = 7;
  EXPECT_THROW((jit::ir::compile<double(double, int)>(programs(), "power", bad)), jit::error);
}

class AtOptLevel : public ::testing::TestWithParam<int> {
 protected:
  jit::compile_options options() const {
    jit::compile_options o;
    o.opt_level = GetParam();
    return o;
  }
};

TEST_P(AtOptLevel, CompiledCodeAgreesWithTheInterpreter) {
  std::mt19937_64 rng(1234 + GetParam());
  std::uniform_real_distribution<double> real(-4.0, 4.0);
  std::uniform_int_distribution<std::int64_t> wide(-1000, 1000);
  std::uniform_int_distribution<int> small(0, 20);
  const jit::ir::module& m = programs();

  const auto power = jit::ir::compile<double(double, int)>(m, "power", options());
  const auto clamp = jit::ir::compile<std::int64_t(std::int64_t, std::int64_t, std::int64_t)>(
      m, "clamp", options());
  const auto scan = jit::ir::compile<double(double*, double*, int, double)>(m, "scan", options());
  const auto halved = jit::ir::compile<double(double, double)>(m, "halved_sum", options());
  EXPECT_EQ(power.stage_report(), nullptr);

  for (int trial = 0; trial < 200; ++trial) {
    const double x = real(rng);
    const int n = small(rng);
    EXPECT_EQ(power(x, n), (m.interpret<double(double, int)>("power", x, n))) << x << "^" << n;

    const std::int64_t v = wide(rng), lo = wide(rng), hi = lo + small(rng) * 50;
    EXPECT_EQ(
        clamp(v, lo, hi),
        (m.interpret<std::int64_t(std::int64_t, std::int64_t, std::int64_t)>("clamp", v, lo, hi)));

    std::vector<double> a(static_cast<std::size_t>(small(rng)) + 1);
    for (double& e : a) e = real(rng);
    const double k = real(rng);
    std::vector<double> compiled_out(a.size()), interpreted_out(a.size());
    const int len = static_cast<int>(a.size());
    EXPECT_EQ(scan(compiled_out.data(), a.data(), len, k),
              (m.interpret<double(double*, double*, int, double)>("scan", interpreted_out.data(),
                                                                  a.data(), len, k)));
    EXPECT_EQ(compiled_out, interpreted_out);

    const double b = real(rng);
    EXPECT_EQ(halved(x, b), (m.interpret<double(double, double)>("halved_sum", x, b)));
  }
}

INSTANTIATE_TEST_SUITE_P(IrApi, AtOptLevel, ::testing::Values(0, 2));

TEST(IrApi, RepeatedCompilesAreServedFromTheCache) {
  const auto first = jit::ir::compile<double(double, int)>(programs(), "power");
  const jit::cache_statistics before = jit::cache_stats();
  const auto again = jit::ir::compile<double(double, int)>(programs(), "power");
  // The same text parsed again is the same function.
  const auto reparsed =
      jit::ir::compile<double(double, int)>(jit::ir::parse(programs().print()), "power");
  const jit::cache_statistics after = jit::cache_stats();
  EXPECT_EQ(again.pointer(), first.pointer());
  EXPECT_EQ(reparsed.pointer(), first.pointer());
  EXPECT_EQ(after.compiles, before.compiles);
  EXPECT_EQ(after.hits, before.hits + 2);

  // Another opt level is another version.
  jit::compile_options o1;
  o1.opt_level = 1;
  const auto at_o1 = jit::ir::compile<double(double, int)>(programs(), "power", o1);
  EXPECT_NE(at_o1.pointer(), first.pointer());
  EXPECT_EQ(at_o1(3.0, 3), 27.0);
}

TEST(IrApi, DumpsShowTheFunctionUnderItsOwnName) {
  std::string dumped;
  jit::compile_options o;
  o.opt_level = 1;
  o.dump_ir = true;
  o.dump_sink = [&](std::string_view kind, std::string_view text) {
    if (kind == "ir") dumped = text;
  };
  const jit::ir::module m = jit::ir::parse("fn dumped_twice(x: i32) -> i32 { return x + x; }");
  EXPECT_EQ((jit::ir::compile<int(int)>(m, "dumped_twice", o))(21), 42);
  EXPECT_THAT(dumped, HasSubstr("fn dumped_twice(x: i32) -> i32"));
}

// 100,000 statements: a = a * k + c with k odd, so that nothing folds away.
std::string large_program(int statements) {
  std::string text = "fn large(x: i64) -> i64 {\n  var a: i64 = x;\n";
  for (int i = 0; i < statements; ++i) {
    text += "  a = a * " + std::to_string(2 * (i % 7) + 3) + "i64 + " + std::to_string(i % 11) +
            "i64;\n";
  }
  return text + "  return a;\n}\n";
}

TEST(IrApi, AFunctionOf100000StatementsCompiles) {
  const jit::ir::module m = jit::ir::parse(large_program(100'000));
  const auto large = jit::ir::compile<std::int64_t(std::int64_t)>(m, "large");
  for (std::int64_t x : {0, 1, -7, 123456789}) {
    EXPECT_EQ(large(x), (m.interpret<std::int64_t(std::int64_t)>("large", x))) << x;
  }
}

// A registered rule of a commutative IR operator matches either order of its
// operands (jit/rules.h): with (add.i32 (ir_api_half ?x) ?x) registered, both
// x + half(x) and half(x) + x lose their call.
int half_calls = 0;
std::int32_t ir_api_half(std::int32_t x) {
  ++half_calls;
  return x / 2;
}

const auto half = jit::register_external("ir_api_half", &ir_api_half, jit::effect::pure);

TEST(IrApi, ARuleOfACommutativeOperatorMatchesEitherOrder) {
  const jit::ir::module m = jit::ir::parse(R"(
extern fn ir_api_half(i32) -> i32 pure;
fn call_last(x: i32) -> i32 { return x + @ir_api_half(x); }
fn call_first(x: i32) -> i32 { return @ir_api_half(x) + x; }
)");
  // The calls four runs of the function make, each checked against x + x / 2.
  const auto calls = [&](const char* name) {
    const auto f = jit::ir::compile<std::int32_t(std::int32_t)>(m, name);
    const int before = half_calls;
    for (std::int32_t x : {10, 11, -7, 0}) EXPECT_EQ(f(x), x + x / 2) << name << " " << x;
    return half_calls - before;
  };
  // Without the rule, every run calls.
  EXPECT_EQ(calls("call_last"), 4);
  EXPECT_EQ(calls("call_first"), 4);

  jit::register_rule("ir-api-half-plus",
                     "(add.i32 (ir_api_half ?x) ?x) => (add.i32 (div.i32 ?x 2i32) ?x)");
  jit::clear_cache();  // the rules are not part of the in-memory key
  EXPECT_EQ(calls("call_first"), 0);
  EXPECT_EQ(calls("call_last"), 0);
  jit::unregister_rule("ir-api-half-plus");
  jit::clear_cache();
}

}  // namespace
