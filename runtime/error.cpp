#include "jit/error.h"

#include <utility>

namespace jit {

std::string location::str() const {
  std::string out;
  if (!file.empty()) out += file;
  if (line > 0) {
    out += (out.empty() ? "" : ":") + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
  }
  if (!function.empty())
    out += (out.empty() ? "" : ": ") + std::string("function '") + function + "'";
  if (!path.empty()) out += (out.empty() ? "" : " ") + std::string("at ") + path;
  return out;
}

namespace {
std::string with_location(const std::string& message, const location& where) {
  std::string prefix = where.str();
  return prefix.empty() ? message : prefix + ": " + message;
}
}  // namespace

error::error(std::string message, location where)
    : std::runtime_error(with_location(message, where)),
      message_(std::move(message)),
      where_(std::move(where)) {}

}  // namespace jit
