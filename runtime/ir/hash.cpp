#include "runtime/ir/hash.h"

#include <algorithm>
#include <vector>

#include "runtime/ir/mix.h"

namespace augur::ir {

// ---------------------------------------------------------------- Hasher
//
// Two 64-bit lanes, a and b. Each input word w updates them as
//
//   a <- fa(a ^ w)
//   b <- fb(b + w + a)
//
// where fa = murmur_mix64 and fb = splitmix_mix64 (runtime/ir/mix.h; both
// xorshift-multiply bijections with full avalanche). Being bijective, a step
// never merges two states, and feeding the new `a` into `b` makes the lanes
// depend on each other, so two inputs collide only if both lanes collide.
// finish() folds in the word count and cross-mixes the lanes:
//
//   hi = fa(a ^ fb(b ^ count)),  lo = fb(b ^ fa(a + count * 0x9e3779b97f4a7c15))
//
// Byte strings enter as their length, then 8 bytes per word in little-endian
// order (the last word zero-padded), assembled arithmetically, so the result
// is the same on every host. Not cryptographic: it guards against accidents,
// not adversaries.

void Hasher::add(std::uint64_t word) {
  a_ = murmur_mix64(a_ ^ word);
  b_ = splitmix_mix64(b_ + word + a_);
  ++count_;
}

void Hasher::add(std::string_view bytes) {
  add(static_cast<std::uint64_t>(bytes.size()));
  std::uint64_t word = 0;
  unsigned filled = 0;
  for (char c : bytes) {
    word |= static_cast<std::uint64_t>(static_cast<unsigned char>(c)) << (8 * filled);
    if (++filled == 8) {
      add(word);
      word = 0;
      filled = 0;
    }
  }
  if (filled > 0) add(word);
}

Hash128 Hasher::finish() const {
  return {murmur_mix64(a_ ^ splitmix_mix64(b_ ^ count_)),
          splitmix_mix64(b_ ^ murmur_mix64(a_ + count_ * 0x9e3779b97f4a7c15ull))};
}

std::string Hash128::hex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 0; i < 16; ++i) {
    out[15 - i] = kDigits[(hi >> (4 * i)) & 0xf];
    out[31 - i] = kDigits[(lo >> (4 * i)) & 0xf];
  }
  return out;
}

// ---------------------------------------------------------------- content hashes

namespace {

// Leading words that keep the encodings of different things apart. A version
// digit ends the function and module tags: change it when the encoding changes.
constexpr std::uint64_t kFunctionTag = 0x4155475552464e31;    // "AUGURFN1"
constexpr std::uint64_t kModuleTag = 0x41554755524d4f31;      // "AUGURMO1"
constexpr std::uint64_t kExprTag = std::uint64_t{'E'} << 56;  // | kind << 16 | op << 8 | axis
constexpr std::uint64_t kStmtTag = std::uint64_t{'S'} << 56;  // | kind
constexpr std::uint64_t kNullTag = std::uint64_t{'N'} << 56;  // a missing expression or callee
// | levels, after a break or continue that leaves more than one loop (one
// loop adds nothing, so the keys of programs without such exits stay put)
constexpr std::uint64_t kLevelsTag = std::uint64_t{'L'} << 56;
constexpr std::uint64_t kUnknownVar = ~std::uint64_t{0};  // a VarId out of range (invalid IR)

std::uint64_t type_word(Type type) {
  return static_cast<std::uint64_t>(type.scalar()) | (type.is_pointer() ? 0x100u : 0u);
}

void add_extern(Hasher& h, const ExternFn& fn) {
  h.add(fn.name);
  h.add(type_word(fn.ret));
  h.add(fn.params.size());
  for (Type t : fn.params) h.add(type_word(t));
  h.add(static_cast<std::uint64_t>(fn.effect));
}

// Streams one function's structure. Variables are numbered in the order they
// are first met: parameters, then declarations in a pre-order walk.
class FunctionEncoder {
 public:
  FunctionEncoder(Hasher& h, const Function& fn)
      : h_(h), fn_(fn), number_(fn.vars.size(), kUnnumbered) {}

  void encode() {
    h_.add(kFunctionTag);
    h_.add(type_word(fn_.ret));
    h_.add(fn_.kernel ? 1u : 0u);
    h_.add(fn_.num_params);
    const std::size_t params = std::min<std::size_t>(fn_.num_params, fn_.vars.size());
    for (std::uint32_t i = 0; i < params; ++i) {
      h_.add(type_word(fn_.vars[i].type));
      number(VarId{i});
    }
    block(fn_.body);
  }

 private:
  static constexpr std::uint32_t kUnnumbered = ~std::uint32_t{0};

  // The canonical number of `var`, numbering it now if it has none yet.
  std::uint64_t number(VarId var) {
    if (var.index >= number_.size()) return kUnknownVar;
    std::uint32_t& n = number_[var.index];
    if (n == kUnnumbered) n = next_++;
    return n;
  }

  void block(const Block& b) {
    h_.add(b.size());
    for (const Stmt& s : b) stmt(s);
  }

  void stmt(const Stmt& s) {
    h_.add(kStmtTag | static_cast<std::uint64_t>(s.kind));
    switch (s.kind) {
      case StmtKind::Decl:
        h_.add(number(s.var));
        if (s.var.index < fn_.vars.size()) {
          const Variable& v = fn_.var(s.var);
          h_.add(type_word(v.type));
          h_.add(static_cast<std::uint64_t>(v.kind));
          h_.add(v.shared_count);
        }
        expr(s.expr);
        return;
      case StmtKind::Assign:
        h_.add(number(s.var));
        expr(s.expr);
        return;
      case StmtKind::Store:
        expr(s.ptr);
        expr(s.index);
        expr(s.expr);
        return;
      case StmtKind::Eval:
      case StmtKind::Return:
        expr(s.expr);
        return;
      case StmtKind::If:
        expr(s.expr);
        block(s.body);
        block(s.orelse);
        return;
      case StmtKind::While:
        expr(s.expr);
        block(s.body);
        return;
      case StmtKind::For:
        block(s.init);
        expr(s.expr);
        block(s.step);
        block(s.body);
        return;
      case StmtKind::Break:
      case StmtKind::Continue:
        if (s.levels != 1) h_.add(kLevelsTag | s.levels);
        return;
      case StmtKind::Barrier:
        return;
    }
  }

  // Pre-order, on a stack of our own: expressions may be tall.
  void expr(const ExprPtr& root) {
    std::vector<const ExprPtr*> stack{&root};
    while (!stack.empty()) {
      const ExprPtr& e = *stack.back();
      stack.pop_back();
      node(e);
      if (e) {
        for (auto it = e->args.rbegin(); it != e->args.rend(); ++it) stack.push_back(&*it);
      }
    }
  }

  // One node, its operand count included, but not its operands.
  void node(const ExprPtr& e) {
    if (!e) {
      h_.add(kNullTag);
      return;
    }
    h_.add(kExprTag | static_cast<std::uint64_t>(e->kind) << 16 |
           static_cast<std::uint64_t>(e->op) << 8 | e->axis);
    h_.add(type_word(e->type));
    switch (e->kind) {
      case ExprKind::Const:
        h_.add(e->bits);
        break;
      case ExprKind::Var:
        h_.add(number(e->var));
        break;
      case ExprKind::Table:
        if (e->table) {
          h_.add(type_word(e->table->element));
          h_.add(std::string_view(reinterpret_cast<const char*>(e->table->bytes.data()),
                                  e->table->bytes.size()));
        } else {
          h_.add(kNullTag);
        }
        break;
      case ExprKind::Call:
        if (e->callee) {
          add_extern(h_, *e->callee);
        } else {
          h_.add(kNullTag);
        }
        break;
      default:
        break;
    }
    h_.add(e->args.size());
  }

  Hasher& h_;
  const Function& fn_;
  std::vector<std::uint32_t> number_;  // by VarId index
  std::uint32_t next_ = 0;
};

}  // namespace

Hash128 content_hash(const Function& function) {
  Hasher h;
  FunctionEncoder(h, function).encode();
  return h.finish();
}

Hash128 content_hash(const Module& module) {
  Hasher h;
  h.add(kModuleTag);
  // The order of extern declarations means nothing, so they are hashed by name.
  std::vector<const ExternFn*> externs;
  for (const ExternRef& fn : module.externs) {
    if (fn) externs.push_back(fn.get());
  }
  std::stable_sort(externs.begin(), externs.end(),
                   [](const ExternFn* x, const ExternFn* y) { return x->name < y->name; });
  h.add(module.externs.size());
  for (const ExternFn* fn : externs) add_extern(h, *fn);
  h.add(module.functions.size());
  for (const Function& fn : module.functions) {
    h.add(fn.name);
    FunctionEncoder(h, fn).encode();
  }
  return h.finish();
}

}  // namespace augur::ir
