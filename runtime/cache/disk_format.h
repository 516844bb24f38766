// The bytes of one disk cache file: a header sizing the key and checksumming
// the payload, the full key, then the payload (an object file, a cubin, PTX).
// Little-endian throughout, independent of the host:
//
//   offset  size  field
//        0     8  magic "AUGURobj"
//        8     4  format version (kDiskFormatVersion)
//       12     4  toolchain length t
//       16     8  program length n
//       24     8  payload length p
//       32    16  payload checksum (ir::Hasher over the payload bytes): hi, lo
//       48     t  the key's toolchain line
//     48+t     n  the key's program text
//   48+t+n     p  payload
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/cache/disk_cache.h"

namespace augur::cache {

inline constexpr std::uint32_t kDiskFormatVersion = 2;
inline constexpr std::size_t kDiskHeaderBytes = 48;  // before the key's toolchain

// The header and key of the file that holds `payload` under `key`; the
// payload follows them.
std::vector<char> encode_header(const DiskKey& key, std::span<const char> payload);

// What decode() found in a file: the payload, or why the file is rejected.
struct Decoded {
  std::span<const char> payload;  // inside the decoded file
  std::string rejection;          // empty when the file is good
};

// Checks `file` against `key`: magic, version, the full key byte for byte,
// the payload's length and checksum.
Decoded decode(std::span<const char> file, const DiskKey& key);

// The key a file says it holds, if its header and key are whole: for
// augur-cache, which verifies a file against it (and its name against the
// key's hash) without a request to compare with.
std::optional<DiskKey> stored_key(std::span<const char> file);

}  // namespace augur::cache
