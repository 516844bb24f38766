#include "runtime/peg/cost.h"

#include <limits>

#include "runtime/eqsat/loop_invariance.h"

namespace augur::peg {

namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
}

double basic_cost(eqsat::Label label) {
  const Kind k = kind_of(label.op);
  const PegType t = type_slot(label.op);
  const bool fp = t.is_ir() && t.ir().is_float();
  switch (k) {
    case Kind::Const:
    case Kind::Param:
    case Kind::Shared:
    case Kind::GpuIndex:
    case Kind::Table:
      return 1;
    case Kind::StateIn:
    case Kind::ProjValue:
    case Kind::ProjState:
    case Kind::Demand:
      return 0;
    case Kind::Zero:
    case Kind::Succ:
    case Kind::Peel:
      return kInfinity;
    case Kind::Neg:
    case Kind::BitNot:
    case Kind::Not:
    case Kind::BitAnd:
    case Kind::BitOr:
    case Kind::BitXor:
    case Kind::Shl:
    case Kind::Shr:
    case Kind::Cast:
    case Kind::Fabs:
      return 2;
    case Kind::Add:
    case Kind::Sub:
    case Kind::Min:
    case Kind::Max:
      return fp ? 8 : 4;
    case Kind::Eq:
    case Kind::Ne:
    case Kind::Lt:
    case Kind::Le:
    case Kind::Gt:
    case Kind::Ge:
      return 5;
    case Kind::Floor:
      return 8;
    case Kind::Mul:
      return fp ? 10 : 20;
    case Kind::Fma:
      return 20;
    case Kind::Div:
    case Kind::Rem:
    case Kind::Sqrt:
      return 40;
    case Kind::Exp:
    case Kind::Log:
    case Kind::Pow:
      return 100;
    case Kind::Phi:
      return result_type(label.op) == PegType::index() ? kInfinity : 2;
    case Kind::Theta:
      return 4;  // a loop variable: a register and a move per iteration
    case Kind::Eval:
      return 1;
    case Kind::Pass:
      return 1000;
    case Kind::Load:
    case Kind::Store:
    case Kind::ReadTable:
      return 50;
    case Kind::CallPure:
    case Kind::CallRead:
    case Kind::CallEffect:
      return 2000;
    case Kind::Atomic:
      return 200;
    case Kind::Barrier:
      return 100;
    case Kind::Count:
      break;
  }
  return kInfinity;
}

double node_cost(const eqsat::EGraph& g, const eqsat::ENodeView& n,
                 const std::unordered_set<std::uint32_t>* banned) {
  if (banned && banned->contains(eqsat::index(n.id))) return kInfinity;
  const double basic = basic_cost(n.label);
  if (basic == kInfinity) return kInfinity;
  double factor = 1;
  for (unsigned d = g.analysis<eqsat::LoopInvariance>().node_depth(n); d > 0; --d) factor *= 20;
  return basic * factor;
}

eqsat::CostFunction peg_cost(const std::unordered_set<std::uint32_t>* banned) {
  return [banned](const eqsat::EGraph& g, const eqsat::ENodeView& n,
                  std::span<const double> children) {
    double c = node_cost(g, n, banned);
    for (double x : children) c += x;
    return c;
  };
}

eqsat::CycleEdges peg_cycle_edges() {
  eqsat::CycleEdges edges;
  for (std::uint8_t t = 0; t < PegType::kCount; ++t)
    edges.allow(op_of(Kind::Theta, PegType::from_code(t)), 1);
  return edges;
}

}  // namespace augur::peg
