// The process-wide registry of user rules (include/jit/rules.h) and their
// translation into e-graph rewrites for one module.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/eqsat/rewrite.h"
#include "runtime/ir/externs.h"
#include "runtime/ir/hash.h"
#include "runtime/ir/ir.h"

namespace augur::peg {

struct UserRuleSet {
  std::vector<eqsat::Rewrite> rules;
  // Declarations of the externs the rules name, by name id.
  std::unordered_map<std::uint64_t, ir::ExternRef> externs;
  // Rules left out, with why (an extern neither the module nor the table
  // declares, or one that is not pure).
  std::vector<std::string> skipped;
};

// The registered rules, typed by the externs `module` declares and, for
// externs it does not call yet, by `externs` (may be null).
UserRuleSet user_rules_for(const ir::Module& module, const ir::ExternTable* externs);

// A hash of the registered rules (names and texts, in order): what the disk
// cache keys optimized code on.
ir::Hash128 registered_rules_hash();

}  // namespace augur::peg
