// The text files of rules and terms the command-line driver reads; plain egg
// syntax, so an egg harness can read the same files.
//
// A statement ends at the end of a line, unless a parenthesis is open or the
// line ends with, or the next begins with, `=>`, `<=>`, `,`, `=` or `if`.
// `;` starts a comment.
//
// Rules file, one rule per statement (egg's rw!(name; lhs => rhs)):
//   comm-add: (+ ?a ?b) => (+ ?b ?a)
//   zero-add: (+ ?a 0) <=> ?a                  ; the rule and zero-add-rev
//   div-canon: (/ ?a ?b) => (* ?a (pow ?b -1)) if (not-zero ?b)
//   pair: ?x = (f ?a), ?y = (g ?a) => ?x = ?y  ; multi-patterns
// A guard `(name ?var...)` is resolved by the client (GuardFactory).
//
// Terms file, one term per statement, optionally with goals: terms that must
// end up in the same class.
//   (+ 1 (- a (* (- 2 1) a))) => 1
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/eqsat/language.h"
#include "runtime/eqsat/rewrite.h"
#include "runtime/eqsat/term.h"

namespace augur::eqsat {

// The guard `name` over the given class variables, or nullopt if unknown.
using GuardFactory =
    std::function<std::optional<Guard>(std::string_view name, std::span<const std::uint32_t> vars)>;

// Throws jit::parse_error naming `file`, the line and the column.
std::vector<Rewrite> parse_rules(std::string_view text, Language& language,
                                 const GuardFactory& guards, const std::string& file = {});

struct TermEntry {
  Term start;
  std::vector<Term> goals;
};
std::vector<TermEntry> parse_terms(std::string_view text, Language& language,
                                   const std::string& file = {});

}  // namespace augur::eqsat
