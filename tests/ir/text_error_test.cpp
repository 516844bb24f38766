// Errors of the IR parser: every bad input gives a jit::parse_error (or, for
// ill-typed expressions, a jit::verify_error) naming the line, the column and
// what was wrong; never a crash or another exception type.
#include <gtest/gtest.h>

#include <typeinfo>

#include "jit/error.h"
#include "runtime/ir/parser.h"

namespace augur::ir {
namespace {

struct BadInput {
  std::string name;
  std::string text;
  std::string message;
  int line;
  int column;
};

std::ostream& operator<<(std::ostream& out, const BadInput& c) {
  return out << c.name;
}

// Parses `text`, which must fail with exactly an `Error`, and checks the report.
template <class Error>
void expect_failure(const BadInput& c) {
  try {
    parse_module(c.text, "bad.ir");
    ADD_FAILURE() << "parsed without error";
  } catch (const jit::error& e) {
    EXPECT_EQ(typeid(e), typeid(Error)) << e.what();
    EXPECT_EQ(e.message(), c.message);
    EXPECT_EQ(e.where().file, "bad.ir");
    EXPECT_EQ(e.where().line, c.line);
    EXPECT_EQ(e.where().column, c.column);
    EXPECT_EQ(std::string(e.what()), "bad.ir:" + std::to_string(c.line) + ":" +
                                         std::to_string(c.column) + ": " + c.message);
  }
}

std::string test_name(const testing::TestParamInfo<BadInput>& info) {
  return info.param.name;
}

class ParseError : public testing::TestWithParam<BadInput> {};
TEST_P(ParseError, ReportsWhatAndWhere) {
  expect_failure<jit::parse_error>(GetParam());
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Syntax, ParseError, testing::Values(
  BadInput{"MissingSemicolonAfterReturn",
    "fn f() -> i32 {\n  return 1i32\n}\n",
    "expected ';' after return value, found '}'", 3, 1},
  BadInput{"MissingSemicolonAfterAssignment",
    "fn f(x: i32) -> void {\n  x = x + 1i32\n  x = 2i32;\n}\n",
    "expected ';' after assignment, found 'x'", 3, 3},
  BadInput{"MissingBraceAfterIf",
    "fn f(c: bool) -> void {\n  if (c) return;\n}\n",
    "expected '{' after if condition, found 'return'", 2, 10},
  BadInput{"UnclosedBlockAtEnd",
    "fn f() -> void {\n  var x: i32;\n",
    "expected '}' to close the block opened at 1:16, found end of input", 3, 1},
  BadInput{"UnclosedBlockBeforeNextFunction",
    "fn f() -> void {\n  if (true) {\n}\nfn g() -> void {\n}\n",
    "expected '}' to close the block opened at 1:16, found 'fn'", 4, 1},
  BadInput{"GarbageAtTopLevel",
    "fn f() -> void {\n}\nx = 1i32;\n",
    "expected 'fn', 'kernel fn' or 'extern fn', found 'x'", 3, 1},
  BadInput{"MissingExpression",
    "fn f() -> i32 {\n  return * 2i32;\n}\n",
    "expected expression, found '*'", 2, 10},
  BadInput{"EmptyStatement",
    "fn f() -> void {\n  ;\n}\n",
    "expected a statement, found ';'", 2, 3},
  BadInput{"ArgumentListNotClosed",
    "fn f(x: f64) -> f64 {\n  return pow(x x);\n}\n",
    "expected ',' or ')' after argument, found 'x'", 2, 16},
  BadInput{"BadAssignmentTarget",
    "fn f(x: i32) -> void {\n  x + 1i32 = 2i32;\n}\n",
    "the left side of '=' must be a variable or an element p[i]", 2, 3},
  BadInput{"UnknownType",
    "fn f(x: int) -> void {\n}\n",
    "expected a type after ':', found 'int'", 1, 9},
  BadInput{"PointerToVoid",
    "fn f(p: void*) -> void {\n}\n",
    "there are no pointers to void", 1, 13},
  BadInput{"MissingEffect",
    "extern fn g(i32) -> i32;\n",
    "expected 'pure', 'readonly' or 'effect' after the extern's return type, found ';'", 1, 24},
  BadInput{"BadGpuAxis",
    "kernel fn k() -> void {\n  var i: i32 = thread_idx.w;\n}\n",
    "expected thread_idx.x, .y or .z, found 'thread_idx.w'", 2, 16},
  BadInput{"UnexpectedCharacter",
    "fn f() -> void {\n  var x: i32 = 1i32 # 2i32;\n}\n",
    "unexpected character '#'", 2, 21},
  BadInput{"DigitAfterDot",
    "fn f() -> f64 {\n  return 1.f64;\n}\n",
    "expected a digit after '.' in a number", 2, 12}),
  test_name);

INSTANTIATE_TEST_SUITE_P(LoopExits, ParseError, testing::Values(
  BadInput{"BreakOfNoLoop",
    "fn f() -> void {\n  while (true) {\n    break 0;\n  }\n}\n",
    "expected the number of loops to leave (1 to 4294967295, no suffix), found '0'", 3, 11},
  BadInput{"ContinueCountWithSuffix",
    "fn f() -> void {\n  while (true) {\n    continue 2i32;\n  }\n}\n",
    "expected the number of loops to leave (1 to 4294967295, no suffix), found '2i32'", 3, 14},
  BadInput{"BreakCountNotANumber",
    "fn f(x: i32) -> void {\n  while (true) {\n    break x;\n  }\n}\n",
    "expected ';' after 'break', found 'x'", 3, 11}),
  test_name);

INSTANTIATE_TEST_SUITE_P(Names, ParseError, testing::Values(
  BadInput{"UnknownVariable",
    "fn f() -> i32 {\n  return y;\n}\n",
    "unknown variable 'y'", 2, 10},
  BadInput{"VariableUsedInItsOwnInitializer",
    "fn f() -> void {\n  var x: i32 = x;\n}\n",
    "unknown variable 'x'", 2, 16},
  BadInput{"DuplicateVariable",
    "fn f(x: i32) -> void {\n  var x: i32;\n}\n",
    "variable 'x' is already declared at 1:6", 2, 7},
  BadInput{"DuplicateVariableInSiblingBlocks",
    "fn f(c: bool) -> void {\n  if (c) {\n    var t: i32;\n  } else {\n    var t: i32;\n  }\n}\n",
    "variable 't' is already declared at 3:9", 5, 9},
  BadInput{"ForVariableOutOfScope",
    "fn f() -> i32 {\n  for (var i: i32 = 0i32; i < 3i32; i = i + 1i32) {\n  }\n  return i;\n}\n",
    "variable 'i' is not in scope here (declared at 2:12)", 4, 10},
  BadInput{"ReservedVariableName",
    "fn f() -> void {\n  var min: i32;\n}\n",
    "'min' is reserved and cannot name a variable", 2, 7},
  BadInput{"ReservedGpuPrefix",
    "fn f(thread_idx.q: i32) -> void {\n}\n",
    "'thread_idx.q' is reserved and cannot name a variable", 1, 6},
  BadInput{"UnknownExtern",
    "fn f() -> void {\n  @log_value(1.0f64);\n}\n",
    "unknown extern 'log_value' (externs are declared with 'extern fn' before their use)", 2, 4},
  BadInput{"CallWithoutAt",
    "extern fn g(i32) -> i32 pure;\nfn f() -> i32 {\n  return g(1i32);\n}\n",
    "unknown function 'g' (externs are called as @g(...))", 3, 10},
  BadInput{"ConflictingExterns",
    "extern fn g(i32) -> i32 pure;\nextern fn g(i64) -> i32 pure;\n",
    "extern 'g' is already declared with another signature", 2, 11},
  BadInput{"DuplicateFunction",
    "fn f() -> void {\n}\n\nfn f() -> void {\n}\n",
    "function 'f' is already defined", 4, 4},
  BadInput{"SharedOutsideKernel",
    "fn f() -> void {\n  shared t: f32[4];\n}\n",
    "shared arrays are only allowed in kernels", 2, 3},
  BadInput{"SharedArrayWithoutSize",
    "kernel fn k() -> void {\n  shared t: f32[0];\n}\n",
    "expected the number of elements (1 to 4294967295, no suffix), found '0'", 2, 17},
  BadInput{"SharedInForHeader",
    "kernel fn k() -> void {\n  for (shared t: f32[4]; true;) {\n  }\n}\n",
    "expected a for initializer, found 'shared'", 2, 8}),
  test_name);

INSTANTIATE_TEST_SUITE_P(Literals, ParseError, testing::Values(
  BadInput{"I8TooLarge",
    "fn f() -> i8 {\n  return 128i8;\n}\n",
    "integer literal '128i8' is out of range for i8", 2, 10},
  BadInput{"I8TooSmall",
    "fn f() -> i8 {\n  return -129i8;\n}\n",
    "integer literal '-129i8' is out of range for i8", 2, 10},
  BadInput{"I64TooLarge",
    "fn f() -> i64 {\n  return 9223372036854775808i64;\n}\n",
    "integer literal '9223372036854775808i64' is out of range for i64", 2, 10},
  BadInput{"U64Overflow",
    "fn f() -> u64 {\n  return 18446744073709551616u64;\n}\n",
    "integer literal '18446744073709551616u64' is out of range for u64", 2, 10},
  BadInput{"NegativeUnsigned",
    "fn f() -> u32 {\n  return -1u32;\n}\n",
    "integer literal '-1u32' is out of range for u32", 2, 10},
  BadInput{"MissingSuffix",
    "fn f() -> i32 {\n  return 42;\n}\n",
    "literal '42' needs a type suffix, as in 42i32 or 1.0f64", 2, 10},
  BadInput{"FloatWithoutPoint",
    "fn f() -> f32 {\n  return 1f32;\n}\n",
    "float literal '1f32' needs a '.' or an exponent, as in 1.0f32", 2, 10},
  BadInput{"FloatWithIntegerSuffix",
    "fn f() -> i32 {\n  return 1.5i32;\n}\n",
    "float literal '1.5i32' needs the suffix f32 or f64", 2, 10},
  BadInput{"BadSuffix",
    "fn f() -> i32 {\n  return 7x;\n}\n",
    "invalid suffix 'x' on literal '7x'", 2, 10},
  BadInput{"FloatOutOfRange",
    "fn f() -> f32 {\n  return 1e+39f32;\n}\n",
    "float literal '1e+39f32' is out of range for f32", 2, 10},
  BadInput{"NanPayloadNotANan",
    "fn f() -> f32 {\n  return nan_f32(0x3f800000);\n}\n",
    "nan_f32(...) needs the bits of an f32 NaN in hex, as in nan_f32(0x7fc00001), got "
    "'0x3f800000'", 2, 18},
  BadInput{"HexOutsideNan",
    "fn f() -> i32 {\n  return 0x10;\n}\n",
    "hex numbers only give the bits of a NaN, as in nan_f64(0x7ff8000000000001)", 2, 10}),
  test_name);

INSTANTIATE_TEST_SUITE_P(Bytes, ParseError, testing::Values(
  BadInput{"InvalidUtf8InComment",
    "fn f() -> void {\n}\n// caf\xc3\x28\n",
    "invalid UTF-8 in comment", 3, 7},
  BadInput{"OverlongUtf8InComment",
    "// \xc0\xaf\n",
    "invalid UTF-8 in comment", 1, 4},
  BadInput{"ControlCharacter",
    "fn f() -> void {\x01}\n",
    "unexpected control character U+0001", 1, 17},
  BadInput{"NulByte",
    std::string("fn f() -> void {\n  ") + '\0' + "\n}\n",
    "unexpected control character U+0000", 2, 3},
  BadInput{"ControlCharacterInComment",
    "// bell \x07\nfn f() -> void {\n}\n",
    "unexpected control character U+0007", 1, 9},
  BadInput{"NonAsciiOutsideComment",
    "fn caf\xc3\xa9() -> void {\n}\n",
    "unexpected character U+00E9 outside a comment", 1, 7},
  BadInput{"InvalidUtf8OutsideComment",
    "fn f() -> void {\n  \xff\n}\n",
    "invalid UTF-8", 2, 3}),
  test_name);
// clang-format on

class TypeError : public testing::TestWithParam<BadInput> {};
TEST_P(TypeError, ReportsTheBuilderMessageWithItsPosition) {
  expect_failure<jit::verify_error>(GetParam());
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Expressions, TypeError, testing::Values(
  BadInput{"MixedOperandTypes",
    "fn f(x: i32) -> i32 {\n  return x + 1i64;\n}\n",
    "operator '+' needs operands of one type, got i32 and i64", 2, 12},
  BadInput{"NotOnInteger",
    "fn f(x: i32) -> bool {\n  return !x;\n}\n",
    "operator '!' needs a bool operand, got i32", 2, 10},
  BadInput{"IndexingANonPointer",
    "fn f(x: i32) -> i32 {\n  return x[0i32];\n}\n",
    "indexing needs a pointer, got i32", 2, 11},
  BadInput{"ExternArgumentType",
    "extern fn g(f64) -> f64 pure;\nfn f(x: f32) -> f64 {\n  return @g(x);\n}\n",
    "argument 1 of 'g' is f32, expected f64", 3, 10},
  BadInput{"MathArity",
    "fn f(x: f64) -> f64 {\n  return fma(x, x);\n}\n",
    "fma takes 3 operands, got 2", 2, 10},
  BadInput{"SelectBranches",
    "fn f(c: bool) -> i32 {\n  return c ? 1i32 : 2u32;\n}\n",
    "operator '?:' needs operands of one type, got i32 and u32", 2, 12},
  BadInput{"NullOfScalar",
    "fn f() -> bool {\n  return null(i32) == null(i32);\n}\n",
    "null needs a pointer type, got i32", 2, 10},
  BadInput{"BadCast",
    "fn f(p: f32*) -> i32 {\n  return i32(p);\n}\n",
    "cannot cast f32* to i32", 2, 10}),
  test_name);
// clang-format on

// Nesting past the fixed bound (256 levels of blocks, parentheses, prefix
// operators and `else if`; expression trees 1000 high) is an error, not a stack
// overflow.
TEST(ParseErrorDepth, DeepParenthesesAreRejected) {
  const int n = 100000;
  const std::string text =
      "fn f() -> i32 {\n  return " + std::string(n, '(') + "1i32" + std::string(n, ')') + ";\n}\n";
  // The body is nesting level 1 and the return value level 2, so the 255th '('
  // would open level 257; the error points at the token after it.
  expect_failure<jit::parse_error>({"", text, "nesting deeper than 256 levels", 2, 10 + 255});
}

TEST(ParseErrorDepth, DeepBlocksAreRejected) {
  std::string text = "fn f() -> void {\n";
  for (int i = 0; i < 5000; ++i) text += "if (true) {\n";
  // The 256th `if` (line 257) is inside the body and 255 `if` blocks, 256
  // levels, so its condition would open level 257.
  expect_failure<jit::parse_error>({"", text, "nesting deeper than 256 levels", 257, 5});
}

TEST(ParseErrorDepth, LongElseIfChainsAreRejected) {
  std::string text = "fn f(x: i32) -> void {\n  if (x == 0i32) {\n  }";
  for (int i = 1; i < 5000; ++i) text += " else if (x == " + std::to_string(i) + "i32) {\n  }";
  text += "\n}\n";
  // Each `else if` nests one level deeper: the condition of the 255th (line
  // 257) would be at level 257.
  expect_failure<jit::parse_error>({"", text, "nesting deeper than 256 levels", 257, 14});
}

TEST(ParseErrorDepth, LongPrefixChainsAreRejected) {
  const std::string text = "fn f(x: i32) -> i32 {\n  return " + std::string(50000, '-') + "x;\n}\n";
  // The 255th '-' would open level 257.
  expect_failure<jit::parse_error>({"", text, "nesting deeper than 256 levels", 2, 10 + 254});
}

TEST(ParseErrorDepth, TallOperatorChainsAreRejected) {
  // No recursion in the parser, but the tree would be too tall for its users.
  std::string text = "fn f(x: i32) -> i32 {\n  return x";
  for (int i = 0; i < 5000; ++i) text += " + x";
  text += ";\n}\n";
  // The 1000th '+' builds a node of height 1001 ("return x" ends at column 10).
  expect_failure<jit::parse_error>(
      {"", text, "expression nested deeper than 1000 levels", 2, 10 + 4 * 999 + 2});
}

TEST(ParseErrorDepth, NestingJustBelowTheBoundsParses) {
  const int n = 250;
  std::string text =
      "fn f(x: i32) -> i32 {\n  return " + std::string(n, '(') + "x" + std::string(n, ')');
  for (int i = 0; i < 998; ++i) text += " + x";
  text += ";\n}\n";
  EXPECT_NO_THROW(parse_module(text));
}

}  // namespace
}  // namespace augur::ir
