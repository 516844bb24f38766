// How e-node labels are written: the client's operator set seen as text.
//
// The s-expression forms (terms, patterns, rules) map one-to-one onto egg's:
// `(op child...)`, atoms for leaves (numbers, symbols), `?name` for pattern
// variables. A Language turns an operator token into a Label and back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/eqsat/id.h"

namespace augur::eqsat {

class Language {
 public:
  virtual ~Language() = default;
  // The label a token denotes when it heads a list with `arity` children (or
  // stands alone as a leaf, arity 0). Returns nullopt for an unknown token.
  virtual std::optional<Label> parse_label(std::string_view token, std::size_t arity) = 0;
  // The operator named `token`, for patterns that bind the payload to a
  // variable (`op:?p`); nullopt if there is none.
  virtual std::optional<Op> parse_op(std::string_view token) = 0;
  // Text that parse_label reads back as the same label.
  virtual std::string print_label(Label label) const = 0;
  // Text that parse_op reads back as the same operator.
  virtual std::string print_op(Op op) const = 0;
};

// egg's SymbolLang plus numbers: any symbol is an operator (interned on first
// use; the payload is 0), and a numeric literal is the leaf kNumber whose
// payload is the bit pattern of an IEEE double (-0 is read as 0).
class SymbolLanguage : public Language {
 public:
  static constexpr Op kNumber = 0;

  SymbolLanguage();

  std::optional<Label> parse_label(std::string_view token, std::size_t arity) override;
  std::optional<Op> parse_op(std::string_view token) override;
  std::string print_label(Label label) const override;
  std::string print_op(Op op) const override { return names_[op]; }

  // The operator for a symbol, interning it.
  Op op(std::string_view name);

  static Label number(double value);
  static std::optional<double> number_value(Label label);
  // The double a token spells, if it is a numeric literal.
  static std::optional<double> parse_number(std::string_view token);
  static std::string print_number(double value);

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> names_;
  std::unordered_map<std::string, Op, Hash, std::equal_to<>> ops_;
};

}  // namespace augur::eqsat
