// IR expressions as CUDA C++ expressions with exactly the IR's semantics
// (docs/ir.md): every emitted expression has the C++ type that its IR type is
// typedef'd to (narrow integer results are cast back, as C++ promotes them to
// int), integer arithmetic wraps, shift counts are masked, float → integer
// conversions saturate, and &&, || and ?: stay lazy. Parentheses are the
// minimal ones, plus those that -Wparentheses would ask for.
#pragma once

#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpu/cuda_helpers.h"
#include "runtime/ir/ir.h"

namespace augur::gpu {

// The C++ spelling of an IR type in generated code ("f32*").
std::string cuda_type(ir::Type type);

// The tables a module's expressions use, each written once at file scope as
// a read-only device array (augur_table_<k>).
class CudaTables {
 public:
  // The name of `table`'s array, numbering it on first use.
  std::string name(const ir::TableRef& table);
  // The arrays' definitions.
  std::string definitions() const;

 private:
  std::vector<ir::TableRef> tables_;
  // Each table found by its address, and each address's number by the
  // contents' hash, so that a table used many times costs one lookup a use.
  std::unordered_map<const ir::TableData*, std::size_t> by_address_;
  std::unordered_multimap<std::uint64_t, std::size_t> by_content_;
};

class CudaExprWriter {
 public:
  // `names[i]` is the C++ name of variable i; helpers used are added to `helpers`.
  CudaExprWriter(const std::vector<std::string>& names, std::set<Helper>& helpers,
                 CudaTables& tables)
      : names_(names), helpers_(helpers), tables_(tables) {}

  // The expression, parenthesized if it binds looser than a full expression
  // (only a comma would): suitable for an initializer, a condition, an argument.
  std::string full(const ir::Expr& e);
  // The zero value of `type`, for declarations without an initializer.
  std::string zero(ir::Type type);

 private:
  struct Code {
    std::string text;
    int level;  // C++ precedence: higher binds tighter
  };

  Code expr(const ir::Expr& e);
  std::string at(const ir::Expr& e, int min_level);
  std::string at(const Code& c, int min_level);

  Code constant(const ir::Expr& e);
  Code unary(const ir::Expr& e);
  Code binary(const ir::Expr& e);
  Code operator_binary(const ir::Expr& e, const std::string& op, int level);
  Code cast(const ir::Expr& e);
  Code math(const ir::Expr& e);
  Code atomic(const ir::Expr& e);
  Code helper_call(Helper h, std::initializer_list<const ir::Expr*> args);
  Code helper_call(Helper h, const std::vector<ir::ExprPtr>& args);
  std::string element_address(const ir::Expr& pointer, const ir::Expr& index);

  const std::vector<std::string>& names_;
  std::set<Helper>& helpers_;
  CudaTables& tables_;
};

}  // namespace augur::gpu
