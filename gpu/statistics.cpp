#include "gpu/statistics.h"

namespace augur::gpu {

Counters& counters() {
  static Counters instance;
  return instance;
}

}  // namespace augur::gpu
