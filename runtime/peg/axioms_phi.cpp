// φ axioms (Tate, appendix A.1): a φ whose branches agree is either; a φ in
// a branch of a φ on the same condition takes that branch; a negated
// condition swaps the branches; operators distribute through φ. Distribution
// is restricted (a restrictive trigger, as the thesis uses): only where the
// other operand is a constant or the branches are constants, so that it
// enables folding (CFG restructuring, test 6) without multiplying every
// expression by every condition.
#include "runtime/peg/axioms.h"
#include "runtime/peg/axioms_util.h"

namespace augur::peg {

namespace {

using axioms::add;

// Binary operators by the types they take.
const std::vector<std::string> kIntOps = {"add", "sub", "mul", "and", "or",
                                          "xor", "shl", "shr", "min", "max"};
const std::vector<std::string> kFloatOps = {"add", "sub", "mul", "div"};
const std::vector<std::string> kCompare = {"eq", "ne", "lt", "le", "gt", "ge"};

}  // namespace

void add_phi_axioms(std::vector<eqsat::Rewrite>& rules, PegLanguage& language) {
  std::vector<std::string> phi_types = axioms::value_types();
  phi_types.push_back("state");
  for (const std::string& t : phi_types) {
    add(rules, language, "phi-same", t, "(phi.$T ?c ?a ?a)", "?a");
    add(rules, language, "phi-true", t, "(phi.$T true ?a ?b)", "?a");
    add(rules, language, "phi-false", t, "(phi.$T false ?a ?b)", "?b");
    add(rules, language, "phi-then-same", t, "(phi.$T ?c (phi.$T ?c ?a ?b) ?d)",
        "(phi.$T ?c ?a ?d)");
    add(rules, language, "phi-else-same", t, "(phi.$T ?c ?d (phi.$T ?c ?a ?b))",
        "(phi.$T ?c ?d ?b)");
    add(rules, language, "phi-not", t, "(phi.$T (not.bool ?c) ?a ?b)", "(phi.$T ?c ?b ?a)");
  }
  add(rules, language, "phi-bool", "", "(phi.bool ?c true false)", "?c");
  add(rules, language, "phi-not-bool", "", "(phi.bool ?c false true)", "(not.bool ?c)");

  // op(φ(c, a, b), k) = φ(c, op(a, k), op(b, k)) with k a constant, and
  // op(φ(c, k1, k2), y) when both branches are constants.
  const auto distribute = [&](const std::string& op, const std::string& t,
                              const std::string& result) {
    eqsat::Rewrite& l =
        add(rules, language, "phi-distribute-l-" + op, t, "(" + op + ".$T (phi.$T ?c ?a ?b) ?k)",
            "(phi." + result + " ?c (" + op + ".$T ?a ?k) (" + op + ".$T ?b ?k))");
    l.when(eqsat::is_constant(l.var("?k")));
    if (!axioms::commutes(op, t)) {  // a commutative operator matches l in both orders
      eqsat::Rewrite& r =
          add(rules, language, "phi-distribute-r-" + op, t, "(" + op + ".$T ?k (phi.$T ?c ?a ?b))",
              "(phi." + result + " ?c (" + op + ".$T ?k ?a) (" + op + ".$T ?k ?b))");
      r.when(eqsat::is_constant(r.var("?k")));
    }
    eqsat::Rewrite& c = add(rules, language, "phi-distribute-consts-" + op, t,
                            "(" + op + ".$T (phi.$T ?c ?a ?b) ?y)",
                            "(phi." + result + " ?c (" + op + ".$T ?a ?y) (" + op + ".$T ?b ?y))");
    c.when(eqsat::is_constant(c.var("?a"))).when(eqsat::is_constant(c.var("?b")));
  };
  for (const std::string& t : axioms::int_types()) {
    for (const std::string& op : kIntOps) distribute(op, t, t);
    for (const std::string& op : kCompare) distribute(op, t, "bool");
  }
  for (const std::string& t : axioms::float_types()) {
    for (const std::string& op : kFloatOps) distribute(op, t, t);
    for (const std::string& op : kCompare) distribute(op, t, "bool");
  }
}

}  // namespace augur::peg
