#include "runtime/eqsat/term.h"

#include <algorithm>
#include <utility>

namespace augur::eqsat {

std::uint32_t parse_term(TokenCursor& cursor, Language& language, Term& term) {
  const Token& first = cursor.next();
  Term::Node node;
  const Token* head = &first;
  if (first.kind == Token::Kind::Open) {
    head = &cursor.next();
    if (head->kind != Token::Kind::Atom) cursor.fail_at(*head, "expected an operator");
    while (cursor.peek().kind != Token::Kind::Close)
      node.children.push_back(parse_term(cursor, language, term));
    cursor.next();
  } else if (first.kind != Token::Kind::Atom) {
    cursor.fail_at(first, "expected a term, got '" + std::string(first.text) + "'");
  }
  if (head->text.starts_with('?'))
    cursor.fail_at(*head, "pattern variable '" + std::string(head->text) + "' in a term");
  const std::optional<Label> label = language.parse_label(head->text, node.children.size());
  if (!label)
    cursor.fail_at(*head, "unknown operator '" + std::string(head->text) + "' with " +
                              std::to_string(node.children.size()) + " children");
  node.label = *label;
  term.nodes.push_back(std::move(node));
  return static_cast<std::uint32_t>(term.nodes.size() - 1);
}

Term parse_term(std::string_view text, Language& language) {
  const std::vector<Token> tokens = tokenize(text);
  TokenCursor cursor(tokens);
  Term term;
  term.roots.push_back(parse_term(cursor, language, term));
  if (!cursor.done()) cursor.fail("unexpected text after the term");
  return term;
}

namespace {

// Marks the nodes a cycle returns to, so the printer can name them.
void find_cycle_targets(const Term& term, std::uint32_t root, std::vector<bool>& targets) {
  enum : std::uint8_t { kNew, kOnStack, kDone };
  std::vector<std::uint8_t> state(term.nodes.size(), kNew);
  std::vector<std::pair<std::uint32_t, std::size_t>> stack{{root, 0}};
  state[root] = kOnStack;
  while (!stack.empty()) {
    auto& [n, next] = stack.back();
    if (next == term.nodes[n].children.size()) {
      state[n] = kDone;
      stack.pop_back();
      continue;
    }
    const std::uint32_t c = term.nodes[n].children[next++];
    if (state[c] == kOnStack) targets[c] = true;
    if (state[c] == kNew) {
      state[c] = kOnStack;
      stack.push_back({c, 0});
    }
  }
}

// `seen` marks cycle targets already written: they are referred to as #k.
void print_node(const Term& term, const Language& language, std::uint32_t n,
                const std::vector<bool>& targets, std::vector<bool>& seen, std::string& out) {
  if (seen[n]) {
    out += "#" + std::to_string(n);
    return;
  }
  if (targets[n]) {
    out += "#" + std::to_string(n) + "=";
    seen[n] = true;
  }
  const Term::Node& node = term.nodes[n];
  if (node.children.empty()) {
    out += language.print_label(node.label);
    return;
  }
  out += "(" + language.print_label(node.label);
  for (std::uint32_t c : node.children) {
    out += ' ';
    print_node(term, language, c, targets, seen, out);
  }
  out += ')';
}

}  // namespace

std::string print_term(const Term& term, const Language& language, std::uint32_t node) {
  std::vector<bool> targets(term.nodes.size(), false);
  find_cycle_targets(term, node, targets);
  std::vector<bool> seen(term.nodes.size(), false);
  std::string out;
  print_node(term, language, node, targets, seen, out);
  return out;
}

std::string print_term(const Term& term, const Language& language) {
  return print_term(term, language, term.root());
}

namespace {
Id add_nodes(EGraph& egraph, const Term& term, std::uint32_t node, bool exact) {
  // Nodes referred to before they are added get a placeholder first.
  std::vector<std::optional<Id>> ids(term.nodes.size());
  std::vector<std::optional<Id>> placeholders(term.nodes.size());
  std::vector<Id> children;
  for (std::uint32_t n = 0; n < term.nodes.size(); ++n) {
    children.clear();
    for (std::uint32_t c : term.nodes[n].children) {
      if (!ids[c]) {
        if (!placeholders[c]) placeholders[c] = egraph.add_placeholder();
        children.push_back(*placeholders[c]);
      } else {
        children.push_back(*ids[c]);
      }
    }
    ids[n] = exact ? egraph.add_uncanonical(term.nodes[n].label, children)
                   : egraph.add(term.nodes[n].label, children);
    if (placeholders[n]) egraph.merge(*ids[n], *placeholders[n]);
  }
  return *ids[node];
}
}  // namespace

Id add_term(EGraph& egraph, const Term& term, std::uint32_t node) {
  return egraph.find(add_nodes(egraph, term, node, false));
}

Id add_term(EGraph& egraph, const Term& term) {
  return add_term(egraph, term, term.root());
}

Id add_term_exact(EGraph& egraph, const Term& term) {
  return add_nodes(egraph, term, term.root(), true);
}

std::optional<Id> lookup_term(const EGraph& egraph, const Term& term) {
  std::vector<Id> ids(term.nodes.size());
  std::vector<Id> children;
  for (std::uint32_t n = 0; n < term.nodes.size(); ++n) {
    children.clear();
    for (std::uint32_t c : term.nodes[n].children) {
      if (c >= n) return std::nullopt;
      children.push_back(ids[c]);
    }
    const std::optional<Id> id = egraph.lookup(term.nodes[n].label, children);
    if (!id) return std::nullopt;
    ids[n] = *id;
  }
  return ids[term.root()];
}

}  // namespace augur::eqsat
