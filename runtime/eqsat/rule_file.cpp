#include "runtime/eqsat/rule_file.h"

#include <algorithm>

namespace augur::eqsat {

namespace {

// Tokens that join the lines before and after them into one statement.
bool joins(const Token& t) {
  return t.kind == Token::Kind::Comma ||
         (t.kind == Token::Kind::Atom &&
          (t.text == "=>" || t.text == "<=>" || t.text == "=" || t.text == "if"));
}

// Splits tokens into statements (see the header).
std::vector<std::span<const Token>> statements(std::span<const Token> tokens) {
  std::vector<std::span<const Token>> out;
  std::size_t begin = 0;
  int depth = 0;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.kind == Token::Kind::Open) ++depth;
    if (t.kind == Token::Kind::Close) --depth;
    const bool last = i + 1 == tokens.size();
    if (last ||
        (depth <= 0 && !joins(t) && !joins(tokens[i + 1]) && tokens[i + 1].line != t.line)) {
      out.push_back(tokens.subspan(begin, i + 1 - begin));
      begin = i + 1;
      depth = 0;
    }
  }
  return out;
}

// Token positions of the statement's top-level atoms equal to `text`.
std::vector<std::size_t> top_level(std::span<const Token> tokens, std::string_view text) {
  std::vector<std::size_t> at;
  int depth = 0;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].kind == Token::Kind::Open) ++depth;
    if (tokens[i].kind == Token::Kind::Close) --depth;
    if (depth == 0 && tokens[i].kind == Token::Kind::Atom && tokens[i].text == text)
      at.push_back(i);
  }
  return at;
}

void add_guards(Rewrite& rule, TokenCursor& cursor, const GuardFactory& guards) {
  while (cursor.at_atom("if")) {
    cursor.next();
    const Token& open = cursor.next();
    if (open.kind != Token::Kind::Open) cursor.fail_at(open, "expected a guard '(name ?var...)'");
    const Token& name = cursor.next();
    std::vector<std::uint32_t> vars;
    while (cursor.peek().kind != Token::Kind::Close) {
      const Token& v = cursor.next();
      const std::optional<std::uint32_t> var = rule.query().vars().find_class(v.text);
      if (!var)
        cursor.fail_at(v, "guard argument '" + std::string(v.text) +
                              "' is not a variable of the left-hand side");
      vars.push_back(*var);
    }
    cursor.next();
    std::optional<Guard> guard = guards ? guards(name.text, vars) : std::nullopt;
    if (!guard) cursor.fail_at(name, "unknown guard '" + std::string(name.text) + "'");
    rule.when(std::move(*guard));
  }
}

void parse_rule(std::span<const Token> s, Language& language, const GuardFactory& guards,
                const std::string& file, std::vector<Rewrite>& out) {
  TokenCursor cursor(s, file);
  const Token& head = cursor.next();
  if (head.kind != Token::Kind::Atom || !head.text.ends_with(':') || head.text.size() < 2)
    cursor.fail_at(head, "expected a rule name followed by ':'");
  const std::string name(head.text.substr(0, head.text.size() - 1));
  const auto taken = [&](const std::string& n) {
    return std::any_of(out.begin(), out.end(), [&](const Rewrite& r) { return r.name() == n; });
  };
  if (taken(name) || (!top_level(s, "<=>").empty() && taken(name + "-rev")))
    cursor.fail_at(head, "rule '" + name + "' is defined twice");
  const std::vector<std::size_t> forward = top_level(s, "=>");
  const std::vector<std::size_t> both = top_level(s, "<=>");
  if (forward.size() + both.size() != 1) cursor.fail_at(head, "expected one '=>' or '<=>'");
  const std::size_t arrow = forward.empty() ? both[0] : forward[0];
  const std::vector<std::size_t> ifs = top_level(s, "if");
  const std::size_t end = ifs.empty() ? s.size() : ifs[0];
  if (end < arrow) cursor.fail_at(s[end], "'if' before the arrow");

  const auto parse_direction = [&](std::string rule_name, std::span<const Token> lhs,
                                   std::span<const Token> rhs) {
    TokenCursor l(lhs, file);
    if (l.done()) cursor.fail_at(head, "missing left-hand side");
    Query query = Query::parse(l, language);
    if (!l.done()) l.fail("unexpected text in the left-hand side");
    TokenCursor r(rhs, file);
    if (r.done()) cursor.fail_at(s[arrow], "missing right-hand side");
    Rewrite rule = Rewrite::parse(std::move(rule_name), std::move(query), r, language);
    if (!r.done()) r.fail("unexpected text in the right-hand side");
    TokenCursor g(s.subspan(end), file);
    add_guards(rule, g, guards);
    if (!g.done()) g.fail("unexpected text after the rule");
    return rule;
  };
  const std::span<const Token> lhs = s.subspan(1, arrow - 1);
  const std::span<const Token> rhs = s.subspan(arrow + 1, end - arrow - 1);
  out.push_back(parse_direction(name, lhs, rhs));
  if (!both.empty()) {
    out.push_back(parse_direction(name + "-rev", rhs, lhs));
    const auto names = [](const Rewrite& r) {
      std::vector<std::string> v(r.query().vars().class_names().begin(),
                                 r.query().vars().class_names().end());
      std::sort(v.begin(), v.end());
      return v;
    };
    const Rewrite& a = out[out.size() - 2];
    const Rewrite& b = out.back();
    if (a.query().is_multi() || b.query().is_multi() || names(a) != names(b))
      cursor.fail_at(s[arrow], "both sides of '<=>' must be patterns with the same variables");
  }
}

}  // namespace

std::vector<Rewrite> parse_rules(std::string_view text, Language& language,
                                 const GuardFactory& guards, const std::string& file) {
  const std::vector<Token> tokens = tokenize(text);
  std::vector<Rewrite> rules;
  for (std::span<const Token> s : statements(tokens)) parse_rule(s, language, guards, file, rules);
  return rules;
}

std::vector<TermEntry> parse_terms(std::string_view text, Language& language,
                                   const std::string& file) {
  const std::vector<Token> tokens = tokenize(text);
  std::vector<TermEntry> entries;
  for (std::span<const Token> s : statements(tokens)) {
    TokenCursor cursor(s, file);
    TermEntry entry;
    entry.start.roots.push_back(parse_term(cursor, language, entry.start));
    while (!cursor.done()) {
      if (!cursor.at_atom("=>")) cursor.fail("expected '=>' and a goal");
      cursor.next();
      Term goal;
      goal.roots.push_back(parse_term(cursor, language, goal));
      entry.goals.push_back(std::move(goal));
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace augur::eqsat
