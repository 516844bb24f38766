// Internals of random_program(): the state that statement and expression
// generation share, and the expression generator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/ir/builder.h"
#include "runtime/ir/externs.h"
#include "tests/support/random_program.h"
#include "tests/support/rng.h"

namespace augur::testing::gen {

struct ScalarVar {
  ir::VarId id;
  ir::Type type;
  bool assignable;  // loop counters and temporaries are read-only
};

// A pointer variable and how many elements it may access from where it points.
struct ArrayVar {
  ir::VarId id;
  ir::Type pointer;
  std::uint32_t length;
};

// The types the enabled features allow.
struct TypePools {
  explicit TypePools(const RandomFeatures& features);
  std::vector<ir::Type> ints, floats, numeric, values;  // values: numeric and bool
};

// Expression nodes of a tree, and of a statement without its nested blocks.
std::size_t expr_nodes(const ir::ExprPtr& e);
std::size_t own_nodes(const ir::Stmt& s);

// The function under construction and the variables in scope where the next
// statement goes.
struct State {
  explicit State(const RandomProgramOptions& options);

  ir::Type pick(const std::vector<ir::Type>& types) {
    return rng.pick(std::span<const ir::Type>(types));
  }
  // Picks an index with probability proportional to its weight; one weight is positive.
  std::size_t weighted(std::span<const unsigned> weights);
  std::string fresh(std::string_view prefix) {
    return std::string(prefix) + std::to_string(names++);
  }
  // Appends to the innermost open block, counting the nodes.
  void emit(ir::Stmt s);
  // The module's declaration of a test extern, added on first use.
  ir::ExternRef extern_named(std::string_view name);
  std::vector<ir::VarId> vars_of(ir::Type type) const;
  std::vector<const ArrayVar*> arrays_of(ir::Type element) const;

  const RandomProgramOptions& options;
  const RandomFeatures& features;
  Rng rng;
  TypePools types;
  ir::Type ret;
  ir::ExternTable externs;
  ir::FunctionBuilder builder;
  ir::Module module;
  std::vector<ScalarVar> scalars;  // in scope
  std::vector<ArrayVar> arrays;    // in scope
  // Tables made so far (features.tables) and their lengths, reused at random.
  std::vector<std::pair<ir::ExprPtr, std::uint32_t>> tables;
  std::size_t made = 0;  // nodes emitted so far
  unsigned names = 0;
  bool inexact = false;  // exp, log or pow was used
};

// Random expressions that never trap. Divisions hoist their operands into
// temporaries emitted before the statement being built.
class ExprGen {
 public:
  explicit ExprGen(State& state) : s_(state) {}

  ir::ExprPtr expr(ir::Type type, unsigned depth);
  // A pointer into `a` (maybe moved by pointer arithmetic) and an index kept in range.
  std::pair<ir::ExprPtr, ir::ExprPtr> element(const ArrayVar& a);
  // `a` as bytes: a u8 pointer and the number of bytes it may access.
  std::pair<ir::ExprPtr, ir::ExprPtr> byte_view(const ArrayVar& a);
  // A pointer offset of a random type wide enough for any array length.
  ir::ExprPtr offset_const(std::uint32_t k);

  static ir::ExprPtr to_type(ir::ExprPtr e, ir::Type type) {
    return e->type == type ? e : ir::cast(type, std::move(e));
  }

 private:
  enum class Form { Unary, Binary, Division, Select, Cast, Math, Call, Load };

  ir::ExprPtr hoist(ir::ExprPtr e);
  ir::ExprPtr index_below(std::uint32_t length);
  ir::ExprPtr leaf(ir::Type t);
  ir::ExprPtr random_constant(ir::Type t);
  // An element of a table of `t`s, a new one or one made before.
  ir::ExprPtr table_element(ir::Type t);
  ir::ExprPtr gen_call(ir::Type t, unsigned depth);
  ir::ExprPtr safe_division(ir::BinaryOp op, ir::Type t, unsigned depth);
  Form pick_form(bool unary, bool division, bool has_load);
  ir::ExprPtr gen_load(ir::Type t);
  ir::ExprPtr gen_cast_to(ir::Type t, unsigned depth);
  ir::ExprPtr gen_int(ir::Type t, unsigned depth);
  ir::ExprPtr gen_float(ir::Type t, unsigned depth);
  ir::ExprPtr gen_float_math(ir::Type t, unsigned depth);
  ir::ExprPtr gen_bool(unsigned depth);

  State& s_;
};

}  // namespace augur::testing::gen
