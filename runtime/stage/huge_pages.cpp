#include "runtime/stage/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>
#include <new>

namespace augur::stage {

namespace {

// Whole 4 KiB pages: madvise takes no less.
std::size_t rounded(std::size_t bytes) {
  constexpr std::size_t kPage = 4096;
  return (bytes + kPage - 1) / kPage * kPage;
}

}  // namespace

void* allocate_block(std::size_t bytes) {
  if (bytes < kHugePage) return ::operator new(bytes);
  const std::size_t size = rounded(bytes);
  void* p = ::operator new (size, std::align_val_t{kHugePage});
  // Only advice: where the kernel has no huge page at hand, or the block ends
  // inside one, it maps small pages.
  madvise(p, size, MADV_HUGEPAGE);
  return p;
}

void release_block(void* p, std::size_t bytes) noexcept {
  if (bytes < kHugePage) {
    ::operator delete(p, bytes);
  } else {
    ::operator delete (p, rounded(bytes), std::align_val_t{kHugePage});
  }
}

void advise_huge_pages(void* p, std::size_t bytes) noexcept {
  const auto start = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t first = (start + kHugePage - 1) / kHugePage * kHugePage;
  const std::uintptr_t last = (start + bytes) / kHugePage * kHugePage;
  if (bytes >= kHugePage && first < last) {
    madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
  }
}

}  // namespace augur::stage
