#include "runtime/peg/peg_language.h"

#include <charconv>

#include "runtime/ir/literal.h"
#include "runtime/peg/extern_names.h"

namespace augur::peg {

namespace {

std::optional<PegType> type_named(std::string_view name) {
  if (name == "state") return PegType::state();
  if (name == "tuple") return PegType::tuple();
  if (name == "index") return PegType::index();
  if (std::optional<ir::Type> t = ir::Type::parse(name)) return PegType(*t);
  return std::nullopt;
}

std::optional<std::uint64_t> parse_unsigned(std::string_view text) {
  int base = 10;
  if (text.starts_with("0x")) {
    text.remove_prefix(2);
    base = 16;
  }
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<eqsat::Label> constant_label(std::string_view token) {
  ir::ExprPtr c = ir::read_word_constant(token);
  if (!c) {
    const bool numeric = !token.empty() && ((token[0] >= '0' && token[0] <= '9') ||
                                            (token[0] == '-' && token.size() > 1));
    if (!numeric) return std::nullopt;
    ir::LiteralRead read = ir::read_number(token);
    if (!read.value) return std::nullopt;
    c = read.value;
  }
  return label(Kind::Const, PegType(c->type), c->bits);
}

}  // namespace

Kind call_kind(ir::Effect effect) {
  switch (effect) {
    case ir::Effect::Pure:
      return Kind::CallPure;
    case ir::Effect::ReadOnly:
      return Kind::CallRead;
    case ir::Effect::Effectful:
      return Kind::CallEffect;
  }
  return Kind::CallEffect;
}

void PegLanguage::add_extern(const ir::ExternFn& decl) {
  externs_.insert_or_assign(decl.name, decl);
}

const ir::ExternFn* PegLanguage::find_extern(std::string_view name) const {
  if (auto it = externs_.find(name); it != externs_.end()) return &it->second;
  if (table_ != nullptr)
    if (const ir::ExternBinding* b = table_->find(name)) return b->decl.get();
  return nullptr;
}

std::optional<eqsat::Op> PegLanguage::parse_op(std::string_view token) {
  if (const ir::ExternFn* e = find_extern(token))
    return op_of(call_kind(e->effect), PegType(e->ret));
  const std::size_t dot = token.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const std::optional<Kind> kind = kind_named(token.substr(0, dot));
  const std::optional<PegType> type = type_named(token.substr(dot + 1));
  if (!kind || !type) return std::nullopt;
  return op_of(*kind, *type);
}

std::optional<eqsat::Label> PegLanguage::parse_label(std::string_view token, std::size_t arity) {
  if (std::optional<eqsat::Label> c = constant_label(token)) {
    if (arity != 0) return std::nullopt;
    return c;
  }
  if (const ir::ExternFn* e = find_extern(token)) {
    return label(call_kind(e->effect), PegType(e->ret), extern_name_id(e->name));
  }
  const std::size_t at = token.find('@');
  const std::optional<eqsat::Op> op = parse_op(token.substr(0, at));
  if (!op) return std::nullopt;
  if (at == std::string_view::npos) return eqsat::Label{*op, 0};
  const std::string_view payload = token.substr(at + 1);
  const Kind kind = kind_of(*op);
  if (kind == Kind::Cast) {
    const std::optional<PegType> from = type_named(payload);
    if (!from) return std::nullopt;
    return eqsat::Label{*op, from->code()};
  }
  if (kind == Kind::CallPure || kind == Kind::CallRead || kind == Kind::CallEffect)
    return eqsat::Label{*op, extern_name_id(payload)};
  const std::optional<std::uint64_t> value = parse_unsigned(payload);
  if (!value) return std::nullopt;
  return eqsat::Label{*op, *value};
}

std::string PegLanguage::print_op(eqsat::Op op) const {
  return std::string(name_of(kind_of(op))) + "." + type_slot(op).name();
}

}  // namespace augur::peg
