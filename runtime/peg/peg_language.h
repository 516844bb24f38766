// The PEG operators as text, for patterns, rules and dumps (an
// eqsat::Language over peg_ops.h).
//
// Tokens: IR literals (`0i32`, `1.0f64`, `true`) are constants; `kind.type`
// names an operator (`add.i32`, `lt.u8`, `phi.f64`, `theta.i32`), optionally
// with a payload `@N` (`theta.i32@1`, `param.i64@0`), a source type for casts
// (`cast.f64@i32`) or an extern name for calls (`callp.f64@norm`); a bare
// extern name the language knows (add_extern) is a call to it (`matmul`).
// print_label writes what parse_label reads back.
#pragma once

#include <string>
#include <string_view>

#include "runtime/eqsat/language.h"
#include "runtime/ir/externs.h"
#include "runtime/ir/ir.h"
#include "runtime/ir/string_map.h"
#include "runtime/peg/peg_ops.h"

namespace augur::peg {

class PegLanguage : public eqsat::Language {
 public:
  // Lets patterns name calls to `decl` by its bare name.
  void add_extern(const ir::ExternFn& decl);
  // Names not added are looked up here too (may be null).
  void set_extern_table(const ir::ExternTable* table) { table_ = table; }
  const ir::ExternFn* find_extern(std::string_view name) const;

  std::optional<eqsat::Label> parse_label(std::string_view token, std::size_t arity) override;
  std::optional<eqsat::Op> parse_op(std::string_view token) override;
  std::string print_label(eqsat::Label label) const override { return label_text(label); }
  std::string print_op(eqsat::Op op) const override;

 private:
  ir::StringMap<ir::ExternFn> externs_;
  const ir::ExternTable* table_ = nullptr;
};

// The call kind for an extern's effect.
Kind call_kind(ir::Effect effect);

}  // namespace augur::peg
