#include "runtime/ir/verifier.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/ir/builder.h"
#include "runtime/ir/parser.h"

namespace augur::ir {
namespace {

ExprPtr i32c(std::int32_t v) {
  return constant(v);
}
ExprPtr boolc(bool v) {
  return constant(v);
}

// An expression node built without the builder's checks, to feed the verifier
// the ill-formed IR a buggy stage could produce.
ExprPtr raw(ExprKind kind, Type type, std::vector<ExprPtr> args = {}, std::uint8_t op = 0) {
  Expr e;
  e.kind = kind;
  e.type = type;
  e.op = op;
  e.args = std::move(args);
  return std::make_shared<const Expr>(std::move(e));
}

Module module_of(Function fn, std::vector<ExternRef> externs = {}) {
  Module m;
  m.externs = std::move(externs);
  m.functions.push_back(std::move(fn));
  return m;
}

std::vector<std::string> problems(const Module& m) {
  std::vector<std::string> out;
  for (const jit::verify_error& e : check(m)) out.push_back(e.what());
  return out;
}

// The module's problems are exactly `expected`, in order, and verify() throws the first.
void expect_problems(const Module& m, const std::vector<std::string>& expected) {
  EXPECT_THAT(problems(m), ::testing::ElementsAreArray(expected));
  try {
    verify(m);
    ADD_FAILURE() << "verify() accepted the module";
  } catch (const jit::verify_error& e) {
    EXPECT_EQ(e.what(), expected.front());
  }
}

void expect_valid(const Module& m) {
  EXPECT_THAT(problems(m), ::testing::IsEmpty());
  EXPECT_NO_THROW(verify(m));
}

// ---------------------------------------------------------------- rejections: expressions

TEST(VerifierRejects, OperandsOfDifferentTypes) {
  FunctionBuilder b("f", Type::i32());
  b.return_(raw(ExprKind::Binary, Type::i32(), {i32c(1), constant<std::int64_t>(2)},
                static_cast<std::uint8_t>(BinaryOp::Add)));
  expect_problems(module_of(std::move(b).finish()),
                  {"function 'f' at body[0]: operator '+' needs operands of one type, got i32 "
                   "and i64"});
}

TEST(VerifierRejects, ResultTypeInconsistentWithOperands) {
  FunctionBuilder b("f", Type::i64());
  b.return_(raw(ExprKind::Binary, Type::i64(), {i32c(1), i32c(2)},
                static_cast<std::uint8_t>(BinaryOp::Mul)));
  expect_problems(
      module_of(std::move(b).finish()),
      {"function 'f' at body[0]: operator '*' is marked i64 but its operands make it i32"});
}

TEST(VerifierRejects, ComparisonNotBool) {
  FunctionBuilder b("f", Type::i32());
  VarId x = b.param("x", Type::i32());
  b.if_(raw(ExprKind::Binary, Type::i32(), {b.read(x), i32c(0)},
            static_cast<std::uint8_t>(BinaryOp::Lt)),
        [&] { b.return_(i32c(1)); });
  b.return_(i32c(0));
  expect_problems(module_of(std::move(b).finish()),
                  {"function 'f' at body[0]: operator '<' is marked i32 but its operands make it "
                   "bool"});
}

TEST(VerifierRejects, UnknownOperatorAndWrongOperandCount) {
  FunctionBuilder b("f", Type::i32());
  b.return_(raw(ExprKind::Binary, Type::i32(), {i32c(1), i32c(2)}, 99));
  b.eval(raw(ExprKind::Unary, Type::i32(), {i32c(1), i32c(2)}));
  Function f = std::move(b).finish();
  expect_problems(module_of(std::move(f)),
                  {"function 'f' at body[0]: operator '?' has an unknown operator 99",
                   "function 'f' at body[1]: operator '-' has 2 operands, not 1"});
}

TEST(VerifierRejects, ConstantsOutsideTheirType) {
  FunctionBuilder b("f", Type::void_());
  Expr wide;
  wide.kind = ExprKind::Const;
  wide.type = Type::u8();
  wide.bits = 0x1ff;
  b.declare("w", Type::u8(), std::make_shared<const Expr>(wide));
  Expr address = wide;
  address.type = Type::pointer_to(Scalar::F32);
  address.bits = 0x1000;
  b.declare("q", Type::pointer_to(Scalar::F32), std::make_shared<const Expr>(address));
  expect_problems(module_of(std::move(b).finish()),
                  {"function 'f' at body[0]: constant of type u8 has bits outside its width",
                   "function 'f' at body[1]: the only pointer constant is null"});
}

TEST(VerifierRejects, ReadMarkedWithAnotherType) {
  FunctionBuilder b("f", Type::i64());
  VarId x = b.param("x", Type::i32());
  b.return_(read(x, Type::i64()));
  expect_problems(module_of(std::move(b).finish()),
                  {"function 'f' at body[0]: read of variable 'x' is marked i64 but the variable "
                   "is i32"});
}

TEST(VerifierRejects, VariableOutOfRange) {
  FunctionBuilder b("f", Type::i32());
  b.param("x", Type::i32());
  b.return_(read(VarId{5}, Type::i32()));
  expect_problems(module_of(std::move(b).finish()),
                  {"function 'f' at body[0]: variable #5 is out of range (1 variables)"});
}

TEST(VerifierRejects, MissingExpressions) {
  FunctionBuilder b("f", Type::i32());
  VarId p = b.param("p", Type::pointer_to(Scalar::I32));
  b.emit(Stmt::if_(nullptr, {}));
  b.emit(Stmt::store(b.read(p), nullptr, i32c(1)));
  b.emit(Stmt::eval(nullptr));
  b.return_(raw(ExprKind::Unary, Type::i32(), {nullptr}));
  expect_problems(module_of(std::move(b).finish()),
                  {"function 'f' at body[0]: missing if condition",
                   "function 'f' at body[1]: missing store index",
                   "function 'f' at body[2]: missing expression statement",
                   "function 'f' at body[3]: missing operand of operator '-'"});
}

// ---------------------------------------------------------------- rejections: variables

TEST(VerifierRejects, UseBeforeDeclaration) {
  FunctionBuilder b("f", Type::i32());
  VarId x = b.new_local("x", Type::i32());
  b.if_(boolc(true), [&] { b.return_(b.read(x)); });
  b.emit(Stmt::decl(x, i32c(1)));
  b.return_(b.read(x));
  expect_problems(module_of(std::move(b).finish()),
                  {"function 'f' at body[0].then[0]: variable 'x' used before its declaration"});
}

TEST(VerifierRejects, InitializerReadsTheVariableItDeclares) {
  FunctionBuilder b("f", Type::i32());
  VarId x = b.new_local("x", Type::i32());
  b.emit(Stmt::decl(x, binary(BinaryOp::Add, b.read(x), i32c(1))));
  b.return_(b.read(x));
  expect_problems(module_of(std::move(b).finish()),
                  {"function 'f' at body[0]: variable 'x' used before its declaration"});
}

TEST(VerifierRejects, UseOutsideScope) {
  FunctionBuilder b("f", Type::i32());
  VarId c = b.param("c", Type::bool_());
  VarId t = VarId{};
  b.while_(b.read(c), [&] {
    b.if_(b.read(c), [&] { t = b.declare("t", Type::i32(), i32c(1)); });
    b.assign(t, i32c(2));
  });
  b.return_(b.read(t));
  expect_problems(module_of(std::move(b).finish()),
                  {"function 'f' at body[0].body[1]: variable 't' assigned outside its scope",
                   "function 'f' at body[1]: variable 't' used outside its scope"});
}

TEST(VerifierRejects, ForInitVariableOutsideTheLoop) {
  FunctionBuilder b("f", Type::i32());
  VarId i = VarId{};
  b.for_([&] { i = b.declare("i", Type::i32(), i32c(0)); },
         binary(BinaryOp::Lt, read(VarId{0}, Type::i32()), i32c(4)),
         [&] { b.assign(i, binary(BinaryOp::Add, b.read(i), i32c(1))); }, [] {});
  b.return_(b.read(i));
  expect_problems(module_of(std::move(b).finish()),
                  {"function 'f' at body[1]: variable 'i' used outside its scope"});
}

TEST(VerifierRejects, DeclaredTwiceOrNever) {
  FunctionBuilder b("f", Type::void_());
  VarId x = b.declare("x", Type::i32());
  b.emit(Stmt::decl(x));
  b.new_local("unused", Type::f64());
  expect_problems(module_of(std::move(b).finish()),
                  {"function 'f' at body[1]: variable 'x' is declared twice",
                   "function 'f': variable 'unused' is never declared"});
}

TEST(VerifierRejects, ParameterDeclaredAgain) {
  FunctionBuilder b("f", Type::void_());
  VarId x = b.param("x", Type::i32());
  b.emit(Stmt::decl(x, i32c(0)));
  expect_problems(module_of(std::move(b).finish()),
                  {"function 'f' at body[0]: parameter 'x' cannot be declared again"});
}

TEST(VerifierRejects, DuplicateNames) {
  FunctionBuilder b("f", Type::void_());
  b.param("a", Type::i32());
  Function f = std::move(b).finish();
  f.vars.push_back({"a", Type::i32(), VarKind::Param, 0});
  f.num_params = 2;
  f.vars.push_back({"t", Type::i32(), VarKind::Local, 0});
  f.vars.push_back({"t", Type::f32(), VarKind::Local, 0});
  f.body.push_back(Stmt::decl(VarId{2}));
  f.body.push_back(Stmt::decl(VarId{3}));
  expect_problems(module_of(std::move(f)),
                  {"function 'f': the name 'a' is already taken by another variable",
                   "function 'f' at body[1]: the name 't' is already taken by another variable"});
}

TEST(VerifierRejects, ReservedAndMalformedNames) {
  FunctionBuilder b("while", Type::void_());
  b.param("i32", Type::i32());
  b.param("sqrt", Type::f64());
  b.declare("thread_idx.x", Type::i32());
  b.declare("nan_f32", Type::f32());
  b.declare("2x", Type::i32());
  b.declare("", Type::i32());
  expect_problems(module_of(std::move(b).finish()),
                  {"function 'while': function name 'while' is a keyword",
                   "function 'while': parameter name 'i32' is a type name",
                   "function 'while': parameter name 'sqrt' is an intrinsic name",
                   "function 'while' at body[0]: variable name 'thread_idx.x' is an intrinsic name",
                   "function 'while' at body[1]: variable name 'nan_f32' is a literal",
                   "function 'while' at body[2]: variable name '2x' is not of the form "
                   "[A-Za-z_][A-Za-z0-9_.]*",
                   "function 'while' at body[3]: variable name '' is empty"});
}

// ---------------------------------------------------------------- rejections: statements

TEST(VerifierRejects, InitializerOfAnotherType) {
  FunctionBuilder b("f", Type::void_());
  b.declare("x", Type::f64(), constant(1.0f));
  expect_problems(module_of(std::move(b).finish()),
                  {"function 'f' at body[0]: variable 'x' is f64 but its initializer is f32"});
}

TEST(VerifierRejects, AssignmentOfAnotherType) {
  FunctionBuilder b("f", Type::void_());
  VarId x = b.declare("x", Type::i16());
  b.if_(boolc(false), {}, [&] { b.assign(x, i32c(3)); });
  expect_problems(module_of(std::move(b).finish()),
                  {"function 'f' at body[1].else[0]: cannot assign i32 to variable 'x' of type "
                   "i16"});
}

TEST(VerifierRejects, StoresOfAnotherTypeOrThroughANonPointer) {
  FunctionBuilder b("f", Type::void_());
  VarId p = b.param("p", Type::pointer_to(Scalar::F32));
  VarId n = b.param("n", Type::i64());
  b.store(b.read(p), i32c(0), constant(1.0));
  b.store(b.read(n), i32c(0), constant<std::int64_t>(1));
  b.store(b.read(p), constant(0.5f), constant(1.0f));
  expect_problems(module_of(std::move(b).finish()),
                  {"function 'f' at body[0]: cannot store f64 into an element of f32*",
                   "function 'f' at body[1]: store: indexing needs a pointer, got i64",
                   "function 'f' at body[2]: store: index must be an integer, got f32"});
}

TEST(VerifierRejects, ConditionsThatAreNotBool) {
  FunctionBuilder b("f", Type::void_());
  VarId n = b.param("n", Type::i32());
  b.if_(b.read(n), [] {});
  b.while_(b.read(n), [&] { b.break_(); });
  b.for_({}, b.read(n), {}, [&] { b.break_(); });
  expect_problems(module_of(std::move(b).finish()),
                  {"function 'f' at body[0]: if condition must be bool, not i32",
                   "function 'f' at body[1]: while condition must be bool, not i32",
                   "function 'f' at body[2]: for condition must be bool, not i32"});
}

TEST(VerifierRejects, ExpressionStatementWithoutEffect) {
  FunctionBuilder b("f", Type::void_());
  VarId x = b.param("x", Type::i32());
  b.eval(binary(BinaryOp::Add, b.read(x), i32c(1)));
  expect_problems(module_of(std::move(b).finish()),
                  {"function 'f' at body[0]: an expression statement must be a call or an "
                   "atomic; its value would be unused"});
}

TEST(VerifierRejects, ForClausesThatAreNotOneSimpleStatement) {
  FunctionBuilder b("f", Type::void_());
  VarId i = b.declare("i", Type::i32(), i32c(0));
  ExprPtr cond = binary(BinaryOp::Lt, b.read(i), i32c(3));
  ExprPtr next = binary(BinaryOp::Add, b.read(i), i32c(1));
  Block two_inits = {Stmt::assign(i, i32c(0)), Stmt::assign(i, i32c(1))};
  b.emit(Stmt::for_(two_inits, cond, {Stmt::assign(i, next)}, {}));
  b.emit(Stmt::for_({Stmt::if_(cond, {})}, cond, {Stmt::assign(i, next)}, {}));
  VarId j = b.new_local("j", Type::i32());
  b.emit(Stmt::for_({}, cond, {Stmt::decl(j)}, {}));
  expect_problems(
      module_of(std::move(b).finish()),
      {"function 'f' at body[1]: a for init holds at most one statement, not 2",
       "function 'f' at body[2].init[0]: a for init must be a var, assignment, store or call, "
       "not if",
       "function 'f' at body[3].step[0]: a for step cannot declare a variable",
       "function 'f': variable 'j' is never declared"});
}

TEST(VerifierRejects, BreakAndContinueOutsideLoops) {
  FunctionBuilder b("f", Type::void_());
  VarId c = b.param("c", Type::bool_());
  b.while_(b.read(c), [&] {
    b.if_(
        b.read(c), [&] { b.break_(); }, [&] { b.continue_(); });
  });
  b.if_(b.read(c), [&] { b.break_(); });
  b.continue_();
  expect_problems(module_of(std::move(b).finish()),
                  {"function 'f' at body[1].then[0]: break outside a loop",
                   "function 'f' at body[2]: continue outside a loop"});
}

TEST(VerifierRejects, ExitsLeavingMoreLoopsThanEncloseThem) {
  FunctionBuilder b("f", Type::void_());
  VarId c = b.param("c", Type::bool_());
  b.while_(b.read(c), [&] {
    b.while_(b.read(c), [&] {
      b.if_(
          b.read(c), [&] { b.break_(2); }, [&] { b.continue_(3); });
    });
    b.break_(2);
    b.continue_(0);
  });
  expect_problems(module_of(std::move(b).finish()),
                  {"function 'f' at body[0].body[0].body[0].else[0]: continue 3 leaves 3 loops, "
                   "but 2 enclose it",
                   "function 'f' at body[0].body[1]: break 2 leaves 2 loops, but 1 encloses it",
                   "function 'f' at body[0].body[2]: continue 0: a loop exit leaves at least one "
                   "loop"});
}

TEST(VerifierRejects, FunctionsThatCanEndWithoutReturning) {
  auto ends_with = [](const std::function<void(FunctionBuilder&, VarId)>& body) {
    FunctionBuilder b("f", Type::i32());
    VarId c = b.param("c", Type::bool_());
    body(b, c);
    return module_of(std::move(b).finish());
  };
  const std::string message =
      "function 'f': function returning i32 can reach its end without returning a value";
  // No else branch.
  expect_problems(
      ends_with([](FunctionBuilder& b, VarId c) { b.if_(b.read(c), [&] { b.return_(i32c(1)); }); }),
      {message});
  // A while (true) that a break leaves.
  expect_problems(ends_with([](FunctionBuilder& b, VarId c) {
                    b.while_(boolc(true), [&] {
                      b.if_(b.read(c), [&] { b.break_(); });
                      b.return_(i32c(1));
                    });
                  }),
                  {message});
  // A loop whose condition is not the constant true.
  expect_problems(ends_with([](FunctionBuilder& b, VarId c) {
                    b.while_(b.read(c), [&] { b.return_(i32c(1)); });
                  }),
                  {message});
  // A break in an inner loop does not leave the outer while (true), so this one is valid.
  expect_valid(ends_with([](FunctionBuilder& b, VarId c) {
    b.while_(boolc(true), [&] { b.while_(b.read(c), [&] { b.break_(); }); });
  }));
  // A break 2 in an inner loop does.
  expect_problems(ends_with([](FunctionBuilder& b, VarId c) {
                    b.while_(boolc(true), [&] {
                      b.while_(b.read(c), [&] { b.break_(2); });
                      b.return_(i32c(1));
                    });
                  }),
                  {message});
  // So does a break 3 two loops down, but not a break 2 there.
  expect_problems(ends_with([](FunctionBuilder& b, VarId c) {
                    b.while_(boolc(true), [&] {
                      b.while_(b.read(c), [&] { b.while_(b.read(c), [&] { b.break_(3); }); });
                    });
                  }),
                  {message});
  expect_valid(ends_with([](FunctionBuilder& b, VarId c) {
    b.while_(boolc(true),
             [&] { b.while_(boolc(true), [&] { b.while_(b.read(c), [&] { b.break_(2); }); }); });
  }));
}

TEST(VerifierRejects, ReturnsThatDoNotMatchTheFunction) {
  FunctionBuilder f("f", Type::i32());
  VarId c = f.param("c", Type::bool_());
  f.if_(f.read(c), [&] { f.return_(); });
  f.return_(constant<std::int64_t>(1));
  FunctionBuilder g("g", Type::void_());
  g.return_(i32c(0));
  Module m = module_of(std::move(f).finish());
  m.functions.push_back(std::move(g).finish());
  expect_problems(m, {"function 'f' at body[0].then[0]: function returning i32 must return a value",
                      "function 'f' at body[1]: returns i64 from a function returning i32",
                      "function 'g' at body[0]: a void function cannot return a value"});
}

// ---------------------------------------------------------------- rejections: kernels

TEST(VerifierRejects, KernelsReturningValues) {
  FunctionBuilder b("k", Type::i32(), /*kernel=*/true);
  b.return_(i32c(0));
  expect_problems(module_of(std::move(b).finish()),
                  {"function 'k': a kernel must return void, not i32"});
}

TEST(VerifierRejects, GpuFeaturesOutsideKernels) {
  FunctionBuilder b("f", Type::void_());
  b.declare("i", Type::i32(), gpu_index(GpuIndex::BlockDim, 1));
  b.barrier();
  b.shared_array("tile", Scalar::F32, 64);
  expect_problems(module_of(std::move(b).finish()),
                  {"function 'f' at body[0]: GPU index block_dim.y used outside a kernel",
                   "function 'f' at body[1]: barrier outside a kernel",
                   "function 'f' at body[2]: shared array 'tile' declared outside a kernel"});
}

TEST(VerifierRejects, SharedArraysNestedEmptyOrAssigned) {
  FunctionBuilder b("k", Type::void_(), /*kernel=*/true);
  VarId n = b.param("n", Type::i32());
  VarId empty = b.shared_array("empty", Scalar::I32, 0);
  b.if_(binary(BinaryOp::Gt, b.read(n), i32c(0)), [&] { b.shared_array("inner", Scalar::I32, 8); });
  b.assign(empty, null_pointer(Type::pointer_to(Scalar::I32)));
  expect_problems(
      module_of(std::move(b).finish()),
      {"function 'k' at body[0]: shared array 'empty' needs a positive element count",
       "function 'k' at body[1].then[0]: shared array 'inner' must be declared at the kernel's "
       "top level",
       "function 'k' at body[2]: shared array 'empty' cannot be assigned"});
}

// ---------------------------------------------------------------- rejections: calls and names

TEST(VerifierRejects, CallsThatDoNotMatchADeclaration) {
  Module m;
  m.declare_extern({"tick", Type::i64(), {Type::i64()}, Effect::Effectful});
  auto as_pure =
      std::make_shared<const ExternFn>(ExternFn{"tick", Type::i64(), {Type::i64()}, Effect::Pure});
  auto undeclared =
      std::make_shared<const ExternFn>(ExternFn{"tock", Type::void_(), {}, Effect::Effectful});
  FunctionBuilder b("f", Type::i64());
  b.eval(call(undeclared, {}));
  b.return_(call(as_pure, {constant<std::int64_t>(1)}));
  m.functions.push_back(std::move(b).finish());
  expect_problems(
      m, {"function 'f' at body[0]: call to 'tock', which the module does not declare",
          "function 'f' at body[1]: call to 'tick' as (i64) -> i64 pure does not match its "
          "declaration (i64) -> i64 effect"});
}

TEST(VerifierRejects, CallArgumentsOfAnotherType) {
  Module m;
  ExternRef log = m.declare_extern({"log_value", Type::void_(), {Type::f64()}, Effect::Effectful});
  FunctionBuilder b("f", Type::void_());
  Expr e;
  e.kind = ExprKind::Call;
  e.type = Type::void_();
  e.callee = log;
  e.args = {i32c(1)};
  b.eval(std::make_shared<const Expr>(e));
  m.functions.push_back(std::move(b).finish());
  expect_problems(m, {"function 'f' at body[0]: argument 1 of 'log_value' is i32, expected f64"});
}

TEST(VerifierRejects, DuplicateExternsAndFunctions) {
  Module m;
  m.externs.push_back(std::make_shared<const ExternFn>(ExternFn{"h", Type::void_(), {}}));
  m.externs.push_back(std::make_shared<const ExternFn>(ExternFn{"h", Type::i32(), {}}));
  m.externs.push_back(
      std::make_shared<const ExternFn>(ExternFn{"bad", Type::void_(), {Type::void_()}}));
  m.externs.push_back(std::make_shared<const ExternFn>(ExternFn{"return", Type::void_(), {}}));
  m.functions.push_back(FunctionBuilder("f", Type::void_()).finish());
  m.functions.push_back(FunctionBuilder("f", Type::void_()).finish());
  m.functions.push_back(FunctionBuilder("h", Type::void_()).finish());
  expect_problems(
      m, {"extern 'h' is declared twice", "parameter 1 of extern 'bad' cannot have type void",
          "extern name 'return' is a keyword", "function 'f': function 'f' is defined twice",
          "function 'h': function 'h' has the name of an extern"});
}

TEST(VerifierRejects, ProblemsInProgramOrderAcrossFunctions) {
  FunctionBuilder f("f", Type::void_());
  f.break_();
  f.while_(i32c(1), [&] { f.eval(i32c(2)); });
  FunctionBuilder g("g", Type::f32());
  Module m = module_of(std::move(f).finish());
  m.functions.push_back(std::move(g).finish());
  expect_problems(
      m, {"function 'f' at body[0]: break outside a loop",
          "function 'f' at body[1]: while condition must be bool, not i32",
          "function 'f' at body[1].body[0]: an expression statement must be a call or an atomic; "
          "its value would be unused",
          "function 'g': function returning f32 can reach its end without returning a value"});
}

// ---------------------------------------------------------------- acceptance

TEST(VerifierAccepts, PowerAndScaleFromTheDocs) {
  Module m;
  ExternRef log = m.declare_extern({"log_value", Type::void_(), {Type::f64()}, Effect::Effectful});
  {
    FunctionBuilder b("power", Type::f64());
    VarId x = b.param("x", Type::f64());
    VarId n = b.param("n", Type::i32());
    VarId r = b.declare("r", Type::f64(), constant(1.0));
    b.while_(binary(BinaryOp::Gt, b.read(n), i32c(0)), [&] {
      b.if_(binary(BinaryOp::Eq, binary(BinaryOp::BitAnd, b.read(n), i32c(1)), i32c(1)),
            [&] { b.assign(r, binary(BinaryOp::Mul, b.read(r), b.read(x))); });
      b.assign(x, binary(BinaryOp::Mul, b.read(x), b.read(x)));
      b.assign(n, binary(BinaryOp::Shr, b.read(n), i32c(1)));
    });
    b.eval(call(log, {b.read(r)}));
    b.return_(b.read(r));
    m.functions.push_back(std::move(b).finish());
  }
  {
    FunctionBuilder b("scale", Type::void_(), /*kernel=*/true);
    VarId v = b.param("v", Type::pointer_to(Scalar::F32));
    VarId n = b.param("n", Type::i32());
    VarId a = b.param("a", Type::f32());
    VarId tile = b.shared_array("tile", Scalar::F32, 256);
    VarId i = b.declare("i", Type::i32(),
                        binary(BinaryOp::Add,
                               binary(BinaryOp::Mul, gpu_index(GpuIndex::BlockIdx, 0),
                                      gpu_index(GpuIndex::BlockDim, 0)),
                               gpu_index(GpuIndex::ThreadIdx, 0)));
    b.if_(binary(BinaryOp::Lt, b.read(i), b.read(n)), [&] {
      b.store(b.read(tile), gpu_index(GpuIndex::ThreadIdx, 0),
              binary(BinaryOp::Mul, load(b.read(v), b.read(i)), b.read(a)));
    });
    b.barrier();
    b.if_(binary(BinaryOp::Lt, b.read(i), b.read(n)), [&] {
      b.store(b.read(v), b.read(i), load(b.read(tile), gpu_index(GpuIndex::ThreadIdx, 0)));
      b.eval(atomic(AtomicOp::Add, {b.read(v), i32c(0), constant(1.0f)}));
    });
    m.functions.push_back(std::move(b).finish());
  }
  expect_valid(m);
}

TEST(VerifierAccepts, EveryProgramOfTheTextCorpus) {
  namespace fs = std::filesystem;
  int programs = 0;
  for (const fs::directory_entry& entry :
       fs::directory_iterator(fs::path(AUGUR_TEST_DATA) / "programs")) {
    if (entry.path().extension() != ".ir") continue;
    SCOPED_TRACE(entry.path().filename().string());
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    expect_valid(parse_module(text.str(), entry.path().filename().string()));
    ++programs;
  }
  EXPECT_GE(programs, 30);
}

TEST(VerifierAccepts, ExternsAndFunctionsNamedLikeIntrinsics) {
  // Calls mark externs with '@' and nothing names a function, so only keywords are out.
  Module m;
  ExternRef exp = m.declare_extern({"exp", Type::f64(), {Type::f64()}, Effect::Pure});
  FunctionBuilder b("sqrt", Type::f64());
  VarId x = b.param("x", Type::f64());
  b.return_(call(exp, {b.read(x)}));
  m.functions.push_back(std::move(b).finish());
  expect_valid(m);
}

TEST(VerifierAccepts, ScopesLoopsAndReturnsOnEveryPath) {
  FunctionBuilder b("sum", Type::i64());
  VarId p = b.param("p", Type::pointer_to(Scalar::I64));
  VarId n = b.param("n", Type::i32());
  VarId total = b.declare("total", Type::i64());
  VarId i = VarId{};
  b.for_([&] { i = b.declare("i", Type::i32(), i32c(0)); },
         binary(BinaryOp::Lt, read(VarId{3}, Type::i32()), b.read(n)),
         [&] { b.assign(i, binary(BinaryOp::Add, b.read(i), i32c(1))); },
         [&] {
           VarId v = b.declare("v", Type::i64(), load(b.read(p), b.read(i)));
           b.if_(binary(BinaryOp::Lt, b.read(v), constant<std::int64_t>(0)),
                 [&] { b.continue_(); });
           b.assign(total, binary(BinaryOp::Add, b.read(total), b.read(v)));
           b.store(b.read(p), b.read(i), constant<std::int64_t>(0));
         });
  b.if_(
      binary(BinaryOp::And,
             binary(BinaryOp::Ne, b.read(p), null_pointer(Type::pointer_to(Scalar::I64))),
             binary(BinaryOp::Gt, b.read(n), i32c(0))),
      [&] { b.return_(b.read(total)); },
      [&] {
        b.while_(boolc(true), [&] {
          b.if_(boolc(false), [&] { b.continue_(); });
          b.return_(constant<std::int64_t>(-1));
        });
      });
  expect_valid(module_of(std::move(b).finish()));
}

}  // namespace
}  // namespace augur::ir
