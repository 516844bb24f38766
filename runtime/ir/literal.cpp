#include "runtime/ir/literal.h"

#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <limits>

#include "runtime/ir/builder.h"

namespace augur::ir {

namespace {

constexpr std::uint32_t kCanonicalNan32 = 0x7fc00000u;
constexpr std::uint64_t kCanonicalNan64 = 0x7ff8000000000000ull;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string hex_digits(std::uint64_t bits, int width) {
  std::array<char, 16> buf{};
  auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), bits, 16);
  std::string digits(buf.data(), end);
  return std::string(width - std::min<int>(width, static_cast<int>(digits.size())), '0') + digits;
}

template <class F>
std::string format_float(F value, std::uint64_t bits, std::string_view suffix) {
  const bool canonical_nan = sizeof(F) == 4 ? bits == kCanonicalNan32 : bits == kCanonicalNan64;
  if (std::isnan(value)) {
    if (canonical_nan) return "nan_" + std::string(suffix);
    return "nan_" + std::string(suffix) + "(0x" + hex_digits(bits, sizeof(F) * 2) + ")";
  }
  if (std::isinf(value)) return (value < 0 ? "-inf_" : "inf_") + std::string(suffix);
  std::array<char, 64> buf{};
  auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), value);
  std::string text(buf.data(), end);
  // A float literal needs a '.' or an exponent to differ from an integer.
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text + std::string(suffix);
}

template <class F>
LiteralRead read_float(std::string_view number, std::string_view literal, Type type) {
  F value{};
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size()) {
    return {nullptr,
            "float literal '" + std::string(literal) + "' is out of range for " + type.name()};
  }
  return {constant(value), {}};
}

LiteralRead read_integer(std::string_view digits, bool negative, std::string_view literal,
                         Type type) {
  const std::string out_of_range =
      "integer literal '" + std::string(literal) + "' is out of range for " + type.name();
  std::uint64_t magnitude = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
  if (ec != std::errc() || end != digits.data() + digits.size()) return {nullptr, out_of_range};
  const unsigned width = type.bits();
  const std::uint64_t all_ones = width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
  std::uint64_t limit = 0;
  if (type.is_signed()) {
    limit = (all_ones >> 1) + (negative ? 1 : 0);
  } else if (!negative) {
    limit = all_ones;
  }
  if (magnitude > limit) return {nullptr, out_of_range};
  return {constant(type, negative ? ~magnitude + 1 : magnitude), {}};
}

}  // namespace

std::string format_constant(const Expr& c) {
  return format_constant(c.type, c.bits);
}

std::string format_constant(Type type, std::uint64_t raw) {
  if (type.is_pointer()) {
    if (raw == 0) return "null(" + type.name() + ")";
    return "<invalid pointer constant 0x" + hex_digits(raw, 16) + ">";
  }
  const std::uint64_t bits = canonical_bits(type, raw);
  switch (type.scalar()) {
    case Scalar::Void:
      return "<void constant>";
    case Scalar::Bool:
      return bits != 0 ? "true" : "false";
    case Scalar::F32:
      return format_float(std::bit_cast<float>(static_cast<std::uint32_t>(bits)), bits, "f32");
    case Scalar::F64:
      return format_float(std::bit_cast<double>(bits), bits, "f64");
    default:
      break;
  }
  if (type.is_signed()) return std::to_string(sign_extend(bits, type.bits())) + type.name();
  return std::to_string(bits) + type.name();
}

LiteralRead read_number(std::string_view text) {
  const bool negative = text.starts_with('-');
  const std::string_view body = text.substr(negative ? 1 : 0);
  if (body == "inf_f32") return {constant(-std::numeric_limits<float>::infinity()), {}};
  if (body == "inf_f64") return {constant(-std::numeric_limits<double>::infinity()), {}};
  if (body.starts_with("0x") || body.starts_with("0X")) {
    return {nullptr, "hex numbers only give the bits of a NaN, as in nan_f64(0x7ff8000000000001)"};
  }
  // The lexer guarantees: digits ['.' digits] [e [+-] digits] suffix.
  std::size_t i = 0;
  while (i < body.size() && is_digit(body[i])) ++i;
  const std::string_view digits = body.substr(0, i);
  bool is_float = false;
  if (i < body.size() && body[i] == '.') {
    is_float = true;
    for (++i; i < body.size() && is_digit(body[i]);) ++i;
  }
  if (i + 1 < body.size() && (body[i] == 'e' || body[i] == 'E')) {
    std::size_t j = i + 1;
    if (body[j] == '+' || body[j] == '-') ++j;
    if (j < body.size() && is_digit(body[j])) {
      is_float = true;
      for (i = j; i < body.size() && is_digit(body[i]);) ++i;
    }
  }
  const std::string_view suffix = body.substr(i);
  const std::string literal(text);
  if (suffix.empty()) {
    return {nullptr, "literal '" + literal + "' needs a type suffix, as in 42i32 or 1.0f64"};
  }
  const std::optional<Type> type = Type::parse(suffix);
  if (!type || !type->is_arithmetic()) {
    return {nullptr, "invalid suffix '" + std::string(suffix) + "' on literal '" + literal + "'"};
  }
  const std::string_view number = text.substr(0, text.size() - suffix.size());
  if (is_float) {
    if (type->scalar() == Scalar::F32) return read_float<float>(number, literal, *type);
    if (type->scalar() == Scalar::F64) return read_float<double>(number, literal, *type);
    return {nullptr, "float literal '" + literal + "' needs the suffix f32 or f64"};
  }
  if (type->is_float()) {
    return {nullptr, "float literal '" + literal + "' needs a '.' or an exponent, as in 1.0f32"};
  }
  return read_integer(digits, negative, literal, *type);
}

ExprPtr read_word_constant(std::string_view word) {
  if (word == "true") return constant(true);
  if (word == "false") return constant(false);
  if (word == "inf_f32") return constant(std::numeric_limits<float>::infinity());
  if (word == "inf_f64") return constant(std::numeric_limits<double>::infinity());
  if (word == "nan_f32") return constant(Type::f32(), kCanonicalNan32);
  if (word == "nan_f64") return constant(Type::f64(), kCanonicalNan64);
  return nullptr;
}

LiteralRead read_nan_payload(Type type, std::string_view hex) {
  const std::string problem =
      "nan_" + type.name() + "(...) needs the bits of an " + type.name() +
      " NaN in hex, as in nan_" + type.name() +
      (type.scalar() == Scalar::F32 ? "(0x7fc00001)" : "(0x7ff8000000000001)") + ", got '" +
      std::string(hex) + "'";
  if (!hex.starts_with("0x") && !hex.starts_with("0X")) return {nullptr, problem};
  const std::string_view digits = hex.substr(2);
  std::uint64_t bits = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), bits, 16);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) {
    return {nullptr, problem};
  }
  const bool is_nan = type.scalar() == Scalar::F32
                          ? bits <= 0xffffffffu &&
                                std::isnan(std::bit_cast<float>(static_cast<std::uint32_t>(bits)))
                          : std::isnan(std::bit_cast<double>(bits));
  if (!is_nan) return {nullptr, problem};
  return {constant(type, bits), {}};
}

}  // namespace augur::ir
