#include "runtime/ir/lexer.h"

#include <array>
#include <cstdint>
#include <cstdio>

#include "jit/error.h"

namespace augur::ir {

namespace {

constexpr std::array<std::string_view, 13> kKeywords = {
    "extern", "fn",  "kernel", "var",      "shared", "if",     "else",
    "while",  "for", "break",  "continue", "return", "barrier"};

// Names that begin expressions: types (casts), literals and intrinsics.
constexpr std::array<std::string_view, 33> kExpressionWords = {
    "void",       "bool",       "i8",         "i16",
    "i32",        "i64",        "u8",         "u16",
    "u32",        "u64",        "f32",        "f64",
    "true",       "false",      "null",       "inf_f32",
    "inf_f64",    "nan_f32",    "nan_f64",    "sqrt",
    "fabs",       "floor",      "exp",        "log",
    "pow",        "min",        "max",        "fma",
    "atomic_add", "atomic_min", "atomic_max", "atomic_exchange",
    "atomic_cas"};
// GPU index names, also reserved with any ".suffix" (thread_idx.x).
constexpr std::array<std::string_view, 4> kGpuIndices = {"thread_idx", "block_idx", "block_dim",
                                                         "grid_dim"};

// Two-character operators win over their first character ("<<" over "<").
constexpr std::array<std::string_view, 9> kTwoCharPuncts = {
    "->", "==", "!=", "<=", ">=", "<<", ">>", "&&", "||"};
constexpr std::string_view kOneCharPuncts = "(){}[],;:?@=<>+-*/%&|^~!";

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_suffix_char(char c) {
  return is_name_start(c) || is_digit(c);
}
bool is_name_char(char c) {
  return is_suffix_char(c) || c == '.';
}

template <std::size_t N>
bool contains(const std::array<std::string_view, N>& words, std::string_view word) {
  for (std::string_view w : words) {
    if (w == word) return true;
  }
  return false;
}

std::string code_point_name(std::uint32_t cp) {
  std::array<char, 16> buf{};
  std::snprintf(buf.data(), buf.size(), "U+%04X", static_cast<unsigned>(cp));
  return buf.data();
}

// Decodes the UTF-8 sequence at text[pos]; returns its length (0 if invalid)
// and stores the code point.
std::size_t decode_utf8(std::string_view text, std::size_t pos, std::uint32_t& cp) {
  const auto byte = [&](std::size_t i) -> std::uint32_t {
    return pos + i < text.size() ? static_cast<unsigned char>(text[pos + i]) : 0;
  };
  const std::uint32_t b0 = byte(0);
  std::size_t length = 0;
  std::uint32_t low = 0x80, high = 0xbf;  // allowed range of the second byte
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  } else if (b0 >= 0xc2 && b0 <= 0xdf) {
    length = 2;
    cp = b0 & 0x1f;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    length = 3;
    cp = b0 & 0x0f;
    if (b0 == 0xe0) low = 0xa0;   // overlong
    if (b0 == 0xed) high = 0x9f;  // surrogates
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    length = 4;
    cp = b0 & 0x07;
    if (b0 == 0xf0) low = 0x90;   // overlong
    if (b0 == 0xf4) high = 0x8f;  // above U+10FFFF
  } else {
    return 0;
  }
  for (std::size_t i = 1; i < length; ++i) {
    const std::uint32_t b = byte(i);
    if (b < (i == 1 ? low : 0x80) || b > (i == 1 ? high : 0xbf)) return 0;
    cp = (cp << 6) | (b & 0x3f);
  }
  return length;
}

bool is_control(unsigned char c) {
  return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f;
}

}  // namespace

std::string describe(const Token& token) {
  if (token.kind == TokenKind::End) return "end of input";
  return "'" + std::string(token.text) + "'";
}

bool is_keyword(std::string_view word) {
  return contains(kKeywords, word);
}

bool is_reserved(std::string_view word) {
  if (is_keyword(word) || contains(kExpressionWords, word)) return true;
  const std::string_view base = word.substr(0, word.find('.'));
  return contains(kGpuIndices, base);
}

Lexer::Lexer(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {}

void Lexer::fail(int line, int column, const std::string& message) const {
  throw jit::parse_error(message, jit::location::in_text(file_, line, column));
}

char Lexer::peek(std::size_t ahead) const {
  return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
}

void Lexer::advance_byte() {
  if (text_[pos_] == '\n') {
    ++line_;
    column_ = 1;
  } else {
    ++column_;
  }
  ++pos_;
}

void Lexer::check_comment_byte() {
  const auto c = static_cast<unsigned char>(text_[pos_]);
  if (is_control(c)) fail(line_, column_, "unexpected control character " + code_point_name(c));
  std::uint32_t cp = 0;
  const std::size_t length = decode_utf8(text_, pos_, cp);
  if (length == 0) fail(line_, column_, "invalid UTF-8 in comment");
  for (std::size_t i = 0; i < length; ++i) advance_byte();
}

void Lexer::skip_space_and_comments() {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      advance_byte();
    } else if (c == '/' && peek(1) == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n') check_comment_byte();
    } else {
      return;
    }
  }
}

bool Lexer::starts_signed_literal() const {
  if (after_operand_ || peek() != '-') return false;
  if (is_digit(peek(1))) return true;
  const std::string_view rest = text_.substr(pos_ + 1);
  for (std::string_view special : {"inf_f32", "inf_f64"}) {
    if (rest.starts_with(special) &&
        (rest.size() == special.size() || !is_name_char(rest[special.size()]))) {
      return true;
    }
  }
  return false;
}

Token Lexer::next() {
  skip_space_and_comments();
  const std::size_t start = pos_;
  const int column = column_;
  Token token;
  if (pos_ >= text_.size()) {
    token = {TokenKind::End, {}, line_, column};
  } else if (starts_signed_literal() || is_digit(peek())) {
    token = lex_number(start, column);
  } else if (is_name_start(peek())) {
    token = lex_name(start, column);
  } else {
    token = lex_punct(start, column);
  }
  after_operand_ = token.kind == TokenKind::Number ||
                   (token.kind == TokenKind::Name && !is_keyword(token.text)) ||
                   token.text == ")" || token.text == "]";
  return token;
}

Token Lexer::lex_number(std::size_t start, int column) {
  // Tokens never span lines, so line_ is also the token's line.
  const auto take_while = [&](auto predicate) {
    while (pos_ < text_.size() && predicate(text_[pos_])) advance_byte();
  };
  if (peek() == '-') advance_byte();
  if (is_name_start(peek())) {  // -inf_f32, -inf_f64
    take_while(is_suffix_char);
  } else if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
    advance_byte();
    advance_byte();
    take_while(is_suffix_char);
  } else {
    take_while(is_digit);
    if (peek() == '.') {
      advance_byte();
      if (!is_digit(peek())) fail(line_, column_, "expected a digit after '.' in a number");
      take_while(is_digit);
    }
    const bool sign = peek(1) == '+' || peek(1) == '-';
    if ((peek() == 'e' || peek() == 'E') && is_digit(peek(sign ? 2 : 1))) {
      advance_byte();
      if (sign) advance_byte();
      take_while(is_digit);
    }
    take_while(is_suffix_char);
  }
  return {TokenKind::Number, text_.substr(start, pos_ - start), line_, column};
}

Token Lexer::lex_name(std::size_t start, int column) {
  while (pos_ < text_.size() && is_name_char(text_[pos_])) advance_byte();
  return {TokenKind::Name, text_.substr(start, pos_ - start), line_, column};
}

Token Lexer::lex_punct(std::size_t start, int column) {
  const std::string_view rest = text_.substr(pos_);
  std::size_t length = 0;
  for (std::string_view p : kTwoCharPuncts) {
    if (rest.size() >= 2 && rest[0] == p[0] && rest[1] == p[1]) length = 2;
  }
  if (length == 0 && kOneCharPuncts.find(rest[0]) != std::string_view::npos) length = 1;
  if (length > 0) {
    for (std::size_t i = 0; i < length; ++i) advance_byte();
    return {TokenKind::Punct, text_.substr(start, length), line_, column};
  }
  const auto c = static_cast<unsigned char>(rest[0]);
  if (is_control(c)) fail(line_, column, "unexpected control character " + code_point_name(c));
  if (c >= 0x80) {
    std::uint32_t cp = 0;
    if (decode_utf8(text_, pos_, cp) == 0) fail(line_, column, "invalid UTF-8");
    fail(line_, column, "unexpected character " + code_point_name(cp) + " outside a comment");
  }
  fail(line_, column, "unexpected character '" + std::string(1, rest[0]) + "'");
}

}  // namespace augur::ir
