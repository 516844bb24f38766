#include "gpu/thread_function.h"

#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "runtime/ir/builder.h"

namespace augur::gpu {

namespace {

using ir::Block;
using ir::ExprKind;
using ir::ExprPtr;
using ir::Stmt;
using ir::StmtKind;
using ir::Type;
using ir::VarId;

// The three new parameters come first; the kernel's variable i becomes i + 3.
constexpr std::uint32_t kArgs = 0;
constexpr std::uint32_t kContext = 1;
constexpr std::uint32_t kShared = 2;
constexpr std::uint32_t kShift = 3;

bool block_has_barrier(const Block& block) {
  for (const Stmt& s : block) {
    if (s.kind == StmtKind::Barrier || block_has_barrier(s.body) || block_has_barrier(s.orelse) ||
        block_has_barrier(s.init) || block_has_barrier(s.step)) {
      return true;
    }
  }
  return false;
}

class Lowering {
 public:
  explicit Lowering(const ir::Function& kernel) : kernel_(kernel) {
    barrier_ = std::make_shared<const ir::ExternFn>(
        ir::ExternFn{kBarrierExtern, Type::void_(), {}, ir::Effect::Effectful});
  }

  ThreadFunction run() {
    ThreadFunction out;
    out.shared = cpu::shared_layout(kernel_);
    out.name = kernel_.name + ".thread";

    ir::Function fn;
    fn.name = out.name;
    fn.ret = Type::void_();
    std::unordered_set<std::string> names;
    for (const ir::Variable& v : kernel_.vars) names.insert(v.name);
    auto fresh = [&](std::string base) {
      std::string name = base;
      for (int k = 1; names.count(name); ++k) name = base + "." + std::to_string(k);
      names.insert(name);
      return name;
    };
    fn.vars.push_back({fresh("args"), Type::pointer_to(ir::Scalar::U64), ir::VarKind::Param, 0});
    fn.vars.push_back({fresh("ctx"), Type::pointer_to(ir::Scalar::I32), ir::VarKind::Param, 0});
    fn.vars.push_back(
        {fresh("shared_memory"), Type::pointer_to(ir::Scalar::U8), ir::VarKind::Param, 0});
    fn.num_params = kShift;
    for (const ir::Variable& v : kernel_.vars) {
      fn.vars.push_back({v.name, v.type, ir::VarKind::Local, 0});
    }

    fn.body = prologue(out.shared);
    Block body = block(kernel_.body);
    fn.body.insert(fn.body.end(), std::make_move_iterator(body.begin()),
                   std::make_move_iterator(body.end()));

    out.module.externs.push_back(barrier_);
    out.module.functions.push_back(std::move(fn));
    return out;
  }

 private:
  static ExprPtr read(std::uint32_t var, Type type) { return ir::read(VarId{var}, type); }

  // Parameters from args[], shared arrays at their offsets in shared[].
  Block prologue(const cpu::SharedLayout& layout) const {
    Block out;
    const ExprPtr args = read(kArgs, Type::pointer_to(ir::Scalar::U64));
    for (std::uint32_t i = 0; i < kernel_.num_params; ++i) {
      const Type t = kernel_.vars[i].type;
      const ExprPtr slot = ir::constant(static_cast<std::int32_t>(i));
      ExprPtr value;
      if (t.is_pointer()) {
        value = ir::cast(t, ir::load(args, slot));
      } else {
        // The canonical bits of a narrower type are its little-endian low bytes.
        const ExprPtr at =
            ir::cast(Type::pointer_to(t.scalar()), ir::binary(ir::BinaryOp::Add, args, slot));
        value = ir::load(at, ir::constant(std::int32_t{0}));
      }
      out.push_back(Stmt::decl(VarId{i + kShift}, value));
    }
    const ExprPtr shared = read(kShared, Type::pointer_to(ir::Scalar::U8));
    for (std::uint32_t i = 0; i < kernel_.vars.size(); ++i) {
      const ir::Variable& v = kernel_.vars[i];
      if (v.kind != ir::VarKind::Shared) continue;
      const ExprPtr offset = ir::constant(static_cast<std::int64_t>(layout.offsets[i]));
      out.push_back(Stmt::decl(VarId{i + kShift},
                               ir::cast(v.type, ir::binary(ir::BinaryOp::Add, shared, offset))));
    }
    return out;
  }

  Block block(const Block& in) {
    Block out;
    for (const Stmt& s : in) {
      if (s.kind == StmtKind::Decl && kernel_.var(s.var).kind == ir::VarKind::Shared) continue;
      out.push_back(stmt(s));
    }
    return out;
  }

  Stmt stmt(const Stmt& s) {
    if (s.kind == StmtKind::Barrier) return Stmt::eval(ir::call(barrier_, {}));
    Stmt out = s;
    if (out.var.valid()) out.var = VarId{out.var.index + kShift};
    for (ExprPtr* e : {&out.expr, &out.ptr, &out.index}) {
      if (*e) *e = expr(*e);
    }
    out.body = block(s.body);
    out.orelse = block(s.orelse);
    out.init = block(s.init);
    out.step = block(s.step);
    return out;
  }

  ExprPtr expr(const ExprPtr& e) {
    if (auto it = done_.find(e.get()); it != done_.end()) return it->second;
    ExprPtr out;
    if (e->kind == ExprKind::GpuIndex) {
      const auto slot = static_cast<std::int32_t>(static_cast<int>(e->gpu_index()) * 3 + e->axis);
      out = ir::load(read(kContext, Type::pointer_to(ir::Scalar::I32)), ir::constant(slot));
    } else if (e->kind == ExprKind::Var || !e->args.empty()) {
      ir::Expr copy = *e;
      if (copy.kind == ExprKind::Var) copy.var = VarId{copy.var.index + kShift};
      for (ExprPtr& a : copy.args) a = expr(a);
      out = std::make_shared<const ir::Expr>(std::move(copy));
    } else {
      out = e;
    }
    done_.emplace(e.get(), out);
    return out;
  }

  const ir::Function& kernel_;
  ir::ExternRef barrier_;
  std::unordered_map<const ir::Expr*, ExprPtr> done_;
};

}  // namespace

bool has_barrier(const ir::Function& kernel) {
  return block_has_barrier(kernel.body);
}

ThreadFunction lower_to_thread_function(const ir::Function& kernel) {
  return Lowering(kernel).run();
}

}  // namespace augur::gpu
