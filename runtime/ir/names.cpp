#include "runtime/ir/names.h"

#include <algorithm>
#include <array>

#include "runtime/ir/ir.h"
#include "runtime/ir/type.h"

namespace augur::ir {

namespace {

constexpr std::array<std::string_view, 13> kKeywords = {
    "extern", "fn",  "kernel", "var",      "shared", "if",     "else",
    "while",  "for", "break",  "continue", "return", "barrier"};

// Words that are literals.
constexpr std::array<std::string_view, 7> kLiterals = {"true",    "false",   "null",   "inf_f32",
                                                       "inf_f64", "nan_f32", "nan_f64"};

bool is_start_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool is_name_char(char c) {
  return is_start_char(c) || (c >= '0' && c <= '9') || c == '.';
}

template <std::size_t N>
bool contains(const std::array<std::string_view, N>& words, std::string_view word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

bool is_intrinsic(std::string_view name) {
  for (int i = 0; i <= static_cast<int>(MathOp::Fma); ++i) {
    if (name_of(static_cast<MathOp>(i)) == name) return true;
  }
  for (int i = 0; i <= static_cast<int>(AtomicOp::Cas); ++i) {
    if (name_of(static_cast<AtomicOp>(i)) == name) return true;
  }
  const std::string_view head = name.substr(0, name.find('.'));
  for (int i = 0; i <= static_cast<int>(GpuIndex::GridDim); ++i) {
    if (name_of(static_cast<GpuIndex>(i)) == head) return true;
  }
  return false;
}

}  // namespace

std::string global_name_error(std::string_view name) {
  if (name.empty()) return "is empty";
  if (!is_start_char(name.front()) || !std::all_of(name.begin(), name.end(), is_name_char)) {
    return "is not of the form [A-Za-z_][A-Za-z0-9_.]*";
  }
  if (contains(kKeywords, name)) return "is a keyword";
  return {};
}

std::string variable_name_error(std::string_view name) {
  if (std::string error = global_name_error(name); !error.empty()) return error;
  if (Type::parse(name)) return "is a type name";
  if (contains(kLiterals, name)) return "is a literal";
  if (is_intrinsic(name)) return "is an intrinsic name";
  return {};
}

}  // namespace augur::ir
