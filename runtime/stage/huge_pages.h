// Memory for the first stage's large arrays: the expression pool's and the
// event index's slots, the graph's nodes, the tables kept per node while
// exploring and structuring. A block of kHugePage bytes or more is aligned
// to kHugePage and advised as transparent huge pages (madvise), so that a
// million-node extraction
// faults its tables in a few hundred 2 MiB pages instead of tens of thousands
// of 4 KiB ones, and random probes of them miss the TLB less. Smaller blocks
// are ordinary allocations. All come from operator new, so freed blocks are
// reused by the next extraction as malloc keeps them.
#pragma once

#include <cstddef>
#include <vector>

namespace augur::stage {

inline constexpr std::size_t kHugePage = std::size_t{2} << 20;

// A block of at least `bytes`, as described above; release it with
// release_block(p, bytes) and the same `bytes`.
void* allocate_block(std::size_t bytes);
void release_block(void* p, std::size_t bytes) noexcept;

// Advises the 2 MiB-aligned pages inside [p, p + bytes), memory not yet
// touched, as transparent huge pages: for a large result of the first stage
// (a block of statements) that lives on in memory allocated elsewhere.
void advise_huge_pages(void* p, std::size_t bytes) noexcept;

template <class T>
struct HugePageAllocator {
  using value_type = T;

  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) { return static_cast<T*>(allocate_block(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { release_block(p, n * sizeof(T)); }

  template <class U>
  friend bool operator==(const HugePageAllocator&, const HugePageAllocator<U>&) noexcept {
    return true;
  }
};

template <class T>
using BigVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace augur::stage
