// Random arguments for a corpus program, drawn within its parameters' ranges
// (corpus.h). The buffers live here and the pointer arguments point into
// them; a copy owns its own buffers with the same contents, so one set of
// arguments can be run through several executions and the memory compared.
#pragma once

#include <cstdint>
#include <vector>

#include "bench/corpus/corpus.h"
#include "runtime/ir/interp.h"
#include "runtime/ir/value.h"

namespace augur::bench::corpus {

class Arguments {
 public:
  Arguments(const std::vector<Param>& params, std::uint64_t seed);
  Arguments(const Arguments& other);
  Arguments& operator=(const Arguments& other);
  Arguments(Arguments&&) noexcept = default;  // the buffers' storage moves with them
  Arguments& operator=(Arguments&&) noexcept = default;

  const std::vector<ir::Value>& values() const { return values_; }
  // The raw 64-bit argument words (scalars in canonical form, pointers as
  // addresses), for a caller through a generic C entry.
  std::vector<std::uint64_t> words() const;
  // The bytes of every buffer, in parameter order (scalars have none), as
  // testing::RandomInputs::memory() gives them.
  std::vector<std::vector<std::uint8_t>> memory() const;
  // Copies the buffers the program writes back from `pristine` (made from the
  // same parameters), so that the next call starts from the same arguments.
  void reset_written(const Arguments& pristine);
  // The bytes the program writes, in all (what reset_written() copies).
  std::size_t written_bytes() const;
  // The buffers for the interpreter's bounds-checked mode.
  std::vector<ir::Buffer> buffers() const;

 private:
  void point_at_buffers();

  std::vector<Param> params_;
  std::vector<std::vector<std::uint8_t>> buffers_;  // per parameter; empty for scalars
  std::vector<ir::Value> values_;
};

}  // namespace augur::bench::corpus
