#include "runtime/eqsat/sexpr.h"

#include "jit/error.h"

namespace augur::eqsat {

std::vector<Token> tokenize(std::string_view text) {
  std::vector<Token> tokens;
  // A token takes at least one character and usually a delimiter: no regrowth
  // for the rule texts, which are short and many.
  tokens.reserve(text.size() / 2 + 1);
  std::size_t open = 0;  // parentheses not yet closed
  int line = 1;
  int column = 1;
  std::size_t i = 0;
  const auto is_delimiter = [](char c) {
    return c == '(' || c == ')' || c == ',' || c == ';' || c == ' ' || c == '\t' || c == '\n' ||
           c == '\r';
  };
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      column = 1;
      ++i;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++column;
      ++i;
    } else if (c == ';') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '(' || c == ')' || c == ',') {
      const Token::Kind kind = c == '('   ? Token::Kind::Open
                               : c == ')' ? Token::Kind::Close
                                          : Token::Kind::Comma;
      tokens.push_back({kind, text.substr(i, 1), line, column});
      if (kind == Token::Kind::Open && ++open > kMaxNesting) {
        throw jit::parse_error("nested more than " + std::to_string(kMaxNesting) + " levels deep",
                               jit::location::in_text({}, line, column));
      }
      if (kind == Token::Kind::Close && open > 0) --open;
      ++column;
      ++i;
    } else {
      std::size_t end = i;
      while (end < text.size() && !is_delimiter(text[end])) ++end;
      tokens.push_back({Token::Kind::Atom, text.substr(i, end - i), line, column});
      column += static_cast<int>(end - i);
      i = end;
    }
  }
  return tokens;
}

const Token& TokenCursor::peek() const {
  if (done()) fail("unexpected end of input");
  return tokens_[pos_];
}

const Token& TokenCursor::next() {
  const Token& t = peek();
  ++pos_;
  return t;
}

std::size_t TokenCursor::atoms_in_form() const {
  std::size_t atoms = 0;
  std::size_t open = 0;
  for (std::size_t i = pos_; i < tokens_.size(); ++i) {
    const Token::Kind kind = tokens_[i].kind;
    if (kind == Token::Kind::Atom) ++atoms;
    if (kind == Token::Kind::Open) ++open;
    if (kind == Token::Kind::Close && open > 0) --open;
    if (open == 0) break;
  }
  return atoms;
}

void TokenCursor::fail(const std::string& message) const {
  if (done()) {
    const Token* last = tokens_.empty() ? nullptr : &tokens_.back();
    throw jit::parse_error(
        message, jit::location::in_text(file_, last ? last->line : 1, last ? last->column : 1));
  }
  fail_at(tokens_[pos_], message);
}

void TokenCursor::fail_at(const Token& token, const std::string& message) const {
  throw jit::parse_error(message, jit::location::in_text(file_, token.line, token.column));
}

}  // namespace augur::eqsat
