// Tokens of the IR text form (docs/ir.md, "Text form"). Internal to the parser.
#pragma once

#include <string>
#include <string_view>

namespace augur::ir {

enum class TokenKind : unsigned char {
  End,     // end of input
  Name,    // [A-Za-z_][A-Za-z0-9_.]*: names, keywords, type and intrinsic names
  Number,  // a literal as written, sign and suffix included: "-1.5f32", "42i32", "0x7fc00001",
           // "-inf_f64"
  Punct,   // an operator or delimiter: "(", "->", "<<", ...
};

struct Token {
  TokenKind kind = TokenKind::End;
  std::string_view text;
  int line = 1;
  int column = 1;
};

// How a token reads in an error message: 'text', or "end of input".
std::string describe(const Token& token);

// Words that cannot name a variable, function or extern. Some of them (types,
// intrinsics, literals) can still begin an expression; statement keywords cannot.
bool is_keyword(std::string_view word);
bool is_reserved(std::string_view word);

// Splits text into tokens on demand, skipping whitespace and `//` comments.
// Rejects bytes the text form does not allow (control characters, non-ASCII
// outside comments, invalid UTF-8) with jit::parse_error.
//
// A '-' directly followed by a digit, `inf_f32` or `inf_f64` is the sign of a
// literal unless the previous token ends an operand (a name that is not a
// keyword, a literal, ')' or ']'): `x-1i32` subtracts, `x * -1i32` multiplies by
// the literal -1.
class Lexer {
 public:
  Lexer(std::string_view text, std::string file);

  Token next();
  const std::string& file() const { return file_; }

 private:
  [[noreturn]] void fail(int line, int column, const std::string& message) const;
  char peek(std::size_t ahead = 0) const;
  void advance_byte();
  void skip_space_and_comments();
  void check_comment_byte();
  Token lex_number(std::size_t start, int column);
  Token lex_name(std::size_t start, int column);
  Token lex_punct(std::size_t start, int column);
  bool starts_signed_literal() const;

  std::string_view text_;
  std::string file_;
  std::size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
  bool after_operand_ = false;  // the previous token can end an operand
};

}  // namespace augur::ir
