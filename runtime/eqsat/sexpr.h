// Tokens of the s-expression text forms (terms, patterns, rule files).
//
// Tokens are `(`, `)`, `,` and atoms: maximal runs of other non-space
// characters. `;` starts a comment that runs to the end of the line. Token
// text points into the source, which must outlive the tokens.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace augur::eqsat {

struct Token {
  enum class Kind { Open, Close, Comma, Atom };
  Kind kind;
  std::string_view text;
  int line = 1;    // 1-based
  int column = 1;  // 1-based
};

// The parsers of these forms recurse once per level, on any thread's stack:
// deeper text is a jit::parse_error from tokenize().
inline constexpr std::size_t kMaxNesting = 1000;

std::vector<Token> tokenize(std::string_view text);

// A read position in a token list; errors name the file, line and column.
class TokenCursor {
 public:
  TokenCursor(std::span<const Token> tokens, std::string file = {})
      : tokens_(tokens), file_(std::move(file)) {}

  bool done() const { return pos_ >= tokens_.size(); }
  const Token& peek() const;
  const Token& next();
  // Atoms in the form that starts here (an atom, or a parenthesized list to
  // its closing parenthesis or the end of input): a pattern's node count.
  std::size_t atoms_in_form() const;
  bool at_atom(std::string_view text) const {
    return !done() && peek().kind == Token::Kind::Atom && peek().text == text;
  }
  // Throws jit::parse_error at the current token (or at the end).
  [[noreturn]] void fail(const std::string& message) const;
  [[noreturn]] void fail_at(const Token& token, const std::string& message) const;

 private:
  std::span<const Token> tokens_;
  std::size_t pos_ = 0;
  std::string file_;
};

}  // namespace augur::eqsat
