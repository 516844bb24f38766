// Stable 128-bit content hashes of IR, and the hasher behind them (also used to
// hash cache keys). Stable means: the same on every run, process and machine.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "runtime/ir/ir.h"

namespace augur::ir {

struct Hash128 {
  std::uint64_t hi = 0;
  std::uint64_t lo = 0;

  std::string hex() const;  // 32 lowercase hex digits, hi first
  friend constexpr bool operator==(Hash128, Hash128) = default;
  friend constexpr auto operator<=>(Hash128, Hash128) = default;
};

// A streaming hash of 64-bit words and byte strings. Inputs are fed as values,
// never as pointers or host-endian memory, so results do not depend on the machine.
class Hasher {
 public:
  void add(std::uint64_t word);
  void add(std::string_view bytes);  // length-prefixed, so ("ab","c") != ("a","bc")
  Hash128 finish() const;

 private:
  std::uint64_t a_ = 0x6a09e667f3bcc908ull;
  std::uint64_t b_ = 0xbb67ae8584caa73bull;
  std::uint64_t count_ = 0;
};

// The structure of `function` without any names but those of the externs it
// calls: two functions that differ only in their own name or their variables'
// names hash the same.
Hash128 content_hash(const Function& function);
// Every function of the module, with function names, and its extern declarations.
Hash128 content_hash(const Module& module);

}  // namespace augur::ir
