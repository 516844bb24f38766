#include "jit/cpu/object_bundle.h"

#include <cstdint>
#include <cstring>
#include <string_view>

#include "jit/error.h"

namespace augur::cpu {

namespace {

constexpr std::string_view kMagic = "AUGOBJS1";

void put_u64(std::vector<char>& out, std::uint64_t value) {
  for (int byte = 0; byte < 8; ++byte) out.push_back(static_cast<char>(value >> (8 * byte)));
}

// Reads a u64 at `at`, advancing it; false past the end.
bool get_u64(std::span<const char> bytes, std::size_t& at, std::uint64_t& value) {
  if (bytes.size() - at < 8) return false;
  value = 0;
  for (int byte = 0; byte < 8; ++byte) {
    value |= std::uint64_t{static_cast<unsigned char>(bytes[at + byte])} << (8 * byte);
  }
  at += 8;
  return true;
}

}  // namespace

std::vector<char> bundle_objects(std::span<const std::unique_ptr<llvm::MemoryBuffer>> objects) {
  std::vector<char> out(kMagic.begin(), kMagic.end());
  put_u64(out, objects.size());
  for (const auto& object : objects) {
    put_u64(out, object->getBufferSize());
    out.insert(out.end(), object->getBufferStart(), object->getBufferEnd());
  }
  return out;
}

std::vector<std::span<const char>> unbundle_objects(std::span<const char> bytes) {
  if (bytes.size() < kMagic.size() ||
      std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) != 0) {
    return {bytes};
  }
  std::size_t at = kMagic.size();
  std::uint64_t count = 0;
  if (!get_u64(bytes, at, count) || count > bytes.size()) {
    throw jit::compile_error("not a loadable object file: truncated object bundle");
  }
  std::vector<std::span<const char>> objects;
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint64_t size = 0;
    if (!get_u64(bytes, at, size) || size > bytes.size() - at) {
      throw jit::compile_error("not a loadable object file: truncated object bundle");
    }
    objects.push_back(bytes.subspan(at, size));
    at += size;
  }
  if (at != bytes.size()) {
    throw jit::compile_error("not a loadable object file: trailing bytes in an object bundle");
  }
  return objects;
}

}  // namespace augur::cpu
