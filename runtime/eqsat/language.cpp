#include "runtime/eqsat/language.h"

#include <bit>
#include <charconv>
#include <cmath>

namespace augur::eqsat {

SymbolLanguage::SymbolLanguage() {
  names_.emplace_back("<number>");
}

Op SymbolLanguage::op(std::string_view name) {
  if (auto it = ops_.find(name); it != ops_.end()) return it->second;
  const auto op = static_cast<Op>(names_.size());
  names_.emplace_back(name);
  ops_.emplace(std::string(name), op);
  return op;
}

std::optional<Label> SymbolLanguage::parse_label(std::string_view token, std::size_t arity) {
  if (auto value = parse_number(token)) {
    if (arity != 0) return std::nullopt;
    return number(*value);
  }
  return Label{op(token), 0};
}

std::optional<Op> SymbolLanguage::parse_op(std::string_view token) {
  if (parse_number(token)) return std::nullopt;
  return op(token);
}

std::string SymbolLanguage::print_label(Label label) const {
  if (auto value = number_value(label)) return print_number(*value);
  return names_[label.op];
}

Label SymbolLanguage::number(double value) {
  if (value == 0) value = 0;  // one zero: -0 and 0 are the same constant
  return {kNumber, std::bit_cast<std::uint64_t>(value)};
}

std::optional<double> SymbolLanguage::number_value(Label label) {
  if (label.op != kNumber) return std::nullopt;
  return std::bit_cast<double>(label.payload);
}

std::optional<double> SymbolLanguage::parse_number(std::string_view token) {
  // Only tokens that start like a number: "-" and "+" are operators, and
  // from_chars would accept "inf" and "nan".
  std::size_t i = (!token.empty() && (token[0] == '-' || token[0] == '+')) ? 1 : 0;
  if (i < token.size() && token[i] == '.') ++i;
  if (i >= token.size() || token[i] < '0' || token[i] > '9') return std::nullopt;
  const char* first = token.data() + (token[0] == '+' ? 1 : 0);
  double value = 0;
  auto [end, ec] = std::from_chars(first, token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size()) return std::nullopt;
  return value;
}

std::string SymbolLanguage::print_number(double value) {
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, ec == std::errc() ? end : buffer);
}

}  // namespace augur::eqsat
