#include "runtime/peg/validate.h"

#include <unordered_set>

#include "runtime/peg/axioms.h"
#include "runtime/peg/bisimilar.h"

namespace augur::peg {

namespace {

bool proved(const eqsat::EGraph& g, const PegFunction& a, const PegFunction& b) {
  if (!g.equivalent(a.state, b.state)) return false;
  if (a.result.has_value() != b.result.has_value()) return false;
  if (a.result && !g.equivalent(*a.result, *b.result)) return false;
  if (a.outputs.size() != b.outputs.size()) return false;
  for (std::size_t i = 0; i < a.outputs.size(); ++i)
    if (!g.equivalent(a.outputs[i], b.outputs[i])) return false;
  return true;
}

}  // namespace

bool validate(eqsat::EGraph& g, const PegFunction& original, const ir::Function& optimized,
              const eqsat::Limits& limits, std::span<const ir::VarId> outputs) {
  const std::size_t before = g.id_count();
  PegFunction other;
  try {
    other = to_peg(optimized, g, outputs);
  } catch (const unsupported&) {
    return false;
  }
  // Table nodes are named by a hash of their contents: one name for two
  // different tables would prove nothing.
  for (const auto& [id, data] : other.tables)
    if (auto it = original.tables.find(id); it != original.tables.end() && !(*it->second == *data))
      return false;
  g.rebuild();
  if (proved(g, original, other)) return true;
  // The classes the optimized program added, to pair with the original's.
  const auto new_classes = [&] {
    std::unordered_set<std::uint32_t> seen;
    std::vector<eqsat::Id> out;
    for (std::size_t i = before; i < g.id_count(); ++i) {
      const eqsat::Id c = g.find(eqsat::make_id(static_cast<std::uint32_t>(i)));
      if (seen.insert(eqsat::index(c)).second) out.push_back(c);
    }
    return out;
  };
  merge_bisimilar(g, new_classes(), false);
  if (proved(g, original, other)) return true;
  eqsat::Runner runner(eqsat::RunOptions{limits, {}, 1});
  try {
    runner.run(g, builtin_rule_index());
  } catch (const jit::error&) {
    return false;
  }
  merge_bisimilar(g, new_classes(), false);
  return proved(g, original, other);
}

}  // namespace augur::peg
