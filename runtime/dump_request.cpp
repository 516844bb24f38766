#include "runtime/dump_request.h"

#include <cstdlib>

namespace augur {

bool dump_requested(std::string_view stage) {
  const char* value = std::getenv("AUGUR_DUMP");
  std::string_view list = value ? value : "";
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    if (item == stage || item == "all") return true;
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  return false;
}

}  // namespace augur
