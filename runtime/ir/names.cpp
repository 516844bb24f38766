#include "runtime/ir/names.h"

#include <algorithm>

#include "runtime/ir/ir.h"
#include "runtime/ir/lexer.h"
#include "runtime/ir/type.h"

namespace augur::ir {

namespace {

bool is_start_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool is_name_char(char c) {
  return is_start_char(c) || (c >= '0' && c <= '9') || c == '.';
}

// For the message only: the lexer's word lists decide what is reserved.
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
  if (is_keyword(name)) return "is a keyword";
  return {};
}

std::string variable_name_error(std::string_view name) {
  if (std::string error = global_name_error(name); !error.empty()) return error;
  if (!is_reserved(name)) return {};
  if (Type::parse(name)) return "is a type name";
  if (is_intrinsic(name)) return "is an intrinsic name";
  return "is a literal";
}

}  // namespace augur::ir
