#include "runtime/stage/finalize.h"

#include <algorithm>
#include <array>
#include <span>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "runtime/ir/builder.h"
#include "runtime/ir/visit.h"

namespace augur::stage {

namespace {

using ir::Block;
using ir::ExprPtr;
using ir::Stmt;
using ir::StmtKind;
using ir::VarId;

// ------------------------------------------------ scopes

// Finds the locals that must be declared at the top of the function: declared
// more than once, or used where no declaration of theirs is in scope.
class ScopeCheck {
 public:
  explicit ScopeCheck(const ir::Function& fn)
      : fn_(fn),
        in_scope_(fn.vars.size(), 0),
        declared_(fn.vars.size(), 0),
        hoist_(fn.vars.size(), 0) {
    for (std::uint32_t i = 0; i < fn.num_params; ++i) in_scope_[i] = 1;
  }

  std::vector<std::uint8_t> run() {
    block(fn_.body);
    return std::move(hoist_);
  }

 private:
  void block(const Block& b) {
    std::vector<std::uint32_t> opened;
    for (const Stmt& s : b) stmt(s, opened);
    close(opened);
  }

  void close(const std::vector<std::uint32_t>& opened) {
    for (std::uint32_t v : opened) in_scope_[v] = 0;
  }

  void stmt(const Stmt& s, std::vector<std::uint32_t>& opened) {
    switch (s.kind) {
      case StmtKind::Decl:
        if (s.expr) expr(*s.expr);
        if (declared_[s.var.index]++ > 0) hoist_[s.var.index] = 1;
        in_scope_[s.var.index] = 1;
        opened.push_back(s.var.index);
        return;
      case StmtKind::Assign:
        use(s.var);
        expr(*s.expr);
        return;
      case StmtKind::For: {
        std::vector<std::uint32_t> loop_scope;
        for (const Stmt& i : s.init) stmt(i, loop_scope);
        expr(*s.expr);
        block(s.body);
        for (const Stmt& st : s.step) stmt(st, loop_scope);
        close(loop_scope);
        return;
      }
      default:
        for (const ExprPtr* e : {&s.expr, &s.ptr, &s.index}) {
          if (*e) expr(**e);
        }
        block(s.body);
        block(s.orelse);
    }
  }

  void expr(const ir::Expr& root) {
    ir::for_each_expr(root, stack_, [&](const ir::Expr& e) {
      if (e.kind == ir::ExprKind::Var) use(e.var);
    });
  }

  void use(VarId v) {
    if (!in_scope_[v.index]) hoist_[v.index] = 1;
  }

  const ir::Function& fn_;
  std::vector<std::uint8_t> in_scope_;
  std::vector<std::uint32_t> declared_;
  std::vector<std::uint8_t> hoist_;
  std::vector<const ir::Expr*> stack_;
};

void repair_scopes(ir::Function& fn) {
  const std::vector<std::uint8_t> hoist = ScopeCheck(fn).run();
  Block top;
  for (std::uint32_t v = fn.num_params; v < fn.vars.size(); ++v) {
    if (hoist[v]) top.push_back(Stmt::decl(VarId{v}));
  }
  if (top.empty()) return;
  ir::declarations_to_assignments(fn, hoist);
  fn.body.insert(fn.body.begin(), std::make_move_iterator(top.begin()),
                 std::make_move_iterator(top.end()));
}

// ------------------------------------------------ renumbering

class Renumber {
 public:
  explicit Renumber(std::size_t vars) : map_(vars, VarId::kNone) {}

  // Numbers the variables in the order of their declarations in `b`.
  void order(const Block& b) {
    ir::for_each_stmt(b, [&](const Stmt& s) {
      if (s.kind == StmtKind::Decl) take(s.var);
    });
  }
  void take(VarId v) {
    if (map_[v.index] == VarId::kNone) {
      map_[v.index] = static_cast<std::uint32_t>(order_.size());
      order_.push_back(v.index);
    }
  }
  VarId renamed(VarId v) const { return VarId{map_[v.index]}; }

  const std::vector<std::uint32_t>& order() const { return order_; }

  // Whether every variable keeps its number (the common case: the first stage
  // declares them in program order and uses them all), so that there is
  // nothing to rewrite.
  bool identity() const {
    if (order_.size() != map_.size()) return false;
    for (std::uint32_t i = 0; i < order_.size(); ++i) {
      if (order_[i] != i) return false;
    }
    return true;
  }

 private:
  std::vector<std::uint32_t> map_;
  std::vector<std::uint32_t> order_;
};

// ------------------------------------------------ names

constexpr std::array<std::string_view, 50> kReserved = {"extern",
                                                        "fn",
                                                        "kernel",
                                                        "var",
                                                        "shared",
                                                        "if",
                                                        "else",
                                                        "while",
                                                        "for",
                                                        "break",
                                                        "continue",
                                                        "return",
                                                        "barrier",
                                                        "void",
                                                        "bool",
                                                        "i8",
                                                        "i16",
                                                        "i32",
                                                        "i64",
                                                        "u8",
                                                        "u16",
                                                        "u32",
                                                        "u64",
                                                        "f32",
                                                        "f64",
                                                        "true",
                                                        "false",
                                                        "null",
                                                        "inf_f32",
                                                        "inf_f64",
                                                        "nan_f32",
                                                        "nan_f64",
                                                        "sqrt",
                                                        "fabs",
                                                        "floor",
                                                        "exp",
                                                        "log",
                                                        "pow",
                                                        "min",
                                                        "max",
                                                        "fma",
                                                        "atomic_add",
                                                        "atomic_min",
                                                        "atomic_max",
                                                        "atomic_cas",
                                                        "thread_idx",
                                                        "atomic_exchange",
                                                        "block_idx",
                                                        "block_dim",
                                                        "grid_dim"};

// A valid IR name close to `wanted` ("" if nothing usable is left).
std::string sanitize(std::string_view wanted) {
  std::string out;
  for (char c : wanted) {
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (letter || (digit && !out.empty())) {
      out += c;
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  if (std::find(kReserved.begin(), kReserved.end(), out) != kReserved.end()) out += '_';
  return out;
}

class Namer {
 public:
  // `base`, or base.<k> for the first free k from 1 on. The probe starts
  // where the last one for this base stopped (every name below is taken):
  // a name repeated n times costs O(n), not O(n²).
  std::string unique(const std::string& base) {
    if (taken_.insert(base).second) return base;
    std::size_t& suffix = last_suffix_[base];
    std::string name;
    do {
      name = base + "." + std::to_string(++suffix);
    } while (!taken_.insert(name).second);
    return name;
  }
  // prefix<k> for the first free k from `next` on.
  std::string fresh(const std::string& prefix, std::size_t& next) {
    while (true) {
      std::string name = prefix + std::to_string(next++);
      if (taken_.insert(name).second) return name;
    }
  }

 private:
  std::unordered_set<std::string> taken_;
  std::unordered_map<std::string, std::size_t> last_suffix_;
};

}  // namespace

void finalize(ir::Function& fn, const std::vector<std::string>& param_names) {
  repair_scopes(fn);

  Renumber renumber(fn.vars.size());
  for (std::uint32_t p = 0; p < fn.num_params; ++p) renumber.take(VarId{p});
  renumber.order(fn.body);
  if (!renumber.identity())
    ir::VarRenamer().block(fn.body, [&](VarId v) { return renumber.renamed(v); });

  std::vector<ir::Variable> vars;
  vars.reserve(renumber.order().size());
  for (std::uint32_t old : renumber.order()) vars.push_back(fn.vars[old]);

  // User names first, so that generated ones step around them.
  Namer namer;
  std::vector<std::string> wanted(vars.size());
  for (std::size_t i = 0; i < vars.size(); ++i) {
    if (i < fn.num_params) {
      wanted[i] = i < param_names.size() ? sanitize(param_names[i]) : "";
      if (wanted[i].empty()) wanted[i] = "arg" + std::to_string(i);
    } else {
      wanted[i] = sanitize(vars[i].name);
    }
    if (!wanted[i].empty()) wanted[i] = namer.unique(wanted[i]);
  }
  std::size_t next = 0;
  for (std::size_t i = 0; i < vars.size(); ++i) {
    if (wanted[i].empty()) wanted[i] = namer.fresh("var", next);
    vars[i].name = std::move(wanted[i]);
  }
  fn.vars = std::move(vars);
}

std::vector<ir::ExternRef> callees(const ir::Function& fn) {
  std::vector<ir::ExternRef> out;
  std::vector<const ir::Expr*> stack;
  ir::for_each_stmt(fn.body, [&](const Stmt& s) {
    ir::for_each_expr(s, stack, [&](const ir::Expr& e) {
      if (e.kind == ir::ExprKind::Call &&
          std::none_of(out.begin(), out.end(),
                       [&](const ir::ExternRef& r) { return r == e.callee; })) {
        out.push_back(e.callee);
      }
    });
  });
  return out;
}

std::uint64_t count_statements(const Block& block) {
  std::uint64_t n = 0;
  ir::for_each_stmt(block, [&](const Stmt&) { ++n; });
  return n;
}

}  // namespace augur::stage
