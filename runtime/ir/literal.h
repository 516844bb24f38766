// Constants in the IR text form: `42i32`, `255u8`, `-0.0f64`, `1e+30f32`,
// `inf_f32`, `nan_f64(0x7ff8000000000001)`, `true`, `null(f32*)`.
#pragma once

#include <string>
#include <string_view>

#include "runtime/ir/ir.h"

namespace augur::ir {

// The canonical spelling of a Const expression. Floats use the shortest decimal
// that reads back to the same bits; NaNs other than the canonical quiet NaN
// print their bits.
std::string format_constant(const Expr& constant);
// The same for a value of `type` given by its bits (a table's element).
std::string format_constant(Type type, std::uint64_t bits);

// A literal read from text, or why it is invalid.
struct LiteralRead {
  ExprPtr value;
  std::string error;  // empty when `value` is set
};

// Reads a number token of the lexer: a decimal integer or float with its type
// suffix and optional '-' sign, or `-inf_f32` / `-inf_f64`.
LiteralRead read_number(std::string_view text);

// `inf_f32`, `inf_f64`, `nan_f32`, `nan_f64`, `true`, `false`, or null when
// `word` is none of them.
ExprPtr read_word_constant(std::string_view word);

// The NaN `nan_f32(0x...)` / `nan_f64(0x...)` with the bits written in hex.
LiteralRead read_nan_payload(Type type, std::string_view hex);

}  // namespace augur::ir
