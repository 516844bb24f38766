// The Augur IR: the contract between staging, the PEG optimizer, the backends,
// the cache and the interpreter. docs/ir.md is the user-level description.
//
// Shape: a Module holds extern declarations and functions. A Function has typed
// variables (parameters first) and a body, a Block of structured statements.
// Expressions are immutable trees shared by pointer (ExprPtr); statements are
// values holding their nested blocks. There are no gotos: control flow is
// if/while/for with break, continue and return.
//
// Invariants (checked by the verifier, relied on everywhere else):
//  - every VarId indexes Function::vars; variable names are unique in a function;
//  - a local variable is declared by exactly one Decl and used only after it, in
//    its scope (the rest of the enclosing block, nested blocks included);
//  - operand types match what each node below says; Expr::type is its result type;
//  - break/continue only inside as many loops as they leave (`levels`); a non-void
//    function returns on every path;
//  - a kernel returns void; GPU intrinsics, barriers and shared arrays only in kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/ir/type.h"
#include "runtime/ir/value.h"

namespace augur::ir {

// ---------------------------------------------------------------- variables

struct VarId {
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  std::uint32_t index = kNone;

  constexpr bool valid() const { return index != kNone; }
  friend constexpr bool operator==(VarId, VarId) = default;
};

enum class VarKind : std::uint8_t {
  Param,   // bound to an argument at entry; assignable like a local
  Local,   // declared by a Decl statement; zero until assigned if it has no initializer
  Shared,  // GPU block-shared array: `type` is a pointer to `shared_count` elements
};

struct Variable {
  std::string name;
  Type type;
  VarKind kind = VarKind::Local;
  std::uint32_t shared_count = 0;  // Shared only

  friend bool operator==(const Variable&, const Variable&) = default;
};

// ---------------------------------------------------------------- externs

// What a call to an external function may do. Pure: no memory access, result
// depends only on the arguments. ReadOnly: may read memory. Effectful: anything.
enum class Effect : std::uint8_t { Pure, ReadOnly, Effectful };

// A declaration of a host function callable from IR, resolved by name at run
// time (the interpreter and the backends get addresses from an ExternTable).
struct ExternFn {
  std::string name;
  Type ret;
  std::vector<Type> params;
  Effect effect = Effect::Effectful;

  friend bool operator==(const ExternFn&, const ExternFn&) = default;
};
using ExternRef = std::shared_ptr<const ExternFn>;

// ---------------------------------------------------------------- tables

// A read-only array of constants that lives in the compiled code (a matcher's
// transitions, a filter's coefficients): its elements' bytes in the host's
// layout. A Table expression is a pointer to its first element.
struct TableData {
  Type element;  // a non-void scalar
  std::vector<std::byte> bytes;

  std::size_t size() const { return element.size() == 0 ? 0 : bytes.size() / element.size(); }
  // Element i as canonical bits (value.h), as a Const of `element` holds it.
  std::uint64_t bits(std::size_t i) const;

  friend bool operator==(const TableData&, const TableData&) = default;
};
using TableRef = std::shared_ptr<const TableData>;

// ---------------------------------------------------------------- expressions

enum class ExprKind : std::uint8_t {
  Const,     // bits: canonical value (value.h); pointers: only null (0)
  Var,       // var: read of a variable
  Unary,     // op: UnaryOp; args[0]
  Binary,    // op: BinaryOp; args[0], args[1]
  Select,    // args: cond (bool), then, else; evaluates only the chosen operand (C's ?:)
  Cast,      // args[0] converted to `type` (semantics in docs/ir.md)
  Load,      // args: pointer, index (any integer); reads pointer[index]
  Call,      // callee; args match callee->params
  Math,      // op: MathOp; args by arity
  GpuIndex,  // op: GpuIndex; axis 0/1/2 (x/y/z); type i32
  Atomic,    // op: AtomicOp; args: pointer, index, value [, desired for Cas]; returns the old value
  Table,     // table: read-only constants; type: pointer to table->element
};

enum class UnaryOp : std::uint8_t {
  Neg,     // arithmetic negation (wraps for integers)
  BitNot,  // ~x on integers
  Not,     // !x on bool
};

// Operand rules (the verifier's and the builder's):
//  Add Sub Mul Div Rem   same arithmetic type; Add/Sub also pointer ± integer
//  BitAnd BitOr BitXor   same integer or bool type
//  Shl Shr               same integer type; the count is taken modulo the width;
//                        Shr is arithmetic for signed types, logical for unsigned
//  Eq Ne Lt Le Gt Ge     same type (arithmetic or pointer; also bool for Eq/Ne); bool result
//  And Or                bool; the right operand is evaluated only when needed
// clang-format off
enum class BinaryOp : std::uint8_t {
  Add, Sub, Mul, Div, Rem,
  BitAnd, BitOr, BitXor,
  Shl, Shr,
  Eq, Ne, Lt, Le, Gt, Ge,
  And, Or,
};
// clang-format on

// Sqrt Fabs Floor Exp Log take one float; Pow two floats; Min Max two operands
// of one arithmetic type (floats: IEEE minNum/maxNum); Fma three floats, a*b+c
// rounded once.
enum class MathOp : std::uint8_t { Sqrt, Fabs, Floor, Exp, Log, Pow, Min, Max, Fma };

enum class GpuIndex : std::uint8_t { ThreadIdx, BlockIdx, BlockDim, GridDim };

enum class AtomicOp : std::uint8_t { Add, Min, Max, Exchange, Cas };

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  ExprKind kind = ExprKind::Const;
  std::uint8_t op = 0;     // UnaryOp, BinaryOp, MathOp, GpuIndex or AtomicOp, by kind
  std::uint8_t axis = 0;   // GpuIndex
  Type type;               // result type
  std::uint64_t bits = 0;  // Const
  VarId var;               // Var
  // A number the node's maker may give it, no part of its value (equality,
  // hashing and printing ignore it; copies keep it): the first stage's pool
  // numbers its nodes in the order made (runtime/stage/expr_pool.h).
  std::uint32_t serial = 0;
  ExternRef callee;  // Call
  TableRef table;    // Table
  std::vector<ExprPtr> args;

  Expr() = default;
  Expr(const Expr&) = default;
  Expr(Expr&&) = default;
  Expr& operator=(const Expr&) = default;
  Expr& operator=(Expr&&) = default;
  // Releases the nodes only this one holds without recursing: an expression
  // may be as tall as a staged program makes it.
  ~Expr();

  UnaryOp unary_op() const { return static_cast<UnaryOp>(op); }
  BinaryOp binary_op() const { return static_cast<BinaryOp>(op); }
  MathOp math_op() const { return static_cast<MathOp>(op); }
  GpuIndex gpu_index() const { return static_cast<GpuIndex>(op); }
  AtomicOp atomic_op() const { return static_cast<AtomicOp>(op); }

  // Const accessors: the value sign- or zero-extended by type, or as a float.
  std::int64_t int_value() const;
  double float_value() const;
};

// Deep structural equality (callees compare by declaration, not by pointer).
bool operator==(const Expr& a, const Expr& b);
bool same_expr(const ExprPtr& a, const ExprPtr& b);

// What evaluating `e` itself does, its operands aside. It acts: an atomic or a
// call that is not Pure (so it must run exactly as often as written). It may
// trap or read memory: a load, an integer division or remainder (so it must
// not run where the program would not run it).
bool acts(const Expr& e);
bool may_trap_or_read(const Expr& e);

// ---------------------------------------------------------------- statements

// How deep statements may nest (an if's block inside a loop's body ...). The
// verifier refuses deeper functions, so the passes that walk statements
// recursively (codegen, the interpreter's lowering, PEG translation, the CUDA
// writer) stay well inside a background thread's stack; the first stage
// reports a deeper program as a staging_error.
inline constexpr std::size_t kMaxNesting = 1000;

enum class StmtKind : std::uint8_t {
  Decl,      // var [= expr]; declares a Local (expr may be null: zero) or a Shared array
  Assign,    // var = expr
  Store,     // ptr[index] = expr
  Eval,      // expr;  (a call or atomic evaluated for its effect)
  If,        // if (expr) body else orelse
  While,     // while (expr) body
  For,       // for (init; expr; step) body; init/step hold at most one statement;
             // continue jumps to step; a Decl in init is scoped to the loop
  Break,     // leaves `levels` loops: 1 the innermost (`break;`), 2 the one around it (`break 2;`)
  Continue,  // next iteration of the loop `levels` out: 1 the innermost (`continue;`)
  Return,    // return [expr]
  Barrier,   // GPU block-wide barrier (kernels only; every thread of the block reaches it)
};

struct Stmt;
using Block = std::vector<Stmt>;

struct Stmt {
  StmtKind kind = StmtKind::Eval;
  VarId var;     // Decl, Assign
  ExprPtr expr;  // Decl init, Assign value, Store value, Eval, If/While/For condition, Return value
  ExprPtr ptr;   // Store
  ExprPtr index;             // Store
  Block body;                // If then-branch, While/For body
  Block orelse;              // If else-branch
  Block init;                // For
  Block step;                // For
  std::uint32_t levels = 1;  // Break, Continue: how many loops out the target is (1 or more)

  static Stmt decl(VarId var, ExprPtr init = nullptr);
  static Stmt assign(VarId var, ExprPtr value);
  static Stmt store(ExprPtr ptr, ExprPtr index, ExprPtr value);
  static Stmt eval(ExprPtr expr);
  static Stmt if_(ExprPtr cond, Block then_block, Block else_block = {});
  static Stmt while_(ExprPtr cond, Block body);
  static Stmt for_(Block init, ExprPtr cond, Block step, Block body);
  static Stmt break_(std::uint32_t levels = 1);
  static Stmt continue_(std::uint32_t levels = 1);
  static Stmt return_(ExprPtr value = nullptr);
  static Stmt barrier();
};

bool operator==(const Stmt& a, const Stmt& b);

// ---------------------------------------------------------------- functions

struct Function {
  std::string name;
  Type ret;
  bool kernel = false;         // a GPU entry point (returns void)
  std::vector<Variable> vars;  // parameters first, then locals and shared arrays
  std::uint32_t num_params = 0;
  Block body;

  std::span<const Variable> params() const { return {vars.data(), num_params}; }
  const Variable& var(VarId id) const { return vars.at(id.index); }
  // The first variable with this name, if any.
  VarId find_var(std::string_view name) const;

  friend bool operator==(const Function&, const Function&) = default;
};

struct Module {
  std::vector<ExternRef> externs;
  std::vector<Function> functions;

  const Function* find_function(std::string_view name) const;
  ExternRef find_extern(std::string_view name) const;
  // Adds `decl` unless an identical declaration exists; returns the one in the module.
  // Throws jit::verify_error if another declaration has the same name.
  ExternRef declare_extern(ExternFn decl);
};

bool operator==(const Module& a, const Module& b);

// ---------------------------------------------------------------- names

std::string_view name_of(UnaryOp op);   // "-", "~", "!"
std::string_view name_of(BinaryOp op);  // "+", "<<", "&&", ...
std::string_view name_of(MathOp op);    // "sqrt", "fma", ...
std::string_view name_of(GpuIndex op);  // "thread_idx", ...
std::string_view name_of(AtomicOp op);  // "atomic_add", ...
std::string_view name_of(Effect e);     // "pure", "readonly", "effect"
std::string_view name_of(StmtKind k);   // "decl", "if", ...

// Number of operands a MathOp / AtomicOp takes.
unsigned arity(MathOp op);
unsigned arity(AtomicOp op);

bool is_comparison(BinaryOp op);

}  // namespace augur::ir
