#include "tests/support/random_gen.h"

#include "tests/support/test_externs.h"

namespace augur::testing::gen {

using ir::Type;

TypePools::TypePools(const RandomFeatures& features) {
  if (features.all_int_widths) {
    ints = {Type::i8(), Type::i16(), Type::i32(), Type::i64(),
            Type::u8(), Type::u16(), Type::u32(), Type::u64()};
  } else {
    ints = {Type::i32(), Type::i64()};
  }
  if (features.floats) floats = {Type::f32(), Type::f64()};
  numeric = ints;
  numeric.insert(numeric.end(), floats.begin(), floats.end());
  values = numeric;
  values.push_back(Type::bool_());
}

std::size_t expr_nodes(const ir::ExprPtr& e) {
  if (!e) return 0;
  std::size_t n = 1;
  for (const ir::ExprPtr& arg : e->args) n += expr_nodes(arg);
  return n;
}

std::size_t own_nodes(const ir::Stmt& s) {
  return 1 + expr_nodes(s.expr) + expr_nodes(s.ptr) + expr_nodes(s.index);
}

State::State(const RandomProgramOptions& options)
    : options(options),
      features(options.features),
      rng(options.seed),
      types(options.features),
      ret(pick(types.values)),
      externs(test_externs()),
      builder("random_" + std::to_string(options.seed), ret) {}

std::size_t State::weighted(std::span<const unsigned> weights) {
  unsigned total = 0;
  for (unsigned w : weights) total += w;
  unsigned r = static_cast<unsigned>(rng.below(total));
  for (std::size_t i = 0;; ++i) {
    if (r < weights[i]) return i;
    r -= weights[i];
  }
}

void State::emit(ir::Stmt s) {
  made += own_nodes(s);
  builder.emit(std::move(s));
}

ir::ExternRef State::extern_named(std::string_view name) {
  return module.declare_extern(*externs.find(name)->decl);
}

std::vector<ir::VarId> State::vars_of(Type type) const {
  std::vector<ir::VarId> out;
  for (const ScalarVar& v : scalars) {
    if (v.type == type) out.push_back(v.id);
  }
  return out;
}

std::vector<const ArrayVar*> State::arrays_of(Type element) const {
  std::vector<const ArrayVar*> out;
  for (const ArrayVar& a : arrays) {
    if (a.pointer.pointee() == element) out.push_back(&a);
  }
  return out;
}

}  // namespace augur::testing::gen
