#include "gpu/cuda_names.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "gpu/cuda_helpers.h"
#include "runtime/ir/type.h"

namespace augur::gpu {

namespace {

// C++20 keywords and alternative tokens, CUDA's built-in variables and the
// functions and macros generated code calls.
constexpr std::array<std::string_view, 150> kReserved = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
    "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
    "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
    "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
    "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if",
    "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr",
    "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
    "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast",
    "struct", "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef",
    "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t",
    "while", "xor", "xor_eq", "main", "NULL",
    // CUDA
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "__syncthreads",
    // what generated code calls
    "sqrtf", "sqrt", "fabsf", "fabs", "floorf", "floor", "expf", "exp", "logf", "log", "powf",
    "pow", "fminf", "fmin", "fmaxf", "fmax", "fmaf", "fma", "fmodf", "fmod", "min", "max",
    "signbit", "atomicAdd", "atomicMin", "atomicMax", "atomicExch", "atomicCAS", "__float2int_rz",
    "__float2uint_rz", "__float2ll_rz", "__float2ull_rz", "__double2int_rz", "__double2uint_rz",
    "__double2ll_rz", "__double2ull_rz", "__int_as_float", "__uint_as_float",
    "__longlong_as_double", "__double_as_longlong",
    // the prelude's type names are the IR's
    "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64"};

bool valid_identifier(const std::string& name) {
  if (name.empty()) return false;
  const auto letter = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (!letter(name[0])) return false;
  return std::all_of(name.begin(), name.end(),
                     [&](char c) { return letter(c) || (c >= '0' && c <= '9'); });
}

}  // namespace

bool is_reserved_cuda_name(const std::string& name) {
  // Names with "__" or starting with '_' and an upper-case letter belong to
  // the implementation; "augur_" names to generated code.
  if (name.find("__") != std::string::npos) return true;
  if (name.size() >= 2 && name[0] == '_' && name[1] >= 'A' && name[1] <= 'Z') return true;
  if (name.rfind("augur_", 0) == 0) return true;
  return std::find(kReserved.begin(), kReserved.end(), name) != kReserved.end() ||
         is_helper_name(name);
}

std::string CudaNamer::take(const std::string& wanted) {
  std::string base;
  for (char c : wanted) base += c == '.' ? '_' : c;
  const bool implementation_name =
      base.size() >= 2 && base[0] == '_' && base[1] >= 'A' && base[1] <= 'Z';
  if (!valid_identifier(base) || implementation_name || base.rfind("augur_", 0) == 0) {
    base = "v_" + base;
  }
  std::string cleaned;  // without "__", and made of identifier characters only
  for (char c : base) {
    if (!valid_identifier(std::string("a") + c)) c = '_';
    if (!(c == '_' && !cleaned.empty() && cleaned.back() == '_')) cleaned += c;
  }
  base = cleaned;
  if (is_reserved_cuda_name(base)) base += '_';
  const std::string separator = base.back() == '_' ? "" : "_";
  std::string name = base;
  for (int k = 2; is_reserved_cuda_name(name) || !taken_.insert(name).second; ++k) {
    name = base + separator + std::to_string(k);
  }
  return name;
}

}  // namespace augur::gpu
