#include "runtime/stage/tag.h"

#include <unwind.h>

#include <cstdint>
#include <cstring>

#include "jit/error.h"
#include "runtime/stage/symbolize.h"

namespace augur::stage {

std::uint64_t hash_bytes(std::span<const std::byte> bytes) {
  if (bytes.size() <= 8) {  // most static values: one word
    std::uint64_t word = 0;
    std::memcpy(&word, bytes.data(), bytes.size());
    return murmur_mix64(word ^ (0x9ae16a3b2f90404full + bytes.size()));
  }
  std::uint64_t h = 0x9ae16a3b2f90404full ^ bytes.size();
  std::size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, bytes.data() + i, 8);
    h = murmur_mix64(h ^ word) + 0x9e3779b97f4a7c15ull;
  }
  if (i < bytes.size()) {
    std::uint64_t word = 0;
    std::memcpy(&word, bytes.data() + i, bytes.size() - i);
    h = murmur_mix64(h ^ word) + 0x9e3779b97f4a7c15ull;
  }
  return murmur_mix64(h);
}

CallChain::CallChain(jit::tag_source source, std::uint32_t max_depth)
    : source_(source), max_depth_(max_depth) {}

namespace {

[[noreturn]] void too_deep(std::uint32_t max_depth, const CallChain& chain) {
  const std::vector<const void*> frames = chain.frames();
  throw jit::staging_error(
      "unbounded recursion in dyn code: an operation is more than " + std::to_string(max_depth) +
      " frames below jit::extract (recursion on dyn values never ends in the first stage; "
      "recurse on static values, or write the recursion as a dyn loop); called from " +
      describe_frames(frames));
}

struct UnwindState {
  std::uintptr_t entry = 0;
  TagHasher hasher;
  std::uint32_t depth = 0;
  std::uint32_t max_depth = 0;
  bool reached = false;
  bool overflow = false;
  std::vector<const void*>* frames = nullptr;
};

_Unwind_Reason_Code visit_frame(_Unwind_Context* context, void* arg) {
  auto& state = *static_cast<UnwindState*>(arg);
  // The canonical frame address of the frame called by the entry lies below
  // the entry's frame record; the entry's own is above it.
  if (_Unwind_GetCFA(context) > state.entry) {
    state.reached = true;
    return _URC_END_OF_STACK;
  }
  const _Unwind_Ptr ip = _Unwind_GetIP(context);
  if (state.frames) {
    state.frames->push_back(reinterpret_cast<const void*>(ip));
  } else {
    state.hasher.add(ip);
  }
  if (++state.depth > state.max_depth) {
    state.overflow = true;
    return _URC_END_OF_STACK;
  }
  return _URC_NO_REASON;
}

}  // namespace

[[gnu::noinline]] CallChain::Result CallChain::read() const {
  if (source_ == jit::tag_source::frame_pointers) {
    return read_frame_pointers(__builtin_frame_address(0));
  }
  return read_unwind();
}

CallChain::Result CallChain::read_frame_pointers(const void* start) const {
  // A frame record is {saved frame pointer, return address}; records get
  // strictly higher towards the entry, and every one is 16-byte aligned.
  const auto entry = reinterpret_cast<std::uintptr_t>(entry_frame_);
  auto frame = reinterpret_cast<std::uintptr_t>(start);
  TagHasher hasher;
  std::uint32_t depth = 0;
  while (frame != entry) {
    if (frame > entry || (frame & 15) != 0) throw ChainBroken{};
    const auto* record = reinterpret_cast<const std::uintptr_t*>(frame);
    hasher.add(record[1]);
    if (++depth > max_depth_) too_deep(max_depth_, *this);
    const std::uintptr_t next = record[0];
    if (next <= frame) throw ChainBroken{};
    frame = next;
  }
  return {hasher.finish(), depth};
}

[[gnu::noinline]] CallChain::Result CallChain::read_unwind() const {
  UnwindState state;
  state.entry = reinterpret_cast<std::uintptr_t>(entry_frame_);
  state.max_depth = max_depth_;
  _Unwind_Backtrace(&visit_frame, &state);
  if (state.overflow) too_deep(max_depth_, *this);
  if (!state.reached) {
    throw jit::staging_error(
        "cannot read the call chain back to jit::extract (the unwinder stopped early)");
  }
  return {state.hasher.finish(), state.depth};
}

std::vector<const void*> CallChain::frames() const {
  std::vector<const void*> frames;
  UnwindState state;
  state.entry = reinterpret_cast<std::uintptr_t>(entry_frame_);
  state.max_depth = 64;
  state.frames = &frames;
  _Unwind_Backtrace(&visit_frame, &state);
  return frames;
}

}  // namespace augur::stage
