// One compiled version: what a cache entry and every jit::function made from
// it share. The code is unloaded when the last reference goes (the backend's
// compile::Code's destructor): the cache's reference is only one of them.
#pragma once

#include <memory>
#include <string>

#include "jit/extract.h"
#include "runtime/compile/backend.h"
#include "runtime/ir/hash.h"

namespace augur::cache {

struct Version {
  std::shared_ptr<const compile::Code> code;
  void* entry = nullptr;  // the staged function's native entry point
  // What identifies the program across generators (the second level's key):
  // its IR text (compared in full), its content hash and the backend's
  // toolchain (target and options).
  std::string program;
  ir::Hash128 program_hash;
  std::string toolchain;
  // The extraction that produced the program (the first request's, when
  // later ones with an equal program share this version).
  jit::stage_report stage;
};

}  // namespace augur::cache
