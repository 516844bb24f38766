// jit::table (jit/table.h): static data copied into the code. Lookups agree
// with the same lookups in C++ in the interpreter and at O0 and O2, for every
// element type; the table outlives the data it was made from; equal contents
// are equal programs; the text form round-trips; misuse is a clear error.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "jit/jit.h"
#include "runtime/ir/hash.h"
#include "runtime/ir/parser.h"
#include "runtime/ir/printer.h"
#include "runtime/ir/verifier.h"
#include "tests/stage/support.h"

namespace augur::stage::testing {
namespace {

// Four tables of different element types, looked up at a dyn index.
jit::dyn<double> lookup(jit::dyn<std::int32_t> i, const std::vector<std::uint8_t>& bytes,
                        const std::vector<std::int16_t>& shorts, const std::vector<double>& doubles,
                        const std::array<bool, 5>& flags) {
  const auto b = jit::table(bytes);
  const auto s = jit::table(shorts);
  const auto d = jit::table(doubles);
  const auto f = jit::table(flags);
  jit::dyn<std::int32_t> k = i % 5;
  k = jit::select(k < 0, k + 5, k);
  jit::dyn<double> out = jit::cast<double>(b[i & 255]) + jit::cast<double>(s[k]) * d[k];
  if (f[k]) out = -out;
  return out;
}

double expected(std::int32_t i, const std::vector<std::uint8_t>& bytes,
                const std::vector<std::int16_t>& shorts, const std::vector<double>& doubles,
                const std::array<bool, 5>& flags) {
  std::int32_t k = i % 5;
  if (k < 0) k += 5;
  double out = static_cast<double>(bytes[static_cast<std::size_t>(i & 255)]) +
               static_cast<double>(shorts[static_cast<std::size_t>(k)]) *
                   doubles[static_cast<std::size_t>(k)];
  return flags[static_cast<std::size_t>(k)] ? -out : out;
}

using Lookup = jit::function<double(std::int32_t)>;

TEST(Table, LookupsAgreeWithCppInTheInterpreterAndAtO0AndO2) {
  std::mt19937 rng(11);
  std::vector<std::uint8_t> bytes(256);
  for (std::uint8_t& b : bytes) b = static_cast<std::uint8_t>(rng());
  const std::vector<std::int16_t> shorts = {-32768, -1, 0, 7, 32767};
  const std::vector<double> doubles = {0.5, -2.25, 1e300, -0.0, 3.0};
  const std::array<bool, 5> flags = {true, false, false, true, false};

  jit::compile_options o0, o2;
  o0.opt_level = 0;
  o2.opt_level = 2;
  const Lookup at_o0 = jit::compile(o0, lookup, bytes, shorts, doubles, flags);
  const Lookup at_o2 = jit::compile(o2, lookup, bytes, shorts, doubles, flags);
  const jit::extraction e = jit::extract(lookup, bytes, shorts, doubles, flags);
  const ir::Interpreter interp = interpreter(e);
  for (int trial = 0; trial < 500; ++trial) {
    const auto i = static_cast<std::int32_t>(rng());
    const double want = expected(i, bytes, shorts, doubles, flags);
    EXPECT_EQ(at_o0(i), want) << i;
    EXPECT_EQ(at_o2(i), want) << i;
    EXPECT_EQ(run<double>(interp, i), want) << i;
  }
  EXPECT_NE(e.ir().find("table u8 ["), std::string::npos) << e.ir();
  EXPECT_NE(e.ir().find("table f64 [0.5f64"), std::string::npos) << e.ir();
}

jit::dyn<std::uint32_t> nth(jit::dyn<std::uint32_t> i, std::vector<std::uint32_t> values) {
  return jit::table(values)[i];
}

TEST(Table, TheCodeKeepsItsOwnCopy) {
  using Nth = jit::function<std::uint32_t(std::uint32_t)>;
  auto values = std::make_unique<std::vector<std::uint32_t>>(1000);
  for (std::uint32_t k = 0; k < 1000; ++k) (*values)[k] = k * 2654435761u;
  const Nth f = jit::compile(nth, *values);
  const std::vector<std::uint32_t> copy = *values;
  std::fill(values->begin(), values->end(), 0u);
  values.reset();
  for (std::uint32_t k = 0; k < 1000; k += 37) EXPECT_EQ(f(k), copy[k]) << k;
}

TEST(Table, EqualContentsAreEqualPrograms) {
  const std::vector<std::uint32_t> a = {1, 2, 3}, b = {1, 2, 3}, c = {1, 2, 4};
  const jit::extraction ea = jit::extract(nth, a), eb = jit::extract(nth, b),
                        ec = jit::extract(nth, c);
  EXPECT_EQ(ea.ir(), eb.ir());
  EXPECT_EQ(ir::content_hash(module_of(ea)), ir::content_hash(module_of(eb)));
  EXPECT_NE(ir::content_hash(module_of(ea)), ir::content_hash(module_of(ec)));
}

TEST(Table, TheTextFormRoundTrips) {
  const std::string text =
      "fn f(i: i64) -> f32 {\n"
      "  var t: i8* = table i8 [-128i8, 0i8, 127i8];\n"
      "  return f32(t[i]) + table f32 [1.5f32, -0.0f32, inf_f32][i];\n"
      "}\n";
  const ir::Module module = ir::parse_module(text);
  ir::verify(module);
  EXPECT_EQ(ir::print(module), text);
  EXPECT_EQ(ir::parse_module(ir::print(module)), module);
}

jit::dyn<std::uint8_t> byte_at(jit::dyn<std::uint32_t> i, const std::vector<std::uint8_t>& t) {
  return jit::table(t)[i];
}

TEST(Table, MisuseIsAClearError) {
  // A literal of another type.
  try {
    ir::parse_module("fn f(i: i64) -> u8 {\n  return table u8 [1u8, 2i32][i];\n}\n");
    ADD_FAILURE() << "parsed";
  } catch (const jit::parse_error& e) {
    EXPECT_NE(e.message().find("a table of u8 holds u8 literals"), std::string::npos) << e.what();
    EXPECT_EQ(e.where().line, 2);
  }
  // A store into a table.
  try {
    ir::verify(ir::parse_module("fn f(i: i64) -> void {\n  table u8 [1u8][i] = 2u8;\n}\n"));
    ADD_FAILURE() << "verified";
  } catch (const jit::error& e) {
    EXPECT_NE(std::string(e.what()).find("tables are read-only"), std::string::npos) << e.what();
  }
  // Past the size limit, in a first stage.
  const std::vector<std::uint8_t> huge((std::size_t{16} << 20) + 1);
  EXPECT_THROW(jit::extract(byte_at, huge), jit::staging_error);
}

}  // namespace
}  // namespace augur::stage::testing
