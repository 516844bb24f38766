// The part of jit::handle that does not depend on its signature: the current
// entry (what a call loads), and the control block behind it (publication,
// retirement, background compiles), implemented in runtime/swap.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <typeinfo>

#include "jit/tiering.h"

namespace jit::detail {

using erased_entry = void (*)();

// One compiled version: its entry, and the owner that keeps its code loaded.
struct compiled_version {
  erased_entry entry = nullptr;
  std::shared_ptr<const void> owner;
};

// A staged generator bound to its static values, compilable at each tier.
class specialization {
 public:
  virtual ~specialization() = default;
  virtual compiled_version compile(jit::tier tier) const = 0;
  // The same generator bound to other static values: `statics` points to a
  // std::tuple of them, of type `type`. Throws jit::error if the types differ
  // from this specialization's.
  virtual std::shared_ptr<const specialization> with(const void* statics,
                                                     const std::type_info& type) const = 0;
};

class handle_control;

class handle_core : public std::enable_shared_from_this<handle_core> {
 public:
  // `unpublished` serves calls until a version is published (it throws).
  explicit handle_core(erased_entry unpublished);
  ~handle_core();
  handle_core(const handle_core&) = delete;
  handle_core& operator=(const handle_core&) = delete;

  erased_entry current() const noexcept { return entry_.load(std::memory_order_acquire); }
  // Positive while a quick version counts calls towards promotion.
  bool counting() const noexcept {
    return calls_until_promotion_.load(std::memory_order_relaxed) > 0;
  }
  void count_call();

  void publish(compiled_version version, jit::tier tier);
  // Serves `spec` at the quick tier now (compiled on this thread), and
  // promotes it as `policy` says.
  void start_tiered(std::shared_ptr<const specialization> spec, tiering policy);
  // Compiles the live specialization rebound to `statics` at the optimized
  // tier in the background, and publishes it unless a newer request wins.
  void respecialize(const void* statics, const std::type_info& type);
  void promote();
  void wait();
  std::size_t reclaim();
  handle_statistics statistics() const;

  // For runtime/swap.
  handle_control& control() noexcept { return *control_; }
  erased_entry exchange_entry(erased_entry entry) noexcept {
    return entry_.exchange(entry, std::memory_order_seq_cst);
  }
  void count_calls_until_promotion(std::int64_t calls) noexcept {
    calls_until_promotion_.store(calls, std::memory_order_relaxed);
  }

 private:
  std::atomic<erased_entry> entry_;
  std::atomic<std::int64_t> calls_until_promotion_{0};
  std::unique_ptr<handle_control> control_;
};

[[noreturn]] void throw_unpublished();

}  // namespace jit::detail
