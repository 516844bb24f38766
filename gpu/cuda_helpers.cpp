#include "gpu/cuda_helpers.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <iterator>
#include <string_view>

#include "jit/scan.h"

namespace augur::gpu {

namespace {

constexpr std::string_view kPrefix = "static __device__ __forceinline__ ";

std::string type_name(ir::Scalar s) {
  return ir::Type(s).name();
}

// The unsigned type arithmetic on `s` is done in: u32 for types up to 32 bits
// (narrow operands are converted to it, so nothing is promoted to int), u64
// for 64-bit ones.
std::string unsigned_for(ir::Scalar s) {
  return ir::Type(s).bits() == 64 ? "u64" : "u32";
}

std::string_view kind_name(HelperKind kind) {
  switch (kind) {
    case HelperKind::Add:
      return "add";
    case HelperKind::Sub:
      return "sub";
    case HelperKind::Mul:
      return "mul";
    case HelperKind::Neg:
      return "neg";
    case HelperKind::Shl:
      return "shl";
    case HelperKind::Min:
      return "min";
    case HelperKind::Max:
      return "max";
    case HelperKind::SaturateF:
      break;
    case HelperKind::FindByte:
      return "find_byte";
    case HelperKind::FindAnyOf:
      return "find_any_of";
    case HelperKind::FindLiteral:
      return "find_literal";
    case HelperKind::FindSets:
      return "find_sets";
  }
  return "";
}

constexpr HelperKind kScans[] = {HelperKind::FindByte, HelperKind::FindAnyOf,
                                 HelperKind::FindLiteral, HelperKind::FindSets};

bool is_scan(HelperKind kind) {
  return std::find(std::begin(kScans), std::end(kScans), kind) != std::end(kScans);
}

// The saturating conversion of a float to an integer: NaN → 0 first (PTX
// cvt.rzi.s32.f64 turns a NaN into INT_MIN on an H100, whatever the ISA text
// suggests), then CUDA's round-toward-zero intrinsic, which saturates at 32 or
// 64 bits, then for narrow types a clamp to the type's range.
std::string saturate_body(ir::Scalar to, ir::Scalar from) {
  const ir::Type target(to);
  const bool is_signed = target.is_signed();
  const unsigned bits = target.bits();
  const std::string nan_guard = "if (x != x) return 0; ";
  std::string intrinsic = from == ir::Scalar::F32 ? "__float2" : "__double2";
  if (bits == 64) {
    intrinsic += is_signed ? "ll_rz" : "ull_rz";
    return nan_guard + "return " + intrinsic + "(x);";
  }
  intrinsic += is_signed ? "int_rz" : "uint_rz";
  if (bits == 32) return nan_guard + "return " + intrinsic + "(x);";
  if (is_signed) {
    const std::string low = "-" + std::to_string(1u << (bits - 1));
    const std::string high = std::to_string((1u << (bits - 1)) - 1);
    return nan_guard + "i32 v = " + intrinsic + "(x); return (" + type_name(to) + ")(v < " + low +
           " ? " + low + " : v > " + high + " ? " + high + " : v);";
  }
  const std::string high = std::to_string((1u << bits) - 1) + "u";
  return nan_guard + "u32 v = " + intrinsic + "(x); return (" + type_name(to) + ")(v > " + high +
         " ? " + high + " : v);";
}

// Integers compare in their own type. Floats are IEEE minNum/maxNum (a NaN
// operand yields the other: fminf/fmaxf) with -0.0 ordered below +0.0, which
// fminf/fmaxf leave unspecified.
std::string min_max_body(const Helper& h) {
  const bool is_min = h.kind == HelperKind::Min;
  if (!ir::Type(h.type).is_float()) {
    return is_min ? "return b < a ? b : a;" : "return a < b ? b : a;";
  }
  const std::string f = h.type == ir::Scalar::F32 ? "f" : "";
  const std::string call = (is_min ? "fmin" : "fmax") + f + "(a, b)";
  return std::string("return a == b ? (signbit(a) ? ") + (is_min ? "a : b" : "b : a") +
         ") : " + call + ";";
}

// jit::find_sets's filter is the bytes of a jit::detail::set_filter: the
// count, the offsets, and a bitmap per set.
std::string find_sets_body() {
  using jit::detail::set_filter;
  const std::string count = std::to_string(offsetof(set_filter, count));
  const std::string offsets = std::to_string(offsetof(set_filter, offset));
  const std::string bitmaps = std::to_string(offsetof(set_filter, bitmap));
  const std::string max = std::to_string(set_filter::kMaxSets);
  return "u32 n = f[" + count + "] < " + max + " ? f[" + count + "] : " + max +
         "; for (i64 p = from; p < to; ++p) { u32 j = 0; for (; j < n; ++j) { i64 q = p + f[" +
         offsets + " + j]; if (q >= to) break; u32 b = t[q]; if (!((f[" + bitmaps +
         " + 32 * j + (b >> 3)] >> (b & 7)) & 1)) break; } if (j == n) return p; } return to;";
}

std::string definition(const Helper& h) {
  const std::string t = type_name(h.type);
  const std::string u = unsigned_for(h.type);
  const std::string head = std::string(kPrefix) + t + " " + helper_name(h);
  switch (h.kind) {
    case HelperKind::Add:
    case HelperKind::Sub:
    case HelperKind::Mul: {
      const char op = h.kind == HelperKind::Add ? '+' : h.kind == HelperKind::Sub ? '-' : '*';
      return head + "(" + t + " a, " + t + " b) { return (" + t + ")((" + u + ")a " + op + " (" +
             u + ")b); }";
    }
    case HelperKind::Neg:
      return head + "(" + t + " a) { return (" + t + ")(0u - (" + u + ")a); }";
    case HelperKind::Shl: {
      const std::string mask = std::to_string(ir::Type(h.type).bits() - 1);
      return head + "(" + t + " a, " + t + " b) { return (" + t + ")((" + u + ")a << (b & " + mask +
             ")); }";
    }
    case HelperKind::Min:
    case HelperKind::Max:
      return head + "(" + t + " a, " + t + " b) { " + min_max_body(h) + " }";
    case HelperKind::SaturateF:
      return head + "(" + type_name(h.from) + " x) { " + saturate_body(h.type, h.from) + " }";
    // The scans return what their host functions (runtime/stage/scan.cpp)
    // return: the first match in [from, to), else `to`. A thread scans on its
    // own, a byte at a time; the sets and the literal come packed as for the host.
    case HelperKind::FindByte:
      return head +
             "(const u8* t, i64 from, i64 to, u8 b) { for (i64 p = from; p < to; ++p) if (t[p] == "
             "b) return p; return to; }";
    case HelperKind::FindAnyOf:
      return head +
             "(const u8* t, i64 from, i64 to, u64 s0, u64 s1, u64 s2, u64 s3) { for (i64 p = "
             "from; p < to; ++p) { u32 b = t[p]; u64 w = b < 64 ? s0 : b < 128 ? s1 : b < 192 ? "
             "s2 : s3; if ((w >> (b & 63)) & 1) return p; } return to; }";
    case HelperKind::FindLiteral:
      return head +
             "(const u8* t, i64 from, i64 to, u64 head, u64 tail, u8 n) { if (n > 16) n = 16; "
             "if (n == 0) return from < to ? from : to; for (i64 p = from; p <= to - n; ++p) { "
             "u32 k = 0; while (k < n && t[p + k] == (u8)((k < 8 ? head : tail) >> (8 * (k & "
             "7)))) ++k; if (k == n) return p; } return to; }";
    case HelperKind::FindSets:
      return head + "(const u8* t, i64 from, i64 to, const u8* f) { " + find_sets_body() + " }";
  }
  return "";
}

}  // namespace

std::string helper_name(const Helper& helper) {
  if (is_scan(helper.kind)) return std::string(kind_name(helper.kind));
  if (helper.kind == HelperKind::SaturateF) {
    return type_name(helper.from) + "_to_" + type_name(helper.type);
  }
  return std::string(kind_name(helper.kind)) + "_" + type_name(helper.type);
}

bool is_helper_name(const std::string& name) {
  for (HelperKind scan : kScans)
    if (name == kind_name(scan)) return true;
  static constexpr std::array<std::string_view, 7> kinds = {"add_", "sub_", "mul_", "neg_",
                                                            "shl_", "min_", "max_"};
  for (std::string_view k : kinds) {
    if (name.size() > k.size() && name.compare(0, k.size(), k) == 0 &&
        ir::Type::parse(name.substr(k.size()))) {
      return true;
    }
  }
  for (std::string_view f : {"f32_to_", "f64_to_"}) {
    if (name.size() > f.size() && name.compare(0, f.size(), f) == 0 &&
        ir::Type::parse(name.substr(f.size()))) {
      return true;
    }
  }
  return false;
}

std::string helper_definitions(const std::set<Helper>& helpers) {
  std::string out;
  for (const Helper& h : helpers) out += definition(h) + "\n";
  return out;
}

}  // namespace augur::gpu
