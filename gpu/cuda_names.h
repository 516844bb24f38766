// Names in generated CUDA C++. IR names may hold '.', be C++ keywords or
// collide with what the generated code itself uses (CUDA builtins, the type
// names and helpers of the prelude, math functions); such names are adjusted,
// the others kept, so the source reads like the IR.
#pragma once

#include <string>
#include <unordered_set>

namespace augur::gpu {

// Hands out valid, distinct C++ identifiers for the names of one scope
// (a function's variables, or a module's functions).
class CudaNamer {
 public:
  // `wanted` itself when it is free and valid, else the closest variant
  // ("x.1" → "x_1", "int" → "int_", "__x" → "v__x", a taken name → name_2).
  std::string take(const std::string& wanted);

 private:
  std::unordered_set<std::string> taken_;
};

// Whether generated code may not use `name` for a variable or function of its own.
bool is_reserved_cuda_name(const std::string& name);

}  // namespace augur::gpu
