// The jit::detail functions the public staging templates call.
#include <utility>
#include <vector>

#include "jit/detail/staging.h"
#include "jit/error.h"
#include "jit/table.h"
#include "runtime/ir/builder.h"
#include "runtime/stage/explorer.h"
#include "runtime/stage/externs.h"
#include "runtime/stage/types.h"

namespace jit::detail {

namespace ir = augur::ir;
using augur::stage::Explorer;
using augur::stage::to_ir;

// The mirrors of jit/detail/staging.h follow the IR's numbering.
static_assert(static_cast<int>(scalar::f64) == static_cast<int>(ir::Scalar::F64));
static_assert(static_cast<int>(scalar::u8) == static_cast<int>(ir::Scalar::U8));
static_assert(static_cast<int>(binary_op::logical_or) == static_cast<int>(ir::BinaryOp::Or));
static_assert(static_cast<int>(binary_op::shr) == static_cast<int>(ir::BinaryOp::Shr));
static_assert(static_cast<int>(binary_op::ge) == static_cast<int>(ir::BinaryOp::Ge));
static_assert(static_cast<int>(unary_op::logical_not) == static_cast<int>(ir::UnaryOp::Not));
static_assert(static_cast<int>(math_op::fma) == static_cast<int>(ir::MathOp::Fma));
static_assert(static_cast<int>(math_op::min) == static_cast<int>(ir::MathOp::Min));
static_assert(static_cast<int>(effect::effectful) == static_cast<int>(ir::Effect::Effectful));
static_assert(static_cast<int>(gpu_index::grid_dim) == static_cast<int>(ir::GpuIndex::GridDim));
static_assert(static_cast<int>(atomic_op::cas) == static_cast<int>(ir::AtomicOp::Cas));
static_assert(static_cast<int>(atomic_op::exchange) == static_cast<int>(ir::AtomicOp::Exchange));

namespace {

Explorer& active(const char* what) {
  Explorer* explorer = Explorer::current();
  if (!explorer || explorer->token() == 0) {
    throw staging_error(std::string(what) +
                        " outside an extraction: dyn values exist only while jit::extract runs "
                        "the first stage");
  }
  return *explorer;
}

// Expressions built during an extraction come from its pool.
augur::stage::ExprPool* pool() {
  Explorer* explorer = Explorer::current();
  return explorer ? &explorer->pool() : nullptr;
}

}  // namespace

expr_ref constant(ir_type type, std::uint64_t bits) {
  if (auto* p = pool()) return p->constant(to_ir(type), bits);
  return ir::constant(to_ir(type), bits);
}
expr_ref unary(unary_op op, expr_ref operand) {
  if (auto* p = pool()) return p->unary(static_cast<ir::UnaryOp>(op), operand);
  return ir::unary(static_cast<ir::UnaryOp>(op), std::move(operand));
}
expr_ref binary(binary_op op, expr_ref lhs, expr_ref rhs) {
  if (auto* p = pool()) return p->binary(static_cast<ir::BinaryOp>(op), lhs, rhs);
  return ir::binary(static_cast<ir::BinaryOp>(op), std::move(lhs), std::move(rhs));
}
expr_ref cast(ir_type to, expr_ref operand) {
  if (auto* p = pool()) return p->cast(to_ir(to), operand);
  return ir::cast(to_ir(to), std::move(operand));
}
expr_ref select(expr_ref cond, expr_ref then_value, expr_ref else_value) {
  if (auto* p = pool()) return p->select(cond, then_value, else_value);
  return ir::select(std::move(cond), std::move(then_value), std::move(else_value));
}
expr_ref load(expr_ref pointer, expr_ref index) {
  if (auto* p = pool()) return p->load(pointer, index);
  return ir::load(std::move(pointer), std::move(index));
}
expr_ref math(math_op op, std::initializer_list<expr_ref> args) {
  if (auto* p = pool())
    return p->math(static_cast<ir::MathOp>(op), std::span(args.begin(), args.size()));
  return ir::math(static_cast<ir::MathOp>(op), std::vector<expr_ref>(args));
}
ir_type type_of(const expr_ref& e) {
  return augur::stage::from_ir(e->type);
}

expr_ref call(const extern_entry& fn, std::span<const expr_ref> args) {
  if (auto* p = pool()) return p->call(fn.binding.decl, args);
  return ir::call(fn.binding.decl, std::vector<expr_ref>(args.begin(), args.end()));
}

expr_ref call_now(const extern_entry& fn, std::span<const expr_ref> args) {
  Explorer& explorer = active("a call to an external function");
  expr_ref e = call(fn, args);
  if (e->type.is_void()) {
    explorer.eval(std::move(e));
    return nullptr;
  }
  const ir::Type type = e->type;
  const var_ref v = explorer.declare(type, std::move(e), nullptr);
  expr_ref result = explorer.pool().read(ir::VarId{v.id}, type);
  explorer.release(v);
  return result;
}

expr_ref gpu_index_of(gpu_index which, unsigned axis) {
  Explorer& explorer = active("a GPU index was read");
  explorer.require_kernel("a GPU thread or block index");
  return explorer.pool().gpu_index(static_cast<ir::GpuIndex>(which), axis);
}

expr_ref table(ir_type element, std::span<const std::byte> bytes) {
  Explorer& explorer = active("jit::table was called");
  try {
    return explorer.pool().table(to_ir(element),
                                 std::vector<std::byte>(bytes.begin(), bytes.end()));
  } catch (const jit::verify_error& e) {
    throw jit::staging_error("jit::table: " + e.message());
  }
}

expr_ref atomic_now(atomic_op op, std::span<const expr_ref> args) {
  Explorer& explorer = active("an atomic operation");
  explorer.require_kernel("a jit::gpu atomic operation");
  expr_ref e = explorer.pool().atomic(static_cast<ir::AtomicOp>(op), args);
  const ir::Type type = e->type;
  const var_ref v = explorer.declare(type, std::move(e), nullptr);
  expr_ref result = explorer.pool().read(ir::VarId{v.id}, type);
  explorer.release(v);
  return result;
}

var_ref declare_shared(ir_type pointer_type, std::uint32_t count, const char* name) {
  return active("a jit::gpu::shared_array was created")
      .declare_shared(to_ir(pointer_type), count, name);
}

void barrier() {
  active("jit::gpu::barrier() was called").barrier();
}

std::uint64_t current_token() noexcept {
  return Explorer::current_token();
}

void throw_foreign_use(const char* what, std::uint64_t token) {
  if (token == 0) {
    throw staging_error(std::string("use of a moved-from ") + what);
  }
  Explorer* explorer = Explorer::current();
  if (!explorer || explorer->token() == 0) {
    throw staging_error(std::string(what) +
                        " used outside the extraction that made it (no first stage is running "
                        "on this thread)");
  }
  throw staging_error(std::string(what) +
                      " made in another run of the first stage (or another extraction) was used "
                      "here: keep dyn values inside the generator, not in state that outlives a "
                      "run");
}

var_ref declare(ir_type type, expr_ref init, const char* name) {
  return active("a jit::dyn variable was created").declare(to_ir(type), std::move(init), name);
}
var_ref parameter(std::uint32_t index) {
  return active("a parameter was made").parameter(index);
}
void release(const var_ref& v) noexcept {
  if (Explorer* explorer = Explorer::current()) explorer->release(v);
}
expr_ref read(const var_ref& v, ir_type type) {
  if (auto* p = pool()) return p->read(ir::VarId{v.id}, to_ir(type));
  return ir::read(ir::VarId{v.id}, to_ir(type));
}
void assign(const var_ref& v, expr_ref value) {
  check_token(v.token, "a jit::dyn variable");
  active("a jit::dyn variable was assigned").assign(v, std::move(value));
}
void store(expr_ref pointer, expr_ref index, expr_ref value) {
  active("a store through a jit::dyn pointer")
      .store(std::move(pointer), std::move(index), std::move(value));
}
bool branch(expr_ref cond) {
  return active("a jit::dyn condition was tested").branch(std::move(cond));
}
void finish(expr_ref value) {
  active("a staged function returned").finish(std::move(value));
}

stat_handle stat_attach(std::span<const std::byte> value) noexcept {
  Explorer* explorer = Explorer::current();
  return explorer ? explorer->stat_attach(value) : stat_handle{};
}
void stat_update(const stat_handle& h, std::span<const std::byte> old_value,
                 std::span<const std::byte> new_value) noexcept {
  if (h.token == 0) return;
  if (Explorer* explorer = Explorer::current()) explorer->stat_update(h, old_value, new_value);
}
void stat_detach(const stat_handle& h, std::span<const std::byte> value) noexcept {
  if (h.token == 0) return;
  if (Explorer* explorer = Explorer::current()) explorer->stat_detach(h, value);
}

prophecy_slot& prophecy_at(const std::type_info& lattice, jit::detail::source_site site,
                           std::unique_ptr<prophecy_slot> (*make)()) {
  return active("a jit::prophecy was constructed").prophecy_at(lattice, site, make);
}
void prophecy_missed(prophecy_slot& slot) {
  active("a jit::prophecy requirement was checked").prophecy_missed(slot);
}

}  // namespace jit::detail
