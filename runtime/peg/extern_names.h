// Process-wide ids for extern names, the payload of call e-nodes. A name keeps
// its id for the life of the process, so rules registered once (user rules)
// match calls in every function compiled afterwards. Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace augur::peg {

// The id of `name`, interning it on first use.
std::uint64_t extern_name_id(std::string_view name);
// The name of an id extern_name_id returned.
std::string extern_name(std::uint64_t id);

}  // namespace augur::peg
