// The state behind a jit::handle's entry: the live version and the request
// it answers, the retired versions waiting for their callers to leave, the
// background compiles, and the statistics. Guarded by `mutex`.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <vector>

#include "jit/detail/handle_core.h"

namespace jit::detail {

struct retired_version {
  std::shared_ptr<const void> owner;
  std::uint64_t epoch = 0;  // the global epoch it was retired in
};

class handle_control {
 public:
  std::mutex mutex;

  // Requests are numbered: a publication, a respecialization, or a tiered
  // compile each take the next ticket, and a compiled version is published
  // only if its ticket (then its tier) is newer than the live one's.
  std::uint64_t tickets = 0;
  std::uint64_t live_ticket = 0;
  jit::tier live_tier = jit::tier::quick;
  std::shared_ptr<const void> live_owner;
  std::shared_ptr<const specialization> live_spec;       // null for plain publish()
  std::shared_ptr<const specialization> requested_spec;  // the newest respecialization
  std::uint64_t promoting_ticket = 0;                    // optimized compile started for it
  tiering policy;

  std::vector<retired_version> retired;
  bool listed_as_held = false;  // in collect_held()'s list (publish.h)

  std::uint64_t pending = 0;
  std::condition_variable idle;
  std::exception_ptr failure;

  handle_statistics counts;
};

}  // namespace jit::detail
