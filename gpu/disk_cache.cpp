#include "gpu/disk_cache.h"

#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>
#include <fstream>
#include <iterator>
#include <system_error>

#include "jit/error.h"

namespace augur::gpu {

namespace {

constexpr std::array<char, 8> kMagic = {'A', 'U', 'G', 'U', 'R', 'G', 'P', 'U'};
constexpr std::uint32_t kFormatVersion = 1;
// magic, version, flags, key length, payload length, key hash (hi, lo)
constexpr std::size_t kHeaderBytes = 8 + 4 + 4 + 8 + 8 + 16;
constexpr std::size_t kChecksumBytes = 16;

// Fixed-width little-endian fields, whatever the host's byte order.
void put(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xff);
}
std::uint64_t get(const std::string& in, std::size_t at, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) {
    value |= std::uint64_t{static_cast<unsigned char>(in[at + static_cast<std::size_t>(i)])}
             << (8 * i);
  }
  return value;
}

ir::Hash128 checksum(const std::string& bytes, std::size_t length) {
  ir::Hasher hasher;
  hasher.add(std::string_view(bytes.data(), length));
  return hasher.finish();
}

}  // namespace

std::filesystem::path DiskCache::file_for(const CacheKey& key) const {
  return root_ / "gpu" / (key.hash.hex() + ".bin");
}

DiskResult DiskCache::load(const CacheKey& key) const {
  const std::filesystem::path path = file_for(key);
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto bad = [&](DiskLookup status, const std::string& why) {
    return DiskResult{status, std::nullopt, path.string() + ": " + why};
  };
  if (bytes.size() < kHeaderBytes + kChecksumBytes) return bad(DiskLookup::Corrupt, "truncated");
  if (std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) != 0) {
    return bad(DiskLookup::Foreign, "not an Augur GPU cache file");
  }
  if (get(bytes, 8, 4) != kFormatVersion) {
    return bad(DiskLookup::Foreign, "cache format " + std::to_string(get(bytes, 8, 4)) +
                                        ", expected " + std::to_string(kFormatVersion));
  }
  const std::uint64_t key_length = get(bytes, 16, 8);
  const std::uint64_t payload_length = get(bytes, 24, 8);
  const std::uint64_t body = bytes.size() - kHeaderBytes - kChecksumBytes;
  if (key_length > body || payload_length != body - key_length) {
    return bad(DiskLookup::Corrupt, "truncated or padded (lengths do not match the file's size)");
  }
  const std::size_t checked = bytes.size() - kChecksumBytes;
  const ir::Hash128 sum = checksum(bytes, checked);
  if (get(bytes, checked, 8) != sum.hi || get(bytes, checked + 8, 8) != sum.lo) {
    return bad(DiskLookup::Corrupt, "checksum mismatch");
  }
  if (std::string_view(bytes).substr(kHeaderBytes, key_length) != key.text) {
    return bad(DiskLookup::Foreign, "written for another key");
  }
  DiskEntry entry;
  entry.flags = static_cast<std::uint32_t>(get(bytes, 12, 4));
  entry.payload = bytes.substr(kHeaderBytes + key_length, payload_length);
  return {DiskLookup::Hit, std::move(entry), {}};
}

void DiskCache::store(const CacheKey& key, const DiskEntry& entry) const {
  std::string bytes(kMagic.data(), kMagic.size());
  put(bytes, kFormatVersion, 4);
  put(bytes, entry.flags, 4);
  put(bytes, key.text.size(), 8);
  put(bytes, entry.payload.size(), 8);
  put(bytes, key.hash.hi, 8);
  put(bytes, key.hash.lo, 8);
  bytes += key.text;
  bytes += entry.payload;
  const ir::Hash128 sum = checksum(bytes, bytes.size());
  put(bytes, sum.hi, 8);
  put(bytes, sum.lo, 8);

  const std::filesystem::path path = file_for(key);
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) {
    throw jit::error("cannot create the GPU cache directory " + path.parent_path().string() + ": " +
                     ec.message());
  }
  // A name no other writer uses, renamed over the final one: readers see the
  // old file or the new one, never a partial write.
  static std::atomic<std::uint64_t> serial{0};
  const std::filesystem::path temporary =
      path.string() + ".tmp." + std::to_string(::getpid()) + "." +
      std::to_string(serial.fetch_add(1, std::memory_order_relaxed));
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      std::filesystem::remove(temporary, ec);
      throw jit::error("cannot write the GPU cache file " + temporary.string());
    }
  }
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    std::filesystem::remove(temporary, ec);
    throw jit::error("cannot move the GPU cache file into place at " + path.string());
  }
}

}  // namespace augur::gpu
