// Memory for the expression nodes of one extraction's pool. Nodes, with their
// shared_ptr control blocks, are carved in the order they are made from
// regions, instead of one malloc each: 64 regions of 32 KiB (a small
// extraction leaves at most 32 KiB unused, and malloc keeps them for the
// next one), then regions of kHugePage, each a huge page
// (runtime/stage/huge_pages.h). A
// million nodes touch a few hundred huge pages rather than tens of thousands
// of 4 KiB pages, and the runs that replay recorded code meet the nodes in
// the order they were made. Nodes outlive the pool (the IR holds them), so
// a region is freed when its last node is released, on whatever thread: a
// node finds its region from the header at the start of its 32 KiB granule,
// and the region counts its live nodes.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace augur::stage {

class ExprArena {
 public:
  ExprArena() = default;
  ExprArena(ExprArena&& other) noexcept;
  ExprArena& operator=(ExprArena&& other) noexcept;
  ~ExprArena();  // frees the current region if nothing in it lives

  // At least `bytes` (at most kMaxObject), aligned to kAlign.
  void* allocate(std::size_t bytes);
  // Releases what allocate() returned, from any thread.
  static void release(void* p) noexcept;

  // The arena that ArenaAllocator allocates from on this thread while a
  // Scope lives.
  class Scope {
   public:
    explicit Scope(ExprArena& arena) noexcept;
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    ~Scope();

   private:
    ExprArena* saved_;
  };
  static ExprArena& current() noexcept;

  // Regions of all arenas not freed yet, in the whole process (for tests).
  static std::size_t live_regions() noexcept;

  static constexpr std::size_t kGranule = std::size_t{32} << 10;
  static constexpr std::size_t kMaxObject = 1024;
  static constexpr std::size_t kAlign = 8;

 private:
  struct Region {
    // The nodes not yet released, plus kHeld while the arena allocates from it.
    std::atomic<std::uint64_t> live;
    std::size_t bytes;
  };
  // Keeps the region alive while the arena counts its nodes itself.
  static constexpr std::uint64_t kHeld = std::uint64_t{1} << 62;
  static constexpr std::size_t kSmallRegions = 64;

  void next_granule();
  void new_region();
  void leave_region() noexcept;
  static void free_region(Region* region) noexcept;

  Region* region_ = nullptr;
  std::uint64_t made_in_region_ = 0;
  std::byte* cursor_ = nullptr;
  std::byte* granule_end_ = nullptr;
  std::byte* region_end_ = nullptr;
  std::size_t regions_made_ = 0;
};

// Allocates from the arena a ScopedArena names on this thread, and releases
// to any arena. It is empty, so std::allocate_shared keeps no copy of it in
// the control block (8 bytes a node).
template <class T>
struct ArenaAllocator {
  using value_type = T;

  ArenaAllocator() = default;
  template <class U>
  ArenaAllocator(const ArenaAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    static_assert(alignof(T) <= ExprArena::kAlign);
    return static_cast<T*>(ExprArena::current().allocate(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t) noexcept { ExprArena::release(p); }

  template <class U>
  friend bool operator==(const ArenaAllocator&, const ArenaAllocator<U>&) noexcept {
    return true;
  }
};

}  // namespace augur::stage
