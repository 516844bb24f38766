// The bytes of one disk cache file: a header naming the key and checksumming
// the payload, then the payload (an object file, a cubin, PTX). Little-endian
// throughout, independent of the host:
//
//   offset  size  field
//        0     8  magic "AUGURobj"
//        8     4  format version (kDiskFormatVersion)
//       12     4  toolchain string length, n
//       16    16  IR content hash: hi, lo
//       32     8  payload length
//       40    16  payload checksum (ir::Hasher over the payload bytes): hi, lo
//       56     n  toolchain string
//     56+n     …  payload
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "runtime/cache/disk_cache.h"

namespace augur::cache {

inline constexpr std::uint32_t kDiskFormatVersion = 1;
inline constexpr std::size_t kDiskHeaderBytes = 56;  // before the toolchain string

// The header of the file that holds `payload` under `key`; the payload follows it.
std::vector<char> encode_header(const DiskKey& key, std::span<const char> payload);

// What decode() found in a file: the payload, or why the file is rejected.
struct Decoded {
  std::span<const char> payload;  // inside the decoded file
  std::string rejection;          // empty when the file is good
};

// Checks `file` against `key`: magic, version, the full key, the payload's
// length and checksum.
Decoded decode(std::span<const char> file, const DiskKey& key);

}  // namespace augur::cache
