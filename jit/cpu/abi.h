// The contract between generated code and the host side of the CPU backend:
// the symbols a compiled module defines and needs, and the layouts of what
// generated code and the host exchange.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/ir/ir.h"

namespace augur::cpu {

// Symbol names. Every prefix holds a '.', which no C identifier contains, so an
// IR function or extern never collides with the libc/libm symbols that LLVM's
// library calls (memset, fmod, exp) resolve in the process.
std::string function_symbol(std::string_view function);  // the function itself, C ABI
std::string invoker_symbol(std::string_view function);   // its InvokerFn
std::string block_symbol(std::string_view kernel);       // a kernel's BlockFn
std::string extern_symbol(std::string_view name);        // an extern, bound at load time
// A piece of a large function split for code generation (split_plan.h).
std::string part_symbol(std::string_view function, std::size_t index);

// The generic entry of a non-kernel function: arguments and result as canonical
// Value bits (runtime/ir/value.h); `result` is written for non-void functions.
using InvokerFn = void (*)(const std::uint64_t* args, std::uint64_t* result);

// What one block of a kernel launch sees; GPU index intrinsics read it.
struct BlockContext {
  std::array<std::int32_t, 3> grid_dim{1, 1, 1};
  std::array<std::int32_t, 3> block_dim{1, 1, 1};
  std::array<std::int32_t, 3> block_idx{0, 0, 0};
};
static_assert(sizeof(BlockContext) == 9 * sizeof(std::int32_t));

// Runs every thread of one block, one after another. `shared` holds the block's
// shared arrays (SharedLayout::bytes, aligned to kSharedAlignment); the block
// function zeroes it first.
using BlockFn = void (*)(const BlockContext* context, const std::uint64_t* args, void* shared);

inline constexpr std::size_t kSharedAlignment = 16;

// Where a kernel's shared arrays live in its block's shared memory.
struct SharedLayout {
  std::vector<std::size_t> offsets;  // by VarId index; meaningful for Shared variables only
  std::size_t bytes = 0;
};
SharedLayout shared_layout(const ir::Function& kernel);

}  // namespace augur::cpu
