#include "runtime/cache/disk_format.h"

#include <string_view>

#include "runtime/ir/hash.h"

namespace augur::cache {
namespace {

constexpr std::string_view kMagic = "AUGURobj";

ir::Hash128 checksum(std::span<const char> payload) {
  ir::Hasher hasher;
  hasher.add(std::string_view(payload.data(), payload.size()));
  return hasher.finish();
}

void put(std::vector<char>& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>(value >> (8 * i)));
}

std::uint64_t get(std::span<const char> in, std::size_t offset, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) {
    value |= std::uint64_t{static_cast<unsigned char>(in[offset + i])} << (8 * i);
  }
  return value;
}

}  // namespace

std::vector<char> encode_header(const DiskKey& key, std::span<const char> payload) {
  std::vector<char> header(kMagic.begin(), kMagic.end());
  header.reserve(kDiskHeaderBytes + key.toolchain.size() + key.program.size());
  put(header, kDiskFormatVersion, 4);
  put(header, key.toolchain.size(), 4);
  put(header, key.program.size(), 8);
  put(header, payload.size(), 8);
  const ir::Hash128 sum = checksum(payload);
  put(header, sum.hi, 8);
  put(header, sum.lo, 8);
  header.insert(header.end(), key.toolchain.begin(), key.toolchain.end());
  header.insert(header.end(), key.program.begin(), key.program.end());
  return header;
}

Decoded decode(std::span<const char> file, const DiskKey& key) {
  auto rejected = [](std::string why) { return Decoded{{}, std::move(why)}; };
  const std::string size = std::to_string(file.size()) + " bytes";
  if (file.size() < kMagic.size() || std::string_view(file.data(), kMagic.size()) != kMagic) {
    return rejected(file.size() < kMagic.size() ? "truncated: " + size
                                                : "not an Augur cache file (bad magic)");
  }
  if (file.size() < kDiskHeaderBytes) return rejected("truncated header: " + size);
  if (const std::uint64_t version = get(file, 8, 4); version != kDiskFormatVersion) {
    return rejected("format version " + std::to_string(version) + ", expected " +
                    std::to_string(kDiskFormatVersion));
  }
  const std::uint64_t toolchain_size = get(file, 12, 4);
  const std::uint64_t program_size = get(file, 16, 8);
  const std::size_t after_header = file.size() - kDiskHeaderBytes;
  if (after_header < toolchain_size || after_header - toolchain_size < program_size) {
    return rejected("truncated key: " + size);
  }
  const std::string_view toolchain(file.data() + kDiskHeaderBytes, toolchain_size);
  if (toolchain != key.toolchain) {
    return rejected("foreign: written for toolchain '" + std::string(toolchain) + "', not '" +
                    key.toolchain + "'");
  }
  // Compared in full: the file name is only a hash of the key, and two
  // programs may share it.
  const std::size_t program_at = kDiskHeaderBytes + toolchain_size;
  if (std::string_view(file.data() + program_at, program_size) != key.program) {
    return rejected("foreign: written for another program with the same file name");
  }
  const std::span<const char> payload = file.subspan(program_at + program_size);
  if (const std::uint64_t declared = get(file, 24, 8); payload.size() != declared) {
    return rejected(
        (payload.size() < declared ? "truncated: payload of " : "corrupt: payload of ") +
        std::to_string(payload.size()) + " bytes, header says " + std::to_string(declared));
  }
  if (checksum(payload) != ir::Hash128{get(file, 32, 8), get(file, 40, 8)}) {
    return rejected("corrupt: payload checksum mismatch");
  }
  return Decoded{payload, {}};
}

std::optional<DiskKey> stored_key(std::span<const char> file) {
  if (file.size() < kDiskHeaderBytes || std::string_view(file.data(), kMagic.size()) != kMagic) {
    return std::nullopt;
  }
  const std::uint64_t toolchain_size = get(file, 12, 4);
  const std::uint64_t program_size = get(file, 16, 8);
  const std::size_t after_header = file.size() - kDiskHeaderBytes;
  if (after_header < toolchain_size || after_header - toolchain_size < program_size) {
    return std::nullopt;
  }
  const char* key = file.data() + kDiskHeaderBytes;
  return DiskKey{std::string(key, toolchain_size), std::string(key + toolchain_size, program_size)};
}

}  // namespace augur::cache
