#include "runtime/ir/hash.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "runtime/ir/builder.h"
#include "runtime/ir/parser.h"
#include "runtime/ir/printer.h"
#include "runtime/ir/verifier.h"

namespace augur::ir {
namespace {

ExprPtr i32c(std::int32_t v) {
  return constant(v);
}

// ---------------------------------------------------------------- the program under edit

// Single semantic edits of the program below; each must change its hash.
enum class Edit {
  None,
  Constant,          // p[i] > 3  ->  p[i] > 4
  Operator,          // p[i] > 3  ->  p[i] >= 3
  SwapOperands,      // acc - f64(p[i])  ->  f64(p[i]) - acc
  ParamType,         // p: i32*  ->  p: u32*
  SwapBranches,      // then and else exchanged
  LoopBound,         // i < n  ->  i < n - 1
  ExternEffect,      // tick: effect  ->  readonly
  StoreTarget,       // p[i] = ...  ->  p[0] = ...
  ExternName,        // @tick  ->  @tock
  ReturnValue,       // return acc  ->  return x
  VariableRead,      // acc + x  ->  acc + acc
  SignedZero,        // var acc = 0.0  ->  var acc = -0.0
  DropElse,          // the else branch removed
  StatementOrder,    // the store and the call exchanged
  Step,              // i = i + 1  ->  i = i + 2
  ParamOrder,        // (p, n, x)  ->  (n, p, x)
  Negation,          // acc + x  ->  acc + -x
  ExternReturnType,  // tick -> i64  ->  tick -> i32
  CallArgument,      // @tick(i64(i))  ->  @tick(i64(n))
  NegatedCondition,  // if (c)  ->  if (!c)
};
constexpr int kEdits = static_cast<int>(Edit::NegatedCondition);

ExternFn tick_decl(Edit edit) {
  return {edit == Edit::ExternName ? "tock" : "tick",
          edit == Edit::ExternReturnType ? Type::i32() : Type::i64(),
          {Type::i64()},
          edit == Edit::ExternEffect ? Effect::ReadOnly : Effect::Effectful};
}

struct Names {
  std::string fn = "f", p = "p", n = "n", x = "x", acc = "acc", i = "i";
};

// extern fn tick(i64) -> i64 effect;
// fn f(p: i32*, n: i32, x: f64) -> f64 {
//   var acc: f64 = 0.0f64;
//   var i: i32 = 0i32;
//   while (i < n) {
//     if (p[i] > 3i32) { acc = acc + x; } else { acc = acc - f64(p[i]); }
//     p[i] = p[i] * 2i32;
//     @tick(i64(i));
//     i = i + 1i32;
//   }
//   return acc;
// }
Function program(Edit edit = Edit::None, const Names& names = {}, bool locals_reversed = false) {
  const Scalar elem = edit == Edit::ParamType ? Scalar::U32 : Scalar::I32;
  const Type elem_type(elem);
  auto elem_const = [&](std::uint64_t v) { return constant(elem_type, v); };
  const auto tick = std::make_shared<const ExternFn>(tick_decl(edit));

  FunctionBuilder b(names.fn, Type::f64());
  VarId p, n;
  if (edit == Edit::ParamOrder) {
    n = b.param(names.n, Type::i32());
    p = b.param(names.p, Type::pointer_to(elem));
  } else {
    p = b.param(names.p, Type::pointer_to(elem));
    n = b.param(names.n, Type::i32());
  }
  VarId x = b.param(names.x, Type::f64());
  // The variable table's order must not matter, only the order of declarations.
  VarId acc, i;
  if (locals_reversed) {
    i = b.new_local(names.i, Type::i32());
    acc = b.new_local(names.acc, Type::f64());
  } else {
    acc = b.new_local(names.acc, Type::f64());
    i = b.new_local(names.i, Type::i32());
  }
  b.emit(Stmt::decl(acc, constant(edit == Edit::SignedZero ? -0.0 : 0.0)));
  b.emit(Stmt::decl(i, i32c(0)));

  ExprPtr bound = edit == Edit::LoopBound ? binary(BinaryOp::Sub, b.read(n), i32c(1)) : b.read(n);
  b.while_(binary(BinaryOp::Lt, b.read(i), bound), [&] {
    auto element = [&] { return load(b.read(p), b.read(i)); };
    ExprPtr cond = binary(edit == Edit::Operator ? BinaryOp::Ge : BinaryOp::Gt, element(),
                          elem_const(edit == Edit::Constant ? 4 : 3));
    if (edit == Edit::NegatedCondition) cond = unary(UnaryOp::Not, cond);
    ExprPtr addend = edit == Edit::VariableRead ? b.read(acc) : b.read(x);
    if (edit == Edit::Negation) addend = unary(UnaryOp::Neg, addend);
    auto then_branch = [&] { b.assign(acc, binary(BinaryOp::Add, b.read(acc), addend)); };
    auto else_branch = [&] {
      ExprPtr converted = cast(Type::f64(), element());
      b.assign(acc, edit == Edit::SwapOperands ? binary(BinaryOp::Sub, converted, b.read(acc))
                                               : binary(BinaryOp::Sub, b.read(acc), converted));
    };
    if (edit == Edit::SwapBranches) {
      b.if_(cond, else_branch, then_branch);
    } else if (edit == Edit::DropElse) {
      b.if_(cond, then_branch);
    } else {
      b.if_(cond, then_branch, else_branch);
    }
    auto store = [&] {
      b.store(b.read(p), edit == Edit::StoreTarget ? i32c(0) : b.read(i),
              binary(BinaryOp::Mul, element(), elem_const(2)));
    };
    auto tick_call = [&] {
      b.eval(call(tick, {cast(Type::i64(), b.read(edit == Edit::CallArgument ? n : i))}));
    };
    if (edit == Edit::StatementOrder) {
      tick_call();
      store();
    } else {
      store();
      tick_call();
    }
    b.assign(i, binary(BinaryOp::Add, b.read(i), i32c(edit == Edit::Step ? 2 : 1)));
  });
  b.return_(b.read(edit == Edit::ReturnValue ? x : acc));
  return std::move(b).finish();
}

// `functions` with the declaration of the extern that program(edit) calls.
Module module_of(std::vector<Function> functions, Edit edit = Edit::None) {
  Module m;
  m.declare_extern(tick_decl(edit));
  m.functions = std::move(functions);
  return m;
}

// ---------------------------------------------------------------- Hasher

TEST(Hasher, SeparatesWordsStringsAndOrder) {
  auto of_words = [](std::initializer_list<std::uint64_t> words) {
    Hasher h;
    for (std::uint64_t w : words) h.add(w);
    return h.finish();
  };
  auto of_strings = [](std::initializer_list<std::string_view> strings) {
    Hasher h;
    for (std::string_view s : strings) h.add(s);
    return h.finish();
  };
  std::set<Hash128> seen = {Hasher().finish(),
                            of_words({0}),
                            of_words({0, 0}),
                            of_words({1}),
                            of_words({1, 2}),
                            of_words({2, 1}),
                            of_strings({"a"}),
                            of_strings({"ab", "c"}),
                            of_strings({"a", "bc"}),
                            of_strings({"abcdefgh"}),
                            of_strings({"abcdefgh", ""}),
                            of_strings({"abcdefghi"})};
  EXPECT_EQ(seen.size(), 12u);
}

TEST(Hasher, FlipsAboutHalfTheOutputBitsPerInputBit) {
  // Avalanche: over every single-bit change of a 3-word input, each output bit
  // flips with probability near 1/2, for both halves.
  int flips = 0, trials = 0;
  const Hash128 base = [] {
    Hasher h;
    h.add(0x0123456789abcdefull);
    h.add(42);
    h.add(7);
    return h.finish();
  }();
  for (int word = 0; word < 3; ++word) {
    for (int bit = 0; bit < 64; ++bit) {
      std::array<std::uint64_t, 3> input = {0x0123456789abcdefull, 42, 7};
      input[word] ^= std::uint64_t{1} << bit;
      Hasher h;
      for (std::uint64_t w : input) h.add(w);
      const Hash128 changed = h.finish();
      flips += std::popcount(changed.hi ^ base.hi) + std::popcount(changed.lo ^ base.lo);
      trials += 128;
    }
  }
  const double rate = static_cast<double>(flips) / trials;
  EXPECT_GT(rate, 0.47);
  EXPECT_LT(rate, 0.53);
}

TEST(Hasher, HexIsHiThenLo) {
  EXPECT_EQ((Hash128{0x0123456789abcdefull, 0xfedcba9876543210ull}.hex()),
            "0123456789abcdeffedcba9876543210");
  EXPECT_EQ(Hash128{}.hex(), std::string(32, '0'));
}

// ---------------------------------------------------------------- golden values

// These values were computed once; a change means every disk cache key moved.
// Only change them together with the version digit in hash.cpp's tags.
constexpr std::string_view kGoldenHasher = "498416731aa3f6cd691d243b8b8e6f89";
constexpr std::string_view kGoldenFunction = "7560e6310db28c871cb2c5edb033b48e";
constexpr std::string_view kGoldenModule = "3b2290a423b125232051c10309590835";

std::string hasher_sample() {
  Hasher h;
  h.add(0);
  h.add(~std::uint64_t{0});
  h.add("augur");
  return h.finish().hex();
}

TEST(HashGolden, FixedInputsHashToRecordedValues) {
  EXPECT_EQ(hasher_sample(), kGoldenHasher);
  const Function f = program();
  EXPECT_EQ(content_hash(f).hex(), kGoldenFunction);
  EXPECT_EQ(content_hash(module_of({f})).hex(), kGoldenModule);
}

// Prints the hashes for SameInAnotherProcess, which runs it in a fresh process
// (its own heap addresses and ASLR layout). Disabled when run directly.
TEST(HashChild, DISABLED_PrintHashes) {
  const Function f = program();
  std::printf("hasher=%s function=%s module=%s\n", hasher_sample().c_str(),
              content_hash(f).hex().c_str(), content_hash(module_of({f})).hex().c_str());
}

TEST(HashGolden, SameInAnotherProcess) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe");
  const std::string command = "'" + self +
                              "' --gtest_also_run_disabled_tests "
                              "--gtest_filter=HashChild.DISABLED_PrintHashes 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  std::array<char, 256> chunk;
  while (std::fgets(chunk.data(), chunk.size(), pipe)) output += chunk.data();
  ASSERT_EQ(pclose(pipe), 0) << output;
  EXPECT_THAT(output, ::testing::HasSubstr("hasher=" + std::string(kGoldenHasher) +
                                           " function=" + std::string(kGoldenFunction) +
                                           " module=" + std::string(kGoldenModule) + "\n"));
}

// ---------------------------------------------------------------- content_hash(Function)

TEST(ContentHash, ProgramUnderEditIsValid) {
  for (int e = 0; e <= kEdits; ++e) {
    SCOPED_TRACE(e);
    const Edit edit = static_cast<Edit>(e);
    EXPECT_NO_THROW(verify(module_of({program(edit)}, edit)));
  }
}

TEST(ContentHash, IgnoresFunctionAndVariableNames) {
  const Hash128 base = content_hash(program());
  const Names renamed{"g", "data", "count", "scale", "sum", "k"};
  EXPECT_EQ(content_hash(program(Edit::None, renamed)), base);
  EXPECT_EQ(content_hash(program(Edit::None, {}, /*locals_reversed=*/true)), base);
  EXPECT_EQ(content_hash(program(Edit::Step)), content_hash(program(Edit::Step, renamed, true)));
}

TEST(ContentHash, EverySemanticEditChangesIt) {
  std::map<Hash128, int> seen;
  for (int e = 0; e <= kEdits; ++e) {
    const auto [it, inserted] = seen.emplace(content_hash(program(static_cast<Edit>(e))), e);
    EXPECT_TRUE(inserted) << "edit " << e << " hashes like edit " << it->second;
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(kEdits) + 1);
}

TEST(ContentHash, DistinguishesStatementsFromBlockBoundaries) {
  // { a; } b;  and  { a; b; }  have the same statements in the same order.
  FunctionBuilder one("f", Type::void_());
  VarId x1 = one.param("x", Type::i32());
  one.if_(constant(true), [&] { one.assign(x1, i32c(1)); });
  one.assign(x1, i32c(2));
  FunctionBuilder two("f", Type::void_());
  VarId x2 = two.param("x", Type::i32());
  two.if_(constant(true), [&] {
    two.assign(x2, i32c(1));
    two.assign(x2, i32c(2));
  });
  EXPECT_NE(content_hash(std::move(one).finish()), content_hash(std::move(two).finish()));
}

TEST(ContentHash, SameProgramFromDifferentlyFormattedText) {
  // program() in canonical form, and by hand with other names, spacing,
  // comments, parentheses and float spelling.
  const Module canonical = module_of({program()});
  const std::string reformatted = R"(
    // the program under edit, reformatted
    extern   fn tick ( i64 )->i64 effect ;
    fn g(data:i32*,count:i32,scale:f64)->f64{var sum:f64=0.000f64;var k:i32=(0i32);
    while((k<count)){if(((data[k])>3i32)){sum=(sum+scale);}else{sum=sum-f64(data[k]);}
    data[k]=data[k]*2i32; // doubled
    @tick(i64(k));k=k+1i32;}return (sum);}
  )";
  const Module printed = parse_module(print(canonical));
  const Module other = parse_module(reformatted);
  ASSERT_NO_THROW(verify(other));
  const Hash128 expected = content_hash(canonical.functions[0]);
  EXPECT_EQ(content_hash(printed.functions[0]), expected);
  EXPECT_EQ(content_hash(other.functions[0]), expected);
  EXPECT_EQ(content_hash(printed), content_hash(canonical));

  // With the function's name restored, the module hashes agree too.
  Module renamed = other;
  renamed.functions[0].name = "f";
  EXPECT_EQ(content_hash(renamed), content_hash(canonical));
  EXPECT_NE(content_hash(other), content_hash(canonical));
}

// ---------------------------------------------------------------- content_hash(Module)

TEST(ContentHash, ModuleIncludesFunctionNamesAndOrderButNotExternOrder) {
  const Function f = program();
  Function g = program(Edit::Step);
  g.name = "g";
  const Module fg = module_of({f, g});
  const Hash128 base = content_hash(fg);

  Module renamed = fg;
  renamed.functions[1].name = "h";
  EXPECT_NE(content_hash(renamed), base);

  EXPECT_NE(content_hash(module_of({g, f})), base);

  Module extra_extern = fg;
  extra_extern.declare_extern({"unused", Type::void_(), {}, Effect::Pure});
  EXPECT_NE(content_hash(extra_extern), base);

  Module reordered = extra_extern;
  std::swap(reordered.externs.front(), reordered.externs.back());
  EXPECT_EQ(content_hash(reordered), content_hash(extra_extern));

  Module renamed_var = fg;
  renamed_var.functions[0].vars[0].name = "q";
  EXPECT_EQ(content_hash(renamed_var), base);
}

}  // namespace
}  // namespace augur::ir
