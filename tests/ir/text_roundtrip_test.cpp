// Printer and parser against each other and against the builder: modules made
// with the builder print and parse back to the same structure; the parser
// reads precedence, literals and scopes as docs/ir.md defines them; layout,
// comments and redundant parentheses do not change what is parsed.
#include <gtest/gtest.h>

#include <bit>
#include <limits>
#include <random>

#include "jit/error.h"
#include "runtime/ir/builder.h"
#include "runtime/ir/parser.h"
#include "runtime/ir/printer.h"

namespace augur::ir {
namespace {

// The parameters every expression test can use, and their VarIds in order.
constexpr const char* kParams = "a: i32, b: i32, c: i32, p: bool, q: bool, x: f64, v: i32*, u: u8";

ExprPtr var(std::uint32_t index, Type type) {
  return read(VarId{index}, type);
}
ExprPtr a() {
  return var(0, Type::i32());
}
ExprPtr b() {
  return var(1, Type::i32());
}
ExprPtr c() {
  return var(2, Type::i32());
}
ExprPtr p() {
  return var(3, Type::bool_());
}
ExprPtr q() {
  return var(4, Type::bool_());
}
ExprPtr x() {
  return var(5, Type::f64());
}
ExprPtr v() {
  return var(6, Type::pointer_to(Scalar::I32));
}
ExprPtr u() {
  return var(7, Type::u8());
}

// A function with kParams whose body evaluates `expr`.
Function eval_function(ExprPtr expr) {
  FunctionBuilder fb("t", Type::void_());
  fb.param("a", Type::i32());
  fb.param("b", Type::i32());
  fb.param("c", Type::i32());
  fb.param("p", Type::bool_());
  fb.param("q", Type::bool_());
  fb.param("x", Type::f64());
  fb.param("v", Type::pointer_to(Scalar::I32));
  fb.param("u", Type::u8());
  fb.eval(std::move(expr));
  return std::move(fb).finish();
}

ExprPtr parse_expr(const std::string& expr) {
  const Module m =
      parse_module("fn t(" + std::string(kParams) + ") -> void {\n  " + expr + ";\n}\n");
  return m.functions.at(0).body.at(0).expr;
}

void expect_parses_to(const std::string& text, const ExprPtr& expected) {
  const ExprPtr got = parse_expr(text);
  EXPECT_TRUE(same_expr(got, expected))
      << text << " parsed as " << print(*got, eval_function(got)) << ", expected "
      << print(*expected, eval_function(expected));
}

ExprPtr bin(BinaryOp op, ExprPtr l, ExprPtr r) {
  return binary(op, std::move(l), std::move(r));
}

TEST(ParseStructure, BinaryOperatorsAreLeftAssociative) {
  expect_parses_to("a - b - c", bin(BinaryOp::Sub, bin(BinaryOp::Sub, a(), b()), c()));
  expect_parses_to("a - (b - c)", bin(BinaryOp::Sub, a(), bin(BinaryOp::Sub, b(), c())));
  expect_parses_to("a / b * c", bin(BinaryOp::Mul, bin(BinaryOp::Div, a(), b()), c()));
  expect_parses_to("a << b >> c", bin(BinaryOp::Shr, bin(BinaryOp::Shl, a(), b()), c()));
  expect_parses_to("p == q != p", bin(BinaryOp::Ne, bin(BinaryOp::Eq, p(), q()), p()));
}

TEST(ParseStructure, EachLevelBindsTighterThanThePreviousOne) {
  expect_parses_to("p || q && p", bin(BinaryOp::Or, p(), bin(BinaryOp::And, q(), p())));
  expect_parses_to("p && q | p", bin(BinaryOp::And, p(), bin(BinaryOp::BitOr, q(), p())));
  expect_parses_to("a | b ^ c", bin(BinaryOp::BitOr, a(), bin(BinaryOp::BitXor, b(), c())));
  expect_parses_to("a ^ b & c", bin(BinaryOp::BitXor, a(), bin(BinaryOp::BitAnd, b(), c())));
  expect_parses_to("p & a == b", bin(BinaryOp::BitAnd, p(), bin(BinaryOp::Eq, a(), b())));
  expect_parses_to("p != a < b", bin(BinaryOp::Ne, p(), bin(BinaryOp::Lt, a(), b())));
  expect_parses_to("a >= b << c", bin(BinaryOp::Ge, a(), bin(BinaryOp::Shl, b(), c())));
  expect_parses_to("a << b + c", bin(BinaryOp::Shl, a(), bin(BinaryOp::Add, b(), c())));
  expect_parses_to("a - b % c", bin(BinaryOp::Sub, a(), bin(BinaryOp::Rem, b(), c())));
  expect_parses_to("-a * b", bin(BinaryOp::Mul, unary(UnaryOp::Neg, a()), b()));
  expect_parses_to("-v[a]", unary(UnaryOp::Neg, load(v(), a())));
  expect_parses_to("!p == q", bin(BinaryOp::Eq, unary(UnaryOp::Not, p()), q()));
  expect_parses_to("~v[a]", unary(UnaryOp::BitNot, load(v(), a())));
}

TEST(ParseStructure, SelectIsRightAssociativeAndLoosest) {
  expect_parses_to("p ? a : q ? b : c", select(p(), a(), select(q(), b(), c())));
  expect_parses_to("p ? q ? a : b : c", select(p(), select(q(), a(), b()), c()));
  expect_parses_to("p || q ? a + b : c",
                   select(bin(BinaryOp::Or, p(), q()), bin(BinaryOp::Add, a(), b()), c()));
  expect_parses_to("(p ? a : b) + c", bin(BinaryOp::Add, select(p(), a(), b()), c()));
}

TEST(ParseStructure, MinusBeforeALiteralIsItsSignOnlyWhereNoOperandEnds) {
  const ExprPtr minus_one = constant<std::int32_t>(-1);
  const ExprPtr one = constant<std::int32_t>(1);
  expect_parses_to("-1i32", minus_one);
  expect_parses_to("-(1i32)", unary(UnaryOp::Neg, one));
  expect_parses_to("- 1i32", unary(UnaryOp::Neg, one));
  expect_parses_to("a-1i32", bin(BinaryOp::Sub, a(), one));
  expect_parses_to("a - -1i32", bin(BinaryOp::Sub, a(), minus_one));
  expect_parses_to("a*-1i32", bin(BinaryOp::Mul, a(), minus_one));
  expect_parses_to("(a)-1i32", bin(BinaryOp::Sub, a(), one));
  expect_parses_to("v[a]-1i32", bin(BinaryOp::Sub, load(v(), a()), one));
  expect_parses_to("i32(u)-1i32", bin(BinaryOp::Sub, cast(Type::i32(), u()), one));
  expect_parses_to("~-1i32", unary(UnaryOp::BitNot, minus_one));
  const ExprPtr inf = constant(std::numeric_limits<double>::infinity());
  expect_parses_to("-inf_f64", constant(-std::numeric_limits<double>::infinity()));
  expect_parses_to("x-inf_f64", bin(BinaryOp::Sub, x(), inf));
  expect_parses_to("-nan_f64", unary(UnaryOp::Neg, constant(Type::f64(), 0x7ff8000000000000)));
}

TEST(ParseStructure, PrimaryForms) {
  expect_parses_to("f64(a)", cast(Type::f64(), a()));
  expect_parses_to("u8*(v)", cast(Type::pointer_to(Scalar::U8), v()));
  expect_parses_to("null(f32*)", null_pointer(Type::pointer_to(Scalar::F32)));
  expect_parses_to("fma(x, x, x)", math(MathOp::Fma, {x(), x(), x()}));
  expect_parses_to("block_dim.z", gpu_index(GpuIndex::BlockDim, 2));
  expect_parses_to("atomic_cas(v, u, a, b)", atomic(AtomicOp::Cas, {v(), u(), a(), b()}));
  expect_parses_to("nan_f32(0x7fc00001)", constant(Type::f32(), 0x7fc00001));
  expect_parses_to("255u8", constant<std::uint8_t>(255));
}

TEST(PrintStructure, AddsOnlyTheParenthesesPrecedenceNeeds) {
  const auto printed = [](const ExprPtr& e) { return print(*e, eval_function(e)); };
  EXPECT_EQ(printed(bin(BinaryOp::Sub, a(), bin(BinaryOp::Sub, b(), c()))), "a - (b - c)");
  EXPECT_EQ(printed(bin(BinaryOp::Sub, bin(BinaryOp::Sub, a(), b()), c())), "a - b - c");
  EXPECT_EQ(printed(bin(BinaryOp::Mul, bin(BinaryOp::Add, a(), b()), c())), "(a + b) * c");
  EXPECT_EQ(printed(unary(UnaryOp::Neg, constant<std::int32_t>(5))), "-(5i32)");
  EXPECT_EQ(printed(unary(UnaryOp::Neg, constant<std::int32_t>(-5))), "-(-5i32)");
  EXPECT_EQ(printed(unary(UnaryOp::Neg, unary(UnaryOp::Neg, a()))), "--a");
  EXPECT_EQ(printed(select(p(), select(q(), a(), b()), c())), "p ? q ? a : b : c");
  EXPECT_EQ(printed(select(select(p(), q(), p()), a(), b())), "(p ? q : p) ? a : b");
  EXPECT_EQ(printed(load(cast(Type::pointer_to(Scalar::I32), bin(BinaryOp::Add, v(), a())), b())),
            "i32*(v + a)[b]");
  EXPECT_EQ(printed(load(bin(BinaryOp::Add, v(), a()), b())), "(v + a)[b]");
}

TEST(PrintStructure, FloatsUseTheShortestDecimalThatReadsBack) {
  const auto printed = [](const ExprPtr& e) { return print(*e, eval_function(e)); };
  EXPECT_EQ(printed(constant(0.1)), "0.1f64");
  EXPECT_EQ(printed(constant(0.1f)), "0.1f32");
  EXPECT_EQ(printed(constant(1.0)), "1.0f64");
  EXPECT_EQ(printed(constant(-0.0)), "-0.0f64");
  EXPECT_EQ(printed(constant(1e30)), "1e+30f64");
  EXPECT_EQ(printed(constant(std::numeric_limits<float>::infinity())), "inf_f32");
  EXPECT_EQ(printed(constant(-std::numeric_limits<double>::infinity())), "-inf_f64");
  EXPECT_EQ(printed(constant(Type::f64(), 0x7ff8000000000000)), "nan_f64");
  EXPECT_EQ(printed(constant(Type::f64(), 0x7ff8000000000001)), "nan_f64(0x7ff8000000000001)");
  EXPECT_EQ(printed(constant(Type::f32(), 0xffc00000)), "nan_f32(0xffc00000)");
  EXPECT_EQ(printed(constant(std::numeric_limits<std::int8_t>::min())), "-128i8");
  EXPECT_EQ(printed(constant(std::numeric_limits<std::uint64_t>::max())),
            "18446744073709551615u64");
}

// Every bit pattern of every scalar type prints to text that reads back to it.
TEST(LiteralRoundTrip, RandomBitPatternsKeepTheirBits) {
  std::mt19937_64 rng(12345);
  const Type types[] = {Type::bool_(), Type::i8(),  Type::i16(), Type::i32(),
                        Type::i64(),   Type::u8(),  Type::u16(), Type::u32(),
                        Type::u64(),   Type::f32(), Type::f64()};
  for (int i = 0; i < 4000; ++i) {
    const Type type = types[i % std::size(types)];
    std::uint64_t bits = rng();
    // Mix in the exponent extremes: zeros, subnormals, infinities and NaNs.
    if (i % 5 == 0) bits &= type == Type::f32() ? 0x807fffffu : 0x800fffffffffffffu;
    if (i % 7 == 0) bits |= type == Type::f32() ? 0x7f800000u : 0x7ff0000000000000u;
    const ExprPtr k = constant(type, bits);
    const std::string text = print(*k, eval_function(k));
    ASSERT_NO_THROW(parse_expr(text)) << text;
    const ExprPtr back = parse_expr(text);
    EXPECT_EQ(back->kind, ExprKind::Const) << text;
    EXPECT_EQ(back->type, type) << text;
    EXPECT_EQ(back->bits, k->bits) << text;
  }
}

// Random well-typed expression trees, built with the builder, print and parse
// back to the same tree: parentheses are placed exactly where needed.
class ExprGenerator {
 public:
  explicit ExprGenerator(std::uint32_t seed) : rng_(seed) {}

  ExprPtr make(Type type, int depth) {
    if (depth == 0 || pick(4) == 0) return leaf(type);
    if (type == Type::bool_()) return boolean(depth - 1);
    if (type == Type::f64()) return real(depth - 1);
    if (type.is_pointer()) return pointer(depth - 1);
    return integer(type, depth - 1);
  }

 private:
  unsigned pick(unsigned n) { return std::uniform_int_distribution<unsigned>(0, n - 1)(rng_); }

  ExprPtr leaf(Type type) {
    const bool use_var = pick(2) == 0;
    if (type == Type::i32()) return use_var ? var(pick(3), type) : constant(type, rng_());
    if (type == Type::bool_()) return use_var ? var(3 + pick(2), type) : constant(type, rng_());
    if (type == Type::f64()) return use_var ? x() : constant(type, rng_());
    if (type == Type::u8()) return use_var ? u() : constant(type, rng_());
    return use_var ? v() : null_pointer(type);
  }

  ExprPtr integer(Type t, int d) {
    switch (pick(7)) {
      case 0:
        return unary(pick(2) ? UnaryOp::Neg : UnaryOp::BitNot, make(t, d));
      case 1:
        return binary(static_cast<BinaryOp>(pick(10)), make(t, d), make(t, d));  // Add..Shr
      case 2:
        return select(make(Type::bool_(), d), make(t, d), make(t, d));
      case 3:
        return cast(t, make(pick(2) ? Type::f64() : Type::u8(), d));
      case 4:
        return t == Type::i32() ? load(make(v()->type, d), make(Type::u8(), d))
                                : cast(t, make(Type::i32(), d));
      case 5:
        return math(pick(2) ? MathOp::Min : MathOp::Max, {make(t, d), make(t, d)});
      default:
        return unary(UnaryOp::Neg, leaf(t));
    }
  }

  ExprPtr boolean(int d) {
    const Type operand = pick(2) ? Type::i32() : Type::f64();
    switch (pick(6)) {
      case 0:
        return unary(UnaryOp::Not, make(Type::bool_(), d));
      case 1:
        return binary(pick(2) ? BinaryOp::And : BinaryOp::Or, make(Type::bool_(), d),
                      make(Type::bool_(), d));
      case 2:
        return binary(static_cast<BinaryOp>(static_cast<unsigned>(BinaryOp::Eq) + pick(6)),
                      make(operand, d), make(operand, d));
      case 3:
        return binary(static_cast<BinaryOp>(static_cast<unsigned>(BinaryOp::BitAnd) + pick(3)),
                      make(Type::bool_(), d), make(Type::bool_(), d));
      case 4:
        return select(make(Type::bool_(), d), make(Type::bool_(), d), make(Type::bool_(), d));
      default:
        return cast(Type::bool_(), make(operand, d));
    }
  }

  ExprPtr real(int d) {
    const Type f = Type::f64();
    switch (pick(6)) {
      case 0:
        return unary(UnaryOp::Neg, make(f, d));
      case 1:
        return binary(static_cast<BinaryOp>(pick(5)), make(f, d), make(f, d));  // Add..Rem
      case 2:
        return math(static_cast<MathOp>(pick(5)), {make(f, d)});
      case 3:
        return math(static_cast<MathOp>(5 + pick(3)), {make(f, d), make(f, d)});
      case 4:
        return math(MathOp::Fma, {make(f, d), make(f, d), make(f, d)});
      default:
        return select(make(Type::bool_(), d), make(f, d), cast(f, make(Type::i32(), d)));
    }
  }

  ExprPtr pointer(int d) {
    const Type t = v()->type;
    switch (pick(3)) {
      case 0:
        return binary(pick(2) ? BinaryOp::Add : BinaryOp::Sub, make(t, d), make(Type::i32(), d));
      case 1:
        return select(make(Type::bool_(), d), make(t, d), make(t, d));
      default:
        return cast(t, cast(Type::pointer_to(Scalar::U8), make(t, d)));
    }
  }

  std::mt19937 rng_;
};

TEST(ExprRoundTrip, RandomTreesReparseToTheSameTree) {
  ExprGenerator gen(2024);
  const Type roots[] = {Type::i32(), Type::bool_(), Type::f64(), Type::u8(), v()->type};
  for (int i = 0; i < 1500; ++i) {
    Module m;
    m.functions.push_back(eval_function(gen.make(roots[i % std::size(roots)], 6)));
    const std::string text = print(m);
    Module back;
    ASSERT_NO_THROW(back = parse_module(text)) << text;
    EXPECT_TRUE(back == m) << text;
    EXPECT_EQ(print(back), text);
  }
}

// A module exercising every statement and expression kind, built with the
// builder in textual order, so that the parser's variable numbering matches.
Module builder_module() {
  Module m;
  const ExternRef log_value = m.declare_extern({"log_value", Type::void_(), {Type::f64()}});
  const ExternRef hypot =
      m.declare_extern({"hypot", Type::f64(), {Type::f64(), Type::f64()}, Effect::Pure});
  const ExternRef peek =
      m.declare_extern({"peek", Type::i32(), {Type::pointer_to(Scalar::I32)}, Effect::ReadOnly});

  {
    FunctionBuilder fb("loops", Type::f64());
    const VarId n = fb.param("n", Type::i32());
    const VarId data = fb.param("data", Type::pointer_to(Scalar::I32));
    const VarId acc = fb.declare("acc", Type::f64(), constant(0.0));
    VarId i;
    Block init = fb.capture([&] { i = fb.declare("i", Type::i32(), constant<std::int32_t>(0)); });
    ExprPtr cond = binary(BinaryOp::Lt, fb.read(i), fb.read(n));
    Block step = fb.capture(
        [&] { fb.assign(i, binary(BinaryOp::Add, fb.read(i), constant<std::int32_t>(1))); });
    Block body = fb.capture([&] {
      const VarId item = fb.declare("item", Type::i32(), load(fb.read(data), fb.read(i)));
      fb.if_(
          binary(BinaryOp::Lt, fb.read(item), constant<std::int32_t>(0)), [&] { fb.continue_(); },
          [&] {
            fb.if_(binary(BinaryOp::Eq, fb.read(item), constant<std::int32_t>(99)),
                   [&] { fb.break_(); });
          });
      fb.assign(acc, binary(BinaryOp::Add, fb.read(acc), cast(Type::f64(), fb.read(item))));
    });
    fb.emit(Stmt::for_(std::move(init), std::move(cond), std::move(step), std::move(body)));
    fb.while_(binary(BinaryOp::Gt, fb.read(acc), constant(100.0)), [&] {
      fb.assign(acc, math(MathOp::Sqrt, {fb.read(acc)}));
      fb.store(fb.read(data), constant<std::int64_t>(0), call(peek, {fb.read(data)}));
    });
    fb.eval(call(log_value, {call(hypot, {fb.read(acc), constant(-0.0)})}));
    fb.return_(select(binary(BinaryOp::And, constant(true), constant(false)), fb.read(acc),
                      unary(UnaryOp::Neg, constant(2.5))));
    m.functions.push_back(std::move(fb).finish());
  }
  {
    FunctionBuilder fb("reduce", Type::void_(), /*kernel=*/true);
    const VarId out = fb.param("out", Type::pointer_to(Scalar::U32));
    const VarId tile = fb.shared_array("tile", Scalar::U32, 64);
    const VarId t = fb.declare("t", Type::i32(), gpu_index(GpuIndex::ThreadIdx, 0));
    fb.store(fb.read(tile), fb.read(t), cast(Type::u32(), gpu_index(GpuIndex::BlockIdx, 1)));
    fb.barrier();
    fb.if_(binary(BinaryOp::Eq, fb.read(t), constant<std::int32_t>(0)), [&] {
      fb.eval(atomic(AtomicOp::Add, {fb.read(out), constant<std::int32_t>(0),
                                     load(fb.read(tile), constant<std::int32_t>(63))}));
      fb.return_();
    });
    fb.declare("unused", Type::u64());
    m.functions.push_back(std::move(fb).finish());
  }
  return m;
}

TEST(ModuleRoundTrip, BuilderModulesReparseStructurally) {
  const Module m = builder_module();
  const std::string text = print(m);
  const Module back = parse_module(text);
  EXPECT_TRUE(back == m) << text;
  EXPECT_EQ(print(back), text);
  EXPECT_EQ(back.functions.at(0).vars.size(), 5u);  // n, data, acc, i, item
  EXPECT_EQ(back.functions.at(1).vars.at(1).kind, VarKind::Shared);
  EXPECT_EQ(back.functions.at(1).vars.at(1).shared_count, 64u);
}

TEST(ModuleRoundTrip, ModuleLayoutIsExternsThenFunctionsSeparatedByBlankLines) {
  const std::string text = print(builder_module());
  EXPECT_EQ(text.substr(0, text.find("\n\n")),
            "extern fn log_value(f64) -> void effect;\n"
            "extern fn hypot(f64, f64) -> f64 pure;\n"
            "extern fn peek(i32*) -> i32 readonly;");
  EXPECT_NE(text.find("}\n\nkernel fn reduce(out: u32*) -> void {\n  shared tile: u32[64];\n"),
            std::string::npos);
  EXPECT_EQ(text.back(), '\n');
}

TEST(ModuleRoundTrip, VariablesAreNumberedInTextualOrder) {
  const Module m = parse_module(
      "fn f(n: i32) -> i32 {\n"
      "  var s: i32 = 0i32;\n"
      "  for (var i: i32 = 0i32; i < n; i = i + 1i32) {\n"
      "    var sq: i32 = i * i;\n"
      "    s = s + sq;\n"
      "  }\n"
      "  var last: i32 = s;\n"
      "  return last;\n"
      "}\n");
  const Function& f = m.functions.at(0);
  ASSERT_EQ(f.vars.size(), 5u);
  EXPECT_EQ(f.num_params, 1u);
  const char* names[] = {"n", "s", "i", "sq", "last"};
  for (std::size_t k = 0; k < 5; ++k) EXPECT_EQ(f.vars[k].name, names[k]);
  EXPECT_EQ(f.vars[0].kind, VarKind::Param);
  EXPECT_EQ(f.vars[2].kind, VarKind::Local);
  ASSERT_EQ(f.body.at(1).kind, StmtKind::For);
  EXPECT_EQ(f.body[1].init.at(0).var, VarId{2});
  EXPECT_EQ(f.body[1].body.at(0).var, VarId{3});
  EXPECT_EQ(f.body.at(2).expr->var, VarId{1});
}

TEST(ModuleRoundTrip, IdenticalExternRedeclarationsMerge) {
  const Module m = parse_module(
      "extern fn g(i32) -> i32 pure;\nextern fn g(i32) -> i32 pure;\n"
      "fn f() -> i32 {\n  return @g(1i32);\n}\n");
  EXPECT_EQ(m.externs.size(), 1u);
  EXPECT_EQ(m.functions.at(0).body.at(0).expr->callee, m.externs[0]);
}

// The same program in other layouts: comments, tabs, CRLF, one line, spare
// parentheses, and the shorthand that the printer never writes.
TEST(FormattingIndependence, LayoutCommentsAndParenthesesDoNotMatter) {
  const std::string canonical =
      "extern fn log_value(f64) -> void effect;\n"
      "\n"
      "fn f(p: i32*, n: i32, x: f64) -> f64 {\n"
      "  var s: f64 = -0.0f64;\n"
      "  for (var i: i32 = 0i32; i < n; i = i + 1i32) {\n"
      "    if (p[i] > 0i32 && !(x < 0.0f64)) {\n"
      "      s = s + f64(p[i]) * -(2.0f64);\n"
      "    } else if (p[i] == -1i32) {\n"
      "      continue;\n"
      "    } else {\n"
      "      p[i] = 0i32 - (n - 1i32);\n"
      "    }\n"
      "  }\n"
      "  @log_value(s);\n"
      "  return s > 1.0f64 ? s : x;\n"
      "}\n";
  const std::string variants[] = {
      // Comments, blank lines, tabs, CRLF line ends, odd spacing.
      "// a comment before everything\r\n"
      "extern   fn log_value ( f64 )->void effect ; // trailing\r\n"
      "\r\n\r\n"
      "fn f(p:i32*,n:i32,x:f64)->f64{\r\n"
      "\tvar s:f64=-0.0f64;// no spaces\r\n"
      "\tfor(var i:i32=0i32;i<n;i=i+1i32){\r\n"
      "\t\tif(p[i]>0i32&&!(x<0.0f64)){s=s+f64(p[i])*-(2.0f64);}\r\n"
      "\t\telse if(p[i]==-1i32){continue;}\r\n"
      "\t\telse{p[i]=0i32-(n-1i32);}\r\n"
      "\t}\r\n"
      "\t@log_value(s);return s>1.0f64?s:x;}",
      // Redundant parentheses, and `else { if ... }` instead of `else if`.
      "extern fn log_value(f64) -> void effect;\n"
      "fn f(p: i32*, n: i32, x: f64) -> f64 {\n"
      "  var s: f64 = (-0.0f64);\n"
      "  for (var i: i32 = (0i32); (i < n); i = (i + 1i32)) {\n"
      "    if (((p[i]) > 0i32) && (!((x < 0.0f64)))) {\n"
      "      s = (s + (f64((p)[i]) * (-((2.0f64)))));\n"
      "    } else {\n"
      "      if (p[(i)] == (-1i32)) {\n"
      "        continue;\n"
      "      } else {\n"
      "        (p)[i] = ((0i32) - ((n - 1i32)));\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "  (@log_value((s)));\n"
      "  return ((s > 1.0f64) ? (s) : (x));\n"
      "}\n",
  };
  const Module expected = parse_module(canonical);
  EXPECT_EQ(print(expected), canonical);
  for (const std::string& text : variants) {
    const Module m = parse_module(text);
    EXPECT_TRUE(m == expected) << text;
    EXPECT_EQ(print(m), canonical);
  }
}

TEST(PrintInvalid, MalformedIrPrintsPlaceholdersInsteadOfCrashing) {
  Function f;
  f.name = "broken";
  f.ret = Type::void_();
  f.body.push_back(Stmt::assign(VarId{7}, nullptr));
  f.body.push_back(Stmt::for_({Stmt::break_()}, constant(true), {}, {}));
  EXPECT_EQ(print(f),
            "fn broken() -> void {\n"
            "  <var 7> = <null>;\n"
            "  for (<break>; true;) {\n"
            "  }\n"
            "}\n");
  EXPECT_THROW(parse_module(print(f)), jit::parse_error);
}

}  // namespace
}  // namespace augur::ir
