#include "runtime/peg/peg_egraph.h"

#include "runtime/peg/peg_fold.h"
#include "runtime/peg/peg_ops.h"

namespace augur::peg {

eqsat::LoopRole loop_role(const eqsat::EGraph&, const eqsat::ENodeView& node) {
  const auto loop = static_cast<unsigned>(node.label.payload);
  switch (kind_of(node.label.op)) {
    case Kind::Theta:
      return {eqsat::LoopRole::Kind::Theta, loop};
    case Kind::Eval:
      return {eqsat::LoopRole::Kind::Eval, loop, 1};
    case Kind::Pass:
      return {eqsat::LoopRole::Kind::Pass, loop};
    default:
      return {};
  }
}

std::unique_ptr<eqsat::EGraph> make_peg_egraph(eqsat::EGraphOptions options) {
  options.commutative = &commutative;
  auto g = std::make_unique<eqsat::EGraph>(options);
  g->add_analysis<eqsat::ConstantFolding>(&fold,
                                          eqsat::ConstantFolding::Options{.same = &same_constant});
  g->add_analysis<eqsat::LoopInvariance>(&loop_role);
  g->add_analysis<LoopEvalMemo>();
  return g;
}

}  // namespace augur::peg
