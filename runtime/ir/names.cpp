#include "runtime/ir/names.h"

#include <algorithm>
#include <array>

#include "runtime/ir/ir.h"
#include "runtime/ir/type.h"

namespace augur::ir {

namespace {

constexpr std::array<std::string_view, 19> kKeywords = {
    "extern", "fn",  "kernel", "pure",     "readonly", "effect",  "var",  "shared", "if",  "else",
    "while",  "for", "break",  "continue", "return",   "barrier", "true", "false",  "null"};

// Float literals written as words.
constexpr std::array<std::string_view, 4> kSpecialLiterals = {"inf_f32", "inf_f64", "nan_f32",
                                                              "nan_f64"};

bool is_start_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool is_name_char(char c) {
  return is_start_char(c) || (c >= '0' && c <= '9') || c == '.';
}

bool is_intrinsic(std::string_view name) {
  for (int i = 0; i <= static_cast<int>(MathOp::Fma); ++i) {
    if (name_of(static_cast<MathOp>(i)) == name) return true;
  }
  for (int i = 0; i <= static_cast<int>(AtomicOp::Cas); ++i) {
    if (name_of(static_cast<AtomicOp>(i)) == name) return true;
  }
  // `thread_idx.x` lexes as one name, so a GPU index word reserves its dotted forms too.
  const std::string_view head = name.substr(0, name.find('.'));
  for (int i = 0; i <= static_cast<int>(GpuIndex::GridDim); ++i) {
    if (name_of(static_cast<GpuIndex>(i)) == head) return true;
  }
  return false;
}

}  // namespace

std::string name_error(std::string_view name) {
  if (name.empty()) return "is empty";
  if (!is_start_char(name.front()) || !std::all_of(name.begin(), name.end(), is_name_char)) {
    return "is not of the form [A-Za-z_][A-Za-z0-9_.]*";
  }
  if (std::find(kKeywords.begin(), kKeywords.end(), name) != kKeywords.end()) {
    return "is a keyword";
  }
  if (Type::parse(name)) return "is a type name";
  if (std::find(kSpecialLiterals.begin(), kSpecialLiterals.end(), name) != kSpecialLiterals.end()) {
    return "is a literal";
  }
  if (is_intrinsic(name)) return "is an intrinsic name";
  return {};
}

}  // namespace augur::ir
