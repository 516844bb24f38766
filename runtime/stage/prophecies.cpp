#include "runtime/stage/prophecies.h"

#include <algorithm>

#include "jit/error.h"

namespace augur::stage {

namespace {

std::string site_of(const jit::detail::source_site& site) {
  return std::string(site.file) + ":" + std::to_string(site.line) + " (" + site.function + ")";
}

}  // namespace

ProphecyTable::Slot& ProphecyTable::at(Tag tag, const std::type_info& lattice,
                                       jit::detail::source_site site,
                                       std::unique_ptr<Slot> (*make)()) {
  auto [it, inserted] = entries_.try_emplace(tag);
  Entry& entry = it->second;
  if (inserted) {
    entry.slot = make();
    entry.slot->lattice = &lattice;
    entry.slot->site = site;
    entry.history.push_back(entry.slot->describe());
    by_slot_.emplace(entry.slot.get(), &entry);
  } else if (*entry.slot->lattice != lattice) {
    throw jit::staging_error("the prophecy constructed at " + site_of(site) +
                             " has a different lattice than the one constructed at " +
                             site_of(entry.slot->site) + " in the same static state");
  }
  return *entry.slot;
}

void ProphecyTable::missed(Slot& slot) {
  Entry* entry = by_slot_.at(&slot);
  if (std::find(missed_.begin(), missed_.end(), entry) == missed_.end()) missed_.push_back(entry);
}

std::size_t ProphecyTable::commit() {
  for (auto& [tag, entry] : entries_) entry.changed = false;
  std::size_t changed = 0;
  for (Entry* entry : missed_) {
    if (entry->slot->commit()) {
      entry->changed = true;
      entry->history.push_back(entry->slot->describe());
      ++changed;
    }
  }
  missed_.clear();
  return changed;
}

std::size_t ProphecyTable::narrow() {
  std::size_t changed = 0;
  for (auto& [tag, entry] : entries_) {
    if (entry.slot->narrow()) ++changed;
  }
  return changed;
}

void ProphecyTable::restore() {
  for (auto& [tag, entry] : entries_) entry.slot->restore();
  missed_.clear();
}

std::string ProphecyTable::describe_changed() const {
  std::string out;
  for (const auto& [tag, entry] : entries_) {
    if (!entry.changed) continue;
    if (!out.empty()) out += "; ";
    out += "the prophecy constructed at " + site_of(entry.slot->site);
    if (!entry.history.front().empty()) {
      out += " took the values ";
      const std::size_t first = entry.history.size() > 8 ? entry.history.size() - 8 : 0;
      if (first > 0) out += "..., ";
      for (std::size_t i = first; i < entry.history.size(); ++i) {
        out += (i == first ? "" : " -> ") + entry.history[i];
      }
    } else {
      out += " changed " + std::to_string(entry.history.size() - 1) +
             " times (give its lattice a describe() to see the values)";
    }
  }
  return out;
}

}  // namespace augur::stage
