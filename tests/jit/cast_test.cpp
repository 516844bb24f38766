// Every cast between bool, integers and floats, at run time and constant-folded,
// against docs/ir.md's rules written in C++.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>

#include "tests/jit/jit_test_util.h"

namespace augur::cpu::test {
namespace {

// Float → integer: truncation toward zero, saturating, NaN → 0.
template <class To, class From>
To float_to_int(From x) {
  if (std::isnan(x)) return 0;
  const long double t = std::trunc(static_cast<long double>(x));
  if (t <= static_cast<long double>(std::numeric_limits<To>::min())) {
    return std::numeric_limits<To>::min();
  }
  if (t >= static_cast<long double>(std::numeric_limits<To>::max())) {
    return std::numeric_limits<To>::max();
  }
  return static_cast<To>(t);
}

template <class To, class From>
To reference_cast(From x) {
  if constexpr (std::is_same_v<To, bool>) {
    return x != From(0);
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    return float_to_int<To>(x);
  } else {
    return static_cast<To>(x);  // C++20: modular integer conversions, IEEE rounding
  }
}

template <class T>
std::vector<T> cast_inputs() {
  std::vector<T> values;
  if constexpr (std::is_same_v<T, bool>) {
    values = {false, true};
  } else if constexpr (std::is_integral_v<T>) {
    using L = std::numeric_limits<T>;
    for (long long v : {0LL, 1LL, -1LL, 127LL, 128LL, 255LL, 256LL, -129LL, 65535LL, 16777217LL})
      values.push_back(static_cast<T>(v));
    values.push_back(L::min());
    values.push_back(L::max());
    std::mt19937_64 rng(sizeof(T) + 2 * std::is_signed_v<T>);
    for (int i = 0; i < 6; ++i) values.push_back(static_cast<T>(rng()));
  } else {
    using L = std::numeric_limits<T>;
    for (long double v : {0.0L,
                          -0.0L,
                          0.5L,
                          -0.5L,
                          -0.99L,
                          1.5L,
                          -1.5L,
                          127.9L,
                          128.0L,
                          -128.5L,
                          -129.0L,
                          255.5L,
                          256.0L,
                          32767.5L,
                          65536.0L,
                          2147483647.0L,
                          2147483648.0L,
                          -2147483649.0L,
                          4294967296.0L,
                          9.2233720368547758e18L,
                          1.8446744073709552e19L,
                          1e30L,
                          -1e30L,
                          16777217.0L})
      values.push_back(static_cast<T>(v));
    for (T v : {L::infinity(), -L::infinity(), L::quiet_NaN(), -L::quiet_NaN(), L::denorm_min(),
                L::max(), L::lowest()})
      values.push_back(v);
  }
  return values;
}

using AllTypes =
    std::tuple<bool, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t,
               std::uint16_t, std::uint32_t, std::uint64_t, float, double>;

std::string cast_name(ir::Type from, ir::Type to) {
  return "cast_" + from.name() + "_" + to.name();
}

template <class From, class To>
ir::Function runtime_cast() {
  ir::FunctionBuilder b(cast_name(ir::type_of<From>(), ir::type_of<To>()), ir::type_of<To>());
  ir::VarId x = b.param("x", ir::type_of<From>());
  b.return_(ir::cast(ir::type_of<To>(), b.read(x)));
  return std::move(b).finish();
}

// Same result bits, any NaN matching any NaN.
template <class T>
bool same(T expected, ir::Value actual) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(expected)) return std::isnan(actual.as<T>());
  }
  return ir::Value::of(expected) == actual;
}

template <class From, class To>
void check_runtime_cast(const CompiledCode& code) {
  const std::string name = cast_name(ir::type_of<From>(), ir::type_of<To>());
  for (From x : cast_inputs<From>()) {
    const ir::Value arg = ir::Value::of(x);
    const ir::Value result = invoke(code, name, {&arg, 1});
    EXPECT_TRUE(same(reference_cast<To>(x), result))
        << name << "(" << +x << ") gave bits " << result.bits;
  }
}

// A function per input value: `return To(constant)`, which O2 folds.
template <class From, class To>
void add_folded_casts(std::vector<ir::Function>& functions) {
  int i = 0;
  for (From x : cast_inputs<From>()) {
    ir::FunctionBuilder b(
        cast_name(ir::type_of<From>(), ir::type_of<To>()) + "_k" + std::to_string(i++),
        ir::type_of<To>());
    b.return_(ir::cast(ir::type_of<To>(), ir::constant(x)));
    functions.push_back(std::move(b).finish());
  }
}

template <class From, class To>
void check_folded_casts(const CompiledCode& code) {
  int i = 0;
  for (From x : cast_inputs<From>()) {
    const std::string name =
        cast_name(ir::type_of<From>(), ir::type_of<To>()) + "_k" + std::to_string(i++);
    const ir::Value result = invoke(code, name, {});
    EXPECT_TRUE(same(reference_cast<To>(x), result)) << name << " of " << +x;
  }
}

template <class From>
void check_casts_from(int opt) {
  SCOPED_TRACE(ir::type_of<From>().name());
  std::vector<ir::Function> functions;
  std::apply([&](auto... to) { (functions.push_back(runtime_cast<From, decltype(to)>()), ...); },
             AllTypes{});
  std::apply([&](auto... to) { (add_folded_casts<From, decltype(to)>(functions), ...); },
             AllTypes{});
  auto code = compile_at(opt, module_of(std::move(functions)));
  std::apply([&](auto... to) { (check_runtime_cast<From, decltype(to)>(*code), ...); }, AllTypes{});
  std::apply([&](auto... to) { (check_folded_casts<From, decltype(to)>(*code), ...); }, AllTypes{});
}

TEST_P(AtOptLevel, EveryScalarCastAtRunTimeAndConstantFolded) {
  std::apply([&](auto... from) { (check_casts_from<decltype(from)>(opt()), ...); }, AllTypes{});
}

TEST_P(AtOptLevel, PointerCastsKeepTheAddress) {
  ir::FunctionBuilder to_int("to_int", ir::Type::u64());
  ir::VarId p = to_int.param("p", ir::Type::pointer_to(ir::Scalar::F32));
  to_int.return_(
      ir::cast(ir::Type::u64(), ir::cast(ir::Type::pointer_to(ir::Scalar::U8), to_int.read(p))));
  ir::FunctionBuilder from_int("from_int", ir::Type::pointer_to(ir::Scalar::I16));
  ir::VarId a = from_int.param("a", ir::Type::i64());
  from_int.return_(ir::cast(ir::Type::pointer_to(ir::Scalar::I16), from_int.read(a)));
  auto code =
      compile_at(opt(), module_of({std::move(to_int).finish(), std::move(from_int).finish()}));
  float storage[2] = {};
  EXPECT_EQ(call_native<std::uint64_t>(*code, "to_int", &storage[1]),
            reinterpret_cast<std::uintptr_t>(&storage[1]));
  EXPECT_EQ(call_native<std::int16_t*>(*code, "from_int", std::int64_t{0x1234560}),
            reinterpret_cast<std::int16_t*>(0x1234560));
}

INSTANTIATE_TEST_SUITE_P(Jit, AtOptLevel, ::testing::Values(0, 2));

}  // namespace
}  // namespace augur::cpu::test
