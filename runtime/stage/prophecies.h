// The prophecies of one extraction, by construction tag. Their predictions
// persist across runs and explorations; the misses of an exploration are
// committed (joined into the predictions) when it ends.
#pragma once

#include <memory>
#include <string>
#include <typeinfo>
#include <unordered_map>
#include <vector>

#include "jit/detail/staging.h"
#include "runtime/stage/tag.h"

namespace augur::stage {

class ProphecyTable {
 public:
  using Slot = jit::detail::prophecy_slot;

  // The prophecy with this construction tag, made by `make` the first time.
  Slot& at(Tag tag, const std::type_info& lattice, jit::detail::source_site site,
           std::unique_ptr<Slot> (*make)());
  void missed(Slot& slot);
  bool any_missed() const { return !missed_.empty(); }

  // Joins the misses into the predictions; returns how many changed.
  std::size_t commit();
  // After an exploration without misses: each prediction becomes what that
  // exploration required of it (prophecy_slot::narrow); how many changed.
  std::size_t narrow();
  // Undoes the last narrow() and forgets the misses since.
  void restore();
  // The prophecies that changed in the last commit, with their sites and values.
  std::string describe_changed() const;
  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::unique_ptr<Slot> slot;
    std::vector<std::string> history;  // printed predictions, oldest first
    bool changed = false;
  };

  std::unordered_map<Tag, Entry, TagHash> entries_;
  std::unordered_map<const Slot*, Entry*> by_slot_;
  std::vector<Entry*> missed_;
};

}  // namespace augur::stage
