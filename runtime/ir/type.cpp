#include "runtime/ir/type.h"

#include <array>

namespace augur::ir {

namespace {
constexpr std::array<std::string_view, 12> kScalarNames = {
    "void", "bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64"};
}

unsigned Type::bits() const {
  if (pointer_) return 64;
  switch (scalar_) {
    case Scalar::Void:
      return 0;
    case Scalar::Bool:
      return 1;
    case Scalar::I8:
    case Scalar::U8:
      return 8;
    case Scalar::I16:
    case Scalar::U16:
      return 16;
    case Scalar::I32:
    case Scalar::U32:
    case Scalar::F32:
      return 32;
    case Scalar::I64:
    case Scalar::U64:
    case Scalar::F64:
      return 64;
  }
  return 0;
}

std::size_t Type::size() const {
  if (pointer_) return 8;
  if (scalar_ == Scalar::Bool) return 1;
  return bits() / 8;
}

std::string Type::name() const {
  std::string out(kScalarNames[static_cast<std::size_t>(scalar_)]);
  if (pointer_) out += '*';
  return out;
}

std::optional<Type> Type::parse(std::string_view name) {
  bool pointer = false;
  if (!name.empty() && name.back() == '*') {
    pointer = true;
    name.remove_suffix(1);
  }
  for (std::size_t i = 0; i < kScalarNames.size(); ++i) {
    if (kScalarNames[i] != name) continue;
    Scalar s = static_cast<Scalar>(i);
    if (pointer && s == Scalar::Void) return std::nullopt;
    return Type(s, pointer);
  }
  return std::nullopt;
}

}  // namespace augur::ir
