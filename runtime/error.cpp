#include "jit/error.h"

#include <utility>

namespace jit {

std::string location::str() const {
  std::string out = file;
  if (line > 0) {
    if (!out.empty()) out += ':';
    out += std::to_string(line);
    if (column > 0) {
      out += ':';
      out += std::to_string(column);
    }
  }
  if (!function.empty()) {
    if (!out.empty()) out += ": ";
    out += "function '";
    out += function;
    out += '\'';
  }
  if (!path.empty()) {
    if (!out.empty()) out += ' ';
    out += "at ";
    out += path;
  }
  return out;
}

namespace {
std::string with_location(const std::string& message, const location& where) {
  std::string text = where.str();
  if (text.empty()) return message;
  text += ": ";
  text += message;
  return text;
}
}  // namespace

error::error(std::string message, location where)
    : std::runtime_error(with_location(message, where)),
      message_(std::move(message)),
      where_(std::move(where)) {}

}  // namespace jit
