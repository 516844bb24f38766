// A list of ids that holds two without a heap allocation. Most e-classes
// have one or two e-nodes and one or two parents, and an e-graph makes a
// class for every e-node it adds: two vectors per class were an allocation
// or two per e-node, a sixth of the PEG optimizer's allocations.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "runtime/eqsat/id.h"

namespace augur::eqsat {

class IdList {
 public:
  IdList() = default;
  IdList(IdList&& other) noexcept { take(other); }
  IdList& operator=(IdList&& other) noexcept {
    if (this != &other) {
      heap_.reset();
      take(other);
    }
    return *this;
  }
  IdList(const IdList&) = delete;
  IdList& operator=(const IdList&) = delete;
  ~IdList() = default;

  Id* data() { return heap_ ? heap_.get() : inline_.data(); }
  const Id* data() const { return heap_ ? heap_.get() : inline_.data(); }
  Id* begin() { return data(); }
  Id* end() { return data() + size_; }
  const Id* begin() const { return data(); }
  const Id* end() const { return data() + size_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t capacity() const { return capacity_; }
  // Bytes held outside the list itself.
  std::size_t heap_bytes() const { return heap_ ? capacity_ * sizeof(Id) : 0; }
  operator std::span<const Id>() const { return {data(), size_}; }

  void push_back(Id id) {
    if (size_ == capacity_) reserve(std::size_t{size_} + 1);
    data()[size_++] = id;
  }
  void append(std::span<const Id> ids) {
    reserve(size_ + ids.size());
    std::copy(ids.begin(), ids.end(), data() + size_);
    size_ += static_cast<std::uint32_t>(ids.size());
  }
  // Drops [first, end()).
  void erase_from(const Id* first) { size_ = static_cast<std::uint32_t>(first - data()); }
  template <class Pred>
  void erase_if(Pred&& pred) {
    erase_from(std::remove_if(begin(), end(), pred));
  }
  void reserve(std::size_t wanted) {
    if (wanted <= capacity_) return;
    const std::size_t grown = std::max(wanted, std::size_t{capacity_} * 2);
    auto bigger = std::make_unique_for_overwrite<Id[]>(grown);
    std::copy(begin(), end(), bigger.get());
    heap_ = std::move(bigger);
    capacity_ = static_cast<std::uint32_t>(grown);
  }

 private:
  static constexpr std::uint32_t kInline = 2;

  void take(IdList& other) {
    size_ = other.size_;
    capacity_ = other.capacity_;
    if (other.heap_) {
      heap_ = std::move(other.heap_);
    } else {
      inline_ = other.inline_;
    }
    other.size_ = 0;
    other.capacity_ = kInline;
  }

  std::unique_ptr<Id[]> heap_;  // null while the ids fit inline_
  std::uint32_t size_ = 0;
  std::uint32_t capacity_ = kInline;
  std::array<Id, kInline> inline_{};
};

}  // namespace augur::eqsat
