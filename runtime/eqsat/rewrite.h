// Rewrite rules: a query (the left-hand side), guards, and what to add for
// each match (the right-hand side).
//
// The right-hand side is one of
//  - a pattern, instantiated with the match and merged with the matched class
//    (`(+ ?a 0) => ?a`);
//  - a multi-pattern `?x = p, ...` (egg's multi-pattern applier): each pattern
//    is instantiated and merged with ?x if ?x is bound, or binds ?x;
//  - a callback that adds whatever it wants and returns a class to merge with
//    the matched one, or nothing.
// Guards are conditions on the match (an analysis fact such as "invariant in
// loop ℓ" or "constant ≠ 0"). They run in the search phase, possibly on
// several threads at once, on a clean e-graph: they must only read it.
// Callbacks run in the apply phase, one at a time, on an e-graph that may be
// dirty (use find() and the analyses; lists may be stale).
#pragma once

#include <array>
#include <concepts>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "runtime/eqsat/egraph.h"
#include "runtime/eqsat/language.h"
#include "runtime/eqsat/pattern.h"
#include "runtime/eqsat/query.h"

namespace augur::eqsat {

// What a guard or a builder reads of the e-graph, narrowest first. The
// runner searches a rule whose parts all read Match or Classes
// incrementally (runner.h).
enum class Reads : std::uint8_t {
  // Of the classes the match binds (its root, its subpatterns' classes, its
  // variables), only their analysis data and which of them are equal. A
  // builder so marked adds nothing new when it builds a match it built
  // before.
  Match,
  // Their e-nodes too: a match binding a class that got e-nodes is searched
  // again. A builder so marked adds nothing new when it builds again a match
  // none of whose classes changed.
  Classes,
  // Anything else too (a class's children, a walk of the graph).
  Anything,
};

// A condition on a match, with what it reads (by default, anything).
class Guard {
 public:
  using Test = std::function<bool(const EGraph&, Id root, const Subst&)>;
  template <class F>
  requires(!std::same_as<std::decay_t<F>, Guard> &&
           std::is_invocable_r_v<bool, const F&, const EGraph&, Id, const Subst&>)
      Guard(F test, Reads reads = Reads::Anything)  // NOLINT: a lambda is a guard
      : test_(std::move(test)), reads_(reads) {}

  bool operator()(const EGraph& g, Id root, const Subst& s) const { return test_(g, root, s); }
  Reads reads() const { return reads_; }

 private:
  Test test_;
  Reads reads_;
};

using Builder = std::function<std::optional<Id>(EGraph&, Id root, const Subst&)>;

class Rewrite {
 public:
  // rhs's variables are numbered as in lhs.vars().
  Rewrite(std::string name, Query lhs, Pattern rhs);
  Rewrite(std::string name, Query lhs, std::vector<Query::Binding> rhs, VarTable rhs_vars);
  Rewrite(std::string name, Query lhs, Builder rhs, Reads reads = Reads::Anything);

  // `lhs => rhs` in egg's syntax: each side a pattern or a multi-pattern.
  // Throws jit::parse_error (an unbound variable on the right, bad syntax).
  static Rewrite parse(std::string name, std::string_view lhs, std::string_view rhs,
                       Language& language);
  // Reads the right-hand side at the cursor for `lhs`.
  static Rewrite parse(std::string name, Query lhs, TokenCursor& rhs, Language& language);

  // Adds a guard; all guards must hold for a match to apply.
  Rewrite& when(Guard guard);

  const std::string& name() const { return name_; }
  const Query& query() const { return lhs_; }
  // The right-hand side when it is a single pattern, else null.
  const Pattern* rhs_pattern() const { return std::get_if<Pattern>(&rhs_); }
  // The class variable named `name` (e.g. "?a"), for writing guards.
  std::uint32_t var(std::string_view name) const;

  // Whether its left-hand side is one pattern and its guards and right-hand
  // side read only the match: then a match found and applied at one
  // iteration is not worth finding again, and a new one needs a change in
  // the classes it binds (runner.h).
  bool incremental() const { return !lhs_.is_multi() && reads_ != Reads::Anything; }
  // The widest of what its guards and right-hand side read.
  Reads reads() const { return reads_; }

  // Whether a match the search found is worth applying: its guards hold and,
  // for a guarded rule that is not incremental and whose right-hand side is
  // a pattern, that pattern is not in the matched class already. Clean
  // e-graph only.
  bool worth_applying(const EGraph& egraph, Id root, const Subst& subst) const;
  // Applies one match; returns whether it merged two distinct classes.
  bool apply(EGraph& egraph, Id root, const Subst& subst, Reason why) const;

 private:
  struct MultiRhs {
    std::vector<Query::Binding> bindings;
    VarTable vars;
  };

  std::string name_;
  Query lhs_;
  std::variant<Pattern, MultiRhs, Builder> rhs_;
  std::vector<Guard> guards_;
  Reads reads_ = Reads::Match;
};

// `a <=> b`: the rule `name` (a => b) and `name-rev` (b => a). Both sides must
// be single patterns with the same variables.
std::array<Rewrite, 2> parse_bidirectional(const std::string& name, std::string_view a,
                                           std::string_view b, Language& language);

}  // namespace augur::eqsat
