#include "runtime/stage/expr_arena.h"

#include <new>
#include <stdexcept>
#include <utility>

#include "runtime/stage/huge_pages.h"

namespace augur::stage {

namespace {

// The first bytes of every granule: its region.
struct GranuleHeader {
  void* region;
  std::uint64_t unused;
};
static_assert(sizeof(GranuleHeader) == 16);

thread_local ExprArena* t_current = nullptr;
std::atomic<std::size_t> regions{0};

}  // namespace

ExprArena::ExprArena(ExprArena&& other) noexcept {
  *this = std::move(other);
}

ExprArena& ExprArena::operator=(ExprArena&& other) noexcept {
  if (this == &other) return *this;
  leave_region();
  region_ = std::exchange(other.region_, nullptr);
  made_in_region_ = std::exchange(other.made_in_region_, 0);
  cursor_ = std::exchange(other.cursor_, nullptr);
  granule_end_ = std::exchange(other.granule_end_, nullptr);
  region_end_ = std::exchange(other.region_end_, nullptr);
  regions_made_ = std::exchange(other.regions_made_, 0);
  return *this;
}

ExprArena::~ExprArena() {
  leave_region();
}

ExprArena::Scope::Scope(ExprArena& arena) noexcept : saved_(t_current) {
  t_current = &arena;
}

ExprArena::Scope::~Scope() {
  t_current = saved_;
}

ExprArena& ExprArena::current() noexcept {
  return *t_current;
}

std::size_t ExprArena::live_regions() noexcept {
  return regions.load(std::memory_order_relaxed);
}

void* ExprArena::allocate(std::size_t bytes) {
  if (bytes > kMaxObject) throw std::length_error("an expression node larger than the arena takes");
  bytes = (bytes + kAlign - 1) / kAlign * kAlign;
  if (cursor_ == nullptr || static_cast<std::size_t>(granule_end_ - cursor_) < bytes) {
    next_granule();
  }
  void* p = cursor_;
  cursor_ += bytes;
  ++made_in_region_;
  return p;
}

void ExprArena::next_granule() {
  if (granule_end_ == region_end_) {
    new_region();
    return;
  }
  new (granule_end_) GranuleHeader{region_, 0};
  cursor_ = granule_end_ + sizeof(GranuleHeader);
  granule_end_ += kGranule;
}

void ExprArena::new_region() {
  leave_region();
  const std::size_t bytes = regions_made_++ < kSmallRegions ? kGranule : kHugePage;
  auto* base =
      static_cast<std::byte*>(bytes < kHugePage ? ::operator new (bytes, std::align_val_t{kGranule})
                                                : allocate_block(bytes));
  regions.fetch_add(1, std::memory_order_relaxed);
  region_ = new (base + sizeof(GranuleHeader)) Region{{kHeld}, bytes};
  new (base) GranuleHeader{region_, 0};
  made_in_region_ = 0;
  cursor_ = base + sizeof(GranuleHeader) + sizeof(Region);
  granule_end_ = base + kGranule;
  region_end_ = base + bytes;
}

void ExprArena::leave_region() noexcept {
  if (!region_) return;
  const std::uint64_t unheld = kHeld - made_in_region_;
  if (region_->live.fetch_sub(unheld, std::memory_order_acq_rel) == unheld) free_region(region_);
  region_ = nullptr;
}

void ExprArena::release(void* p) noexcept {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  const auto* header = reinterpret_cast<const GranuleHeader*>(address & ~(kGranule - 1));
  auto* region = static_cast<Region*>(header->region);
  if (region->live.fetch_sub(1, std::memory_order_acq_rel) == 1) free_region(region);
}

void ExprArena::free_region(Region* region) noexcept {
  const std::size_t bytes = region->bytes;
  void* base = reinterpret_cast<std::byte*>(region) - sizeof(GranuleHeader);
  region->~Region();
  regions.fetch_sub(1, std::memory_order_relaxed);
  if (bytes < kHugePage) {
    ::operator delete (base, bytes, std::align_val_t{kGranule});
  } else {
    release_block(base, bytes);
  }
}

}  // namespace augur::stage
