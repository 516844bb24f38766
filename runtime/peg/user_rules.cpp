#include "runtime/peg/user_rules.h"

#include <algorithm>
#include <mutex>
#include <shared_mutex>

#include "jit/error.h"
#include "jit/rules.h"
#include "runtime/peg/extern_names.h"
#include "runtime/peg/peg_language.h"

namespace augur::peg {

namespace {

struct Rule {
  std::string name;
  std::string lhs, rhs;
};

class Registry {
 public:
  void add(Rule rule) {
    std::unique_lock lock(mutex_);
    auto it = std::find_if(rules_.begin(), rules_.end(),
                           [&](const Rule& r) { return r.name == rule.name; });
    if (it != rules_.end()) {
      *it = std::move(rule);
    } else {
      rules_.push_back(std::move(rule));
    }
  }
  bool remove(std::string_view name) {
    std::unique_lock lock(mutex_);
    return std::erase_if(rules_, [&](const Rule& r) { return r.name == name; }) > 0;
  }
  std::vector<Rule> snapshot() const {
    std::shared_lock lock(mutex_);
    return rules_;
  }
  static Registry& instance() {
    // Never destroyed: compiles may run during static destruction.
    static Registry* registry = new Registry;
    return *registry;
  }

 private:
  mutable std::shared_mutex mutex_;
  std::vector<Rule> rules_;
};

// "lhs => rhs" split at its arrow.
std::pair<std::string, std::string> split(std::string_view name, std::string_view rule) {
  const std::size_t arrow = rule.find("=>");
  if (arrow == std::string_view::npos || rule.find("=>", arrow + 2) != std::string_view::npos)
    throw jit::parse_error("rule '" + std::string(name) + "': expected 'lhs => rhs'");
  return {std::string(rule.substr(0, arrow)), std::string(rule.substr(arrow + 2))};
}

// A label the pattern names: calls are what rules may name.
void collect_calls(const eqsat::Pattern& p, std::vector<eqsat::Label>& out) {
  for (const eqsat::PatternNode& n : p.nodes)
    if (n.kind == eqsat::PatternNode::Kind::Node) out.push_back(n.label);
}

}  // namespace

ir::Hash128 registered_rules_hash() {
  ir::Hasher hasher;
  for (const Rule& rule : Registry::instance().snapshot()) {
    hasher.add(rule.name);
    hasher.add(rule.lhs);
    hasher.add(rule.rhs);
  }
  return hasher.finish();
}

UserRuleSet user_rules_for(const ir::Module& module, const ir::ExternTable* externs) {
  UserRuleSet out;
  const std::vector<Rule> rules = Registry::instance().snapshot();
  if (rules.empty()) return out;
  PegLanguage language;
  for (const ir::ExternRef& e : module.externs) language.add_extern(*e);
  language.set_extern_table(externs);
  for (const Rule& r : rules) {
    try {
      eqsat::Rewrite rewrite = eqsat::Rewrite::parse(r.name, r.lhs, r.rhs, language);
      std::vector<eqsat::Label> labels;
      for (const eqsat::Query::Binding& b : rewrite.query().bindings())
        collect_calls(b.pattern, labels);
      if (const eqsat::Pattern* rhs = rewrite.rhs_pattern()) collect_calls(*rhs, labels);
      std::string impure;
      std::unordered_map<std::uint64_t, ir::ExternRef> named;
      for (const eqsat::Label& l : labels) {
        const Kind k = kind_of(l.op);
        if (k == Kind::CallRead || k == Kind::CallEffect) impure = extern_name(l.payload);
        if (k != Kind::CallPure) continue;
        const ir::ExternFn* decl = language.find_extern(extern_name(l.payload));
        if (!decl) throw jit::error("unknown extern '" + extern_name(l.payload) + "'");
        named.emplace(l.payload, std::make_shared<const ir::ExternFn>(*decl));
      }
      if (!impure.empty()) {
        out.skipped.push_back(r.name + ": '" + impure + "' is not pure");
        continue;
      }
      out.externs.merge(named);
      out.rules.push_back(std::move(rewrite));
    } catch (const jit::error& e) {
      out.skipped.push_back(r.name + ": " + e.message());
    }
  }
  return out;
}

}  // namespace augur::peg

namespace jit {

void register_rule(std::string name, std::string_view rule) {
  auto [lhs, rhs] = augur::peg::split(name, rule);
  // Well-formed in any language: balanced, variables bound on the right.
  augur::eqsat::SymbolLanguage syntax;
  try {
    augur::eqsat::Rewrite::parse(name, lhs, rhs, syntax);
  } catch (const jit::error& e) {
    throw jit::parse_error("rule '" + name + "': " + e.message(), e.where());
  }
  augur::peg::Registry::instance().add({std::move(name), std::move(lhs), std::move(rhs)});
}

bool unregister_rule(std::string_view name) {
  return augur::peg::Registry::instance().remove(name);
}

std::vector<std::string> registered_rules() {
  std::vector<std::string> names;
  for (const auto& r : augur::peg::Registry::instance().snapshot()) names.push_back(r.name);
  return names;
}

}  // namespace jit
