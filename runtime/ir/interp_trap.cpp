// Traps: the checks that are too rare or too long to inline, and the messages
// they raise.
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "jit/error.h"
#include "runtime/ir/interp_run.h"

namespace augur::ir::interp {

namespace {

std::string hex(std::uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v));
  return text;
}

std::string_view name_of(Access access) {
  switch (access) {
    case Access::Load:
      return "load";
    case Access::Store:
      return "store";
    case Access::Atomic:
      return "atomic";
  }
  return "access";
}

// How far [address, address + size) sticks out of `region`, and on which side.
struct Distance {
  std::uint64_t bytes = 0;
  bool past = false;
};
Distance distance(std::uint64_t address, unsigned size, const Region& region) {
  if (address < region.base) return {region.base - address, false};
  return {address + size - (region.base + region.bytes), true};
}

Dim3 coordinates_at(const Value* v) {
  return {v[0].as<std::uint32_t>(), v[1].as<std::uint32_t>(), v[2].as<std::uint32_t>()};
}

}  // namespace

std::string coordinates(Dim3 d) {
  std::string text = "(";
  text += std::to_string(d.x);
  text += ',';
  text += std::to_string(d.y);
  text += ',';
  text += std::to_string(d.z);
  text += ')';
  return text;
}

void trap(std::string reason) {
  throw TrapSignal{std::move(reason)};
}

void raise_trap(const Program& program, std::uint32_t pc, const Value* regs,
                const std::string& reason) {
  std::string message = reason;
  if (program.kernel) {
    const Value* index = regs + program.gpu_index_base;
    message += " (thread " + coordinates(coordinates_at(index)) + " of block " +
               coordinates(coordinates_at(index + 3)) + ")";
  }
  const std::string& path = program.paths[program.instr_path[pc]];
  throw jit::trap_error(std::move(message), jit::location::in_function(program.name, path));
}

void check_access(const RunContext& context, std::uint64_t address, unsigned size, Access access) {
  const auto inside = [&](std::uint64_t base, std::uint64_t bytes) {
    const std::uint64_t offset = address - base;
    return offset <= bytes && bytes - offset >= size;
  };
  for (const Region& array : context.shared) {
    if (inside(array.base, array.bytes)) return;
  }
  for (const Buffer& buffer : context.program.buffers) {
    if (inside(reinterpret_cast<std::uintptr_t>(buffer.base), buffer.bytes)) return;
  }
  std::vector<Region> regions(context.shared.begin(), context.shared.end());
  for (const Buffer& buffer : context.program.buffers) {
    regions.push_back({reinterpret_cast<std::uintptr_t>(buffer.base), buffer.bytes, buffer.name});
  }
  out_of_bounds(access, address, size, regions);
}

void out_of_bounds(Access access, std::uint64_t address, unsigned size,
                   std::span<const Region> regions) {
  std::string message = std::string(name_of(access)) + " out of bounds: " + hex(address);
  const Region* nearest = nullptr;
  Distance best{std::numeric_limits<std::uint64_t>::max(), false};
  for (const Region& region : regions) {
    const Distance d = distance(address, size, region);
    if (!nearest || d.bytes < best.bytes) {
      nearest = &region;
      best = d;
    }
  }
  if (!nearest) {
    message += " is in no registered buffer";
  } else {
    message += " is " + std::to_string(best.bytes) + " bytes " + (best.past ? "past " : "before ") +
               (nearest->shared ? "shared array '" : "buffer '") + std::string(nearest->name) +
               "' [" + hex(nearest->base) + ", +" + std::to_string(nearest->bytes) + ")";
  }
  trap(std::move(message));
}

void null_access(Access access, std::uint64_t address) {
  trap(std::string(name_of(access)) + " through a null pointer: " + hex(address));
}

void misaligned_atomic(std::uint64_t address, unsigned size) {
  trap("misaligned atomic: " + hex(address) + " is not a multiple of " + std::to_string(size));
}

}  // namespace augur::ir::interp
