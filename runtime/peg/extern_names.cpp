#include "runtime/peg/extern_names.h"

#include <deque>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

namespace augur::peg {

namespace {

class Names {
 public:
  std::uint64_t id(std::string_view name) {
    {
      std::shared_lock lock(mutex_);
      if (auto it = ids_.find(std::string(name)); it != ids_.end()) return it->second;
    }
    std::unique_lock lock(mutex_);
    auto [it, added] = ids_.emplace(std::string(name), names_.size());
    if (added) names_.emplace_back(name);
    return it->second;
  }

  std::string name(std::uint64_t id) const {
    std::shared_lock lock(mutex_);
    return id < names_.size() ? names_[id] : "<extern " + std::to_string(id) + ">";
  }

  static Names& instance() {
    // Never destroyed: compiles may run during static destruction.
    static Names* names = new Names;
    return *names;
  }

 private:
  mutable std::shared_mutex mutex_;
  std::unordered_map<std::string, std::uint64_t> ids_;
  std::deque<std::string> names_;
};

}  // namespace

std::uint64_t extern_name_id(std::string_view name) {
  return Names::instance().id(name);
}

std::string extern_name(std::uint64_t id) {
  return Names::instance().name(id);
}

}  // namespace augur::peg
