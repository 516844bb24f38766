#include "runtime/eqsat/rewrite.h"

#include <algorithm>

#include "jit/error.h"

namespace augur::eqsat {

namespace {

void check_bound(const std::string& name, const Pattern& rhs, std::size_t class_vars,
                 std::size_t payload_vars) {
  for (const PatternNode& n : rhs.nodes) {
    const bool ok = n.kind == PatternNode::Kind::Var ? n.var < class_vars
                                                     : !n.payload || *n.payload < payload_vars;
    if (!ok) throw jit::error("rule '" + name + "': the right-hand side uses an unbound variable");
  }
}

}  // namespace

Rewrite::Rewrite(std::string name, Query lhs, Pattern rhs)
    : name_(std::move(name)), lhs_(std::move(lhs)), rhs_(std::move(rhs)) {
  check_bound(name_, std::get<Pattern>(rhs_), lhs_.vars().class_names().size(),
              lhs_.vars().payload_names().size());
}

Rewrite::Rewrite(std::string name, Query lhs, std::vector<Query::Binding> rhs, VarTable rhs_vars)
    : name_(std::move(name)),
      lhs_(std::move(lhs)),
      rhs_(MultiRhs{std::move(rhs), std::move(rhs_vars)}) {
  const MultiRhs& m = std::get<MultiRhs>(rhs_);
  std::vector<bool> bound(m.vars.class_names().size(), false);
  std::fill_n(bound.begin(), lhs_.vars().class_names().size(), true);
  for (const Query::Binding& b : m.bindings) {
    for (const PatternNode& n : b.pattern.nodes)
      if (n.kind == PatternNode::Kind::Var && !bound.at(n.var))
        throw jit::error("rule '" + name_ + "': the right-hand side uses an unbound variable");
    check_bound(name_, b.pattern, bound.size(), lhs_.vars().payload_names().size());
    bound.at(b.var) = true;
  }
}

Rewrite::Rewrite(std::string name, Query lhs, Builder rhs, Reads reads)
    : name_(std::move(name)), lhs_(std::move(lhs)), rhs_(std::move(rhs)), reads_(reads) {}

Rewrite Rewrite::parse(std::string name, Query lhs, TokenCursor& cursor, Language& language) {
  const bool multi = !cursor.done() && cursor.peek().kind == Token::Kind::Atom &&
                     cursor.peek().text.starts_with('?');
  if (!multi) {
    VarTable vars = lhs.vars();
    Pattern rhs = parse_pattern(cursor, language, vars, NewVars::Forbidden);
    return Rewrite(std::move(name), std::move(lhs), std::move(rhs));
  }
  // `?x` alone, or `?x = p, ?y = q`: targets may be new variables, bound by
  // their binding; patterns may use only variables bound before them.
  VarTable vars = lhs.vars();
  const Token& first = cursor.next();
  if (!cursor.at_atom("=")) {
    const std::optional<std::uint32_t> var = vars.find_class(first.text);
    if (!var) cursor.fail_at(first, "variable '" + std::string(first.text) + "' is not bound");
    Pattern rhs;
    rhs.nodes.push_back(PatternNode{PatternNode::Kind::Var, {}, *var, std::nullopt, {}});
    return Rewrite(std::move(name), std::move(lhs), std::move(rhs));
  }
  std::vector<Query::Binding> bindings;
  const Token* target = &first;
  for (;;) {
    cursor.next();  // '='
    Pattern p = parse_pattern(cursor, language, vars, NewVars::Forbidden);
    std::optional<std::uint32_t> var = vars.find_class(target->text);
    if (!var) var = vars.add_class(target->text);
    bindings.push_back(Query::Binding{*var, std::move(p)});
    if (cursor.at_atom("=")) continue;
    if (cursor.done() || cursor.peek().kind != Token::Kind::Comma) break;
    cursor.next();
    target = &cursor.next();
    if (target->kind != Token::Kind::Atom || !target->text.starts_with('?'))
      cursor.fail_at(*target, "expected '?var = pattern'");
    if (!cursor.at_atom("=")) cursor.fail("expected '=' after " + std::string(target->text));
  }
  return Rewrite(std::move(name), std::move(lhs), std::move(bindings), std::move(vars));
}

Rewrite Rewrite::parse(std::string name, std::string_view lhs, std::string_view rhs,
                       Language& language) {
  Query query = Query::parse(lhs, language);
  const std::vector<Token> tokens = tokenize(rhs);
  TokenCursor cursor(tokens);
  Rewrite r = parse(std::move(name), std::move(query), cursor, language);
  if (!cursor.done()) cursor.fail("unexpected text after the right-hand side");
  return r;
}

Rewrite& Rewrite::when(Guard guard) {
  reads_ = std::max(reads_, guard.reads());
  guards_.push_back(std::move(guard));
  return *this;
}

std::uint32_t Rewrite::var(std::string_view name) const {
  const std::optional<std::uint32_t> v = lhs_.vars().find_class(name);
  if (!v) throw jit::error("rule '" + name_ + "' has no variable '" + std::string(name) + "'");
  return *v;
}

bool Rewrite::worth_applying(const EGraph& egraph, Id root, const Subst& subst) const {
  if (guards_.empty()) return true;
  // A guard that reads more than the match may walk the graph (the
  // store-store rule's does), and its rule is searched in full at every
  // iteration (runner.h), finding again each match it applied before. Such
  // a match would change nothing: its right-hand side is in the matched
  // class already. (An incremental rule finds only new matches: the lookup
  // would cost it more than it saves.)
  if (const Pattern* rhs = rhs_pattern(); rhs && !incremental()) {
    if (const std::optional<Id> built = rhs->lookup(egraph, subst);
        built && *built == egraph.find(root))
      return false;
  }
  return std::all_of(guards_.begin(), guards_.end(),
                     [&](const Guard& g) { return g(egraph, root, subst); });
}

bool Rewrite::apply(EGraph& egraph, Id root, const Subst& subst, Reason why) const {
  // With explanations on, the merge is recorded between the exact terms the
  // rule relates: the left side instantiated, and the right side.
  const bool exact = egraph.explanations() != nullptr;
  const auto left = [&] {
    return exact ? lhs_.bindings().front().pattern.instantiate(egraph, subst, true) : root;
  };
  if (const Pattern* rhs = std::get_if<Pattern>(&rhs_)) {
    const Id from = left();
    return egraph.merge(from, rhs->instantiate(egraph, subst, exact), why);
  }
  if (const Builder* build = std::get_if<Builder>(&rhs_)) {
    const std::optional<Id> built = (*build)(egraph, root, subst);
    return built && egraph.merge(left(), *built, why);
  }
  const MultiRhs& m = std::get<MultiRhs>(rhs_);
  std::vector<Id> classes(m.vars.class_names().size());
  std::copy(subst.classes.begin(), subst.classes.end(), classes.begin());
  std::vector<bool> bound(classes.size(), false);
  std::fill_n(bound.begin(), subst.classes.size(), true);
  const Subst extended{classes, subst.payloads};
  bool changed = false;
  for (const Query::Binding& b : m.bindings) {
    const Id id = b.pattern.instantiate(egraph, extended, exact);
    if (bound[b.var]) {
      changed |= egraph.merge(classes[b.var], id, why);
    } else {
      classes[b.var] = id;
      bound[b.var] = true;
    }
  }
  return changed;
}

std::array<Rewrite, 2> parse_bidirectional(const std::string& name, std::string_view a,
                                           std::string_view b, Language& language) {
  Rewrite forward = Rewrite::parse(name, a, b, language);
  Rewrite backward = Rewrite::parse(name + "-rev", b, a, language);
  const auto sorted = [](const Rewrite& r) {
    std::vector<std::string> v(r.query().vars().class_names().begin(),
                               r.query().vars().class_names().end());
    std::sort(v.begin(), v.end());
    return v;
  };
  if (forward.query().is_multi() || backward.query().is_multi() ||
      sorted(forward) != sorted(backward))
    throw jit::error("rule '" + name +
                     "': both sides of <=> must be patterns with the same variables");
  return {std::move(forward), std::move(backward)};
}

}  // namespace augur::eqsat
