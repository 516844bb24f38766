#include "runtime/eqsat/pattern.h"

#include <algorithm>
#include <array>

namespace augur::eqsat {

namespace {
std::optional<std::uint32_t> find_name(const std::vector<std::string>& names,
                                       std::string_view name) {
  auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) return std::nullopt;
  return static_cast<std::uint32_t>(it - names.begin());
}
}  // namespace

std::optional<std::uint32_t> VarTable::find_class(std::string_view name) const {
  return find_name(classes_, name);
}
std::optional<std::uint32_t> VarTable::find_payload(std::string_view name) const {
  return find_name(payloads_, name);
}
std::uint32_t VarTable::add_class(std::string_view name) {
  classes_.emplace_back(name);
  return static_cast<std::uint32_t>(classes_.size() - 1);
}
std::uint32_t VarTable::add_payload(std::string_view name) {
  payloads_.emplace_back(name);
  return static_cast<std::uint32_t>(payloads_.size() - 1);
}

namespace {

bool is_var_name(std::string_view token) {
  return token.size() > 1 && token[0] == '?';
}

std::uint32_t parse_node(TokenCursor& cursor, Language& language, VarTable& vars, NewVars new_vars,
                         Pattern& pattern) {
  const Token& first = cursor.next();
  if (first.kind == Token::Kind::Atom && is_var_name(first.text)) {
    std::optional<std::uint32_t> var = vars.find_class(first.text);
    if (!var && vars.find_payload(first.text))
      cursor.fail_at(first, "'" + std::string(first.text) + "' is a payload variable");
    if (!var && new_vars == NewVars::Forbidden)
      cursor.fail_at(first, "variable '" + std::string(first.text) + "' is not bound");
    if (!var) var = vars.add_class(first.text);
    PatternNode node;
    node.kind = PatternNode::Kind::Var;
    node.var = *var;
    pattern.nodes.push_back(node);
    return pattern.root();
  }
  const Token* head = &first;
  PatternNode node;
  if (first.kind == Token::Kind::Open) {
    head = &cursor.next();
    if (head->kind != Token::Kind::Atom) cursor.fail_at(*head, "expected an operator");
    while (cursor.peek().kind != Token::Kind::Close)
      node.children.push_back(parse_node(cursor, language, vars, new_vars, pattern));
    cursor.next();
  } else if (first.kind != Token::Kind::Atom) {
    cursor.fail_at(first, "expected a pattern, got '" + std::string(first.text) + "'");
  }
  std::string_view op_text = head->text;
  if (const std::size_t colon = op_text.find(":?"); colon != std::string_view::npos) {
    const std::string_view name = op_text.substr(colon + 1);
    if (vars.find_class(name))
      cursor.fail_at(*head, "'" + std::string(name) + "' is a class variable");
    std::optional<std::uint32_t> var = vars.find_payload(name);
    if (!var && new_vars == NewVars::Forbidden)
      cursor.fail_at(*head, "payload variable '" + std::string(name) + "' is not bound");
    if (!var) var = vars.add_payload(name);
    op_text = op_text.substr(0, colon);
    const std::optional<Op> op = language.parse_op(op_text);
    if (!op) cursor.fail_at(*head, "unknown operator '" + std::string(op_text) + "'");
    node.label = Label{*op, 0};
    node.payload = *var;
  } else {
    const std::optional<Label> label = language.parse_label(op_text, node.children.size());
    if (!label)
      cursor.fail_at(*head, "unknown operator '" + std::string(op_text) + "' with " +
                                std::to_string(node.children.size()) + " children");
    node.label = *label;
  }
  pattern.nodes.push_back(std::move(node));
  return pattern.root();
}

}  // namespace

Pattern parse_pattern(TokenCursor& cursor, Language& language, VarTable& vars, NewVars new_vars) {
  Pattern pattern;
  pattern.nodes.reserve(cursor.atoms_in_form());
  parse_node(cursor, language, vars, new_vars, pattern);
  return pattern;
}

Pattern parse_pattern(std::string_view text, Language& language, VarTable& vars, NewVars new_vars) {
  const std::vector<Token> tokens = tokenize(text);
  TokenCursor cursor(tokens);
  Pattern pattern = parse_pattern(cursor, language, vars, new_vars);
  if (!cursor.done()) cursor.fail("unexpected text after the pattern");
  return pattern;
}

namespace {

// Builds `pattern`'s nodes children first for `subst`, each with
// `node(label, children)`; stops at the first node it returns nothing for.
template <class NodeFn>
std::optional<Id> build(const Pattern& pattern, const Subst& subst, NodeFn node) {
  // Rules are small: keep the ids on the stack when they fit.
  const std::vector<PatternNode>& nodes = pattern.nodes;
  std::array<Id, 16> small_ids;
  std::vector<Id> large_ids;
  std::span<Id> ids(small_ids.data(), nodes.size());
  if (nodes.size() > small_ids.size()) {
    large_ids.resize(nodes.size());
    ids = large_ids;
  }
  std::array<Id, 8> small_children;
  std::vector<Id> large_children;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const PatternNode& n = nodes[i];
    if (n.kind == PatternNode::Kind::Var) {
      ids[i] = subst[n.var];
      continue;
    }
    std::span<Id> children(small_children.data(), n.children.size());
    if (n.children.size() > small_children.size()) {
      large_children.resize(n.children.size());
      children = large_children;
    }
    for (std::size_t k = 0; k < n.children.size(); ++k) children[k] = ids[n.children[k]];
    Label label = n.label;
    if (n.payload) label.payload = subst.payloads[*n.payload];
    const std::optional<Id> id = node(label, std::span<const Id>(children));
    if (!id) return std::nullopt;
    ids[i] = *id;
  }
  return ids[nodes.size() - 1];
}

}  // namespace

Id Pattern::instantiate(EGraph& egraph, const Subst& subst, bool exact) const {
  return *build(*this, subst, [&](Label label, std::span<const Id> children) -> std::optional<Id> {
    return exact ? egraph.add_uncanonical(label, children) : egraph.add(label, children);
  });
}

std::optional<Id> Pattern::lookup(const EGraph& egraph, const Subst& subst) const {
  const std::optional<Id> id = build(*this, subst, [&](Label label, std::span<const Id> children) {
    return egraph.lookup(label, children);
  });
  return id ? std::optional<Id>(egraph.find(*id)) : std::nullopt;
}

namespace {
void print_node(const Pattern& p, std::uint32_t i, const Language& language, const VarTable& vars,
                std::string& out) {
  const PatternNode& n = p.nodes[i];
  if (n.kind == PatternNode::Kind::Var) {
    out += vars.class_names()[n.var];
    return;
  }
  const std::string head =
      n.payload ? language.print_op(n.label.op) + ":" + vars.payload_names()[*n.payload]
                : language.print_label(n.label);
  if (n.children.empty()) {
    out += head;
    return;
  }
  out += "(" + head;
  for (std::uint32_t c : n.children) {
    out += ' ';
    print_node(p, c, language, vars, out);
  }
  out += ')';
}
}  // namespace

std::string print_pattern(const Pattern& pattern, const Language& language, const VarTable& vars) {
  std::string out;
  print_node(pattern, pattern.root(), language, vars, out);
  return out;
}

}  // namespace augur::eqsat
