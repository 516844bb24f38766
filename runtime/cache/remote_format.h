// The bytes of one remote cache entry (a Redis string): a header naming the
// key by its SHA-256 digest, the payload's length and an HMAC-SHA256 with the
// fleet's key over the header (the key's digest included) and the payload,
// then the payload. The digest binds the signature to the full key, and lets
// augur-cache verify an entry without knowing its program.
// Little-endian throughout:
//
//   offset  size  field
//        0     8  magic "AUGURrem"
//        8     4  format version (kRemoteFormatVersion)
//       12     4  zero
//       16     8  payload length p
//       24    32  key digest: SHA-256 of the key (key_digest)
//       56    32  HMAC-SHA256(fleet key, bytes 0..56 ++ payload)
//       88     p  payload
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/cache/disk_cache.h"

namespace augur::cache {

inline constexpr std::uint32_t kRemoteFormatVersion = 1;
inline constexpr std::size_t kRemoteHeaderBytes = 88;

using Digest = std::array<unsigned char, 32>;

// SHA-256 of the key's toolchain and program, each after its length: names
// the entry in the store.
Digest key_digest(const DiskKey& key);
std::string hex(const Digest& digest);
// The digest `text` (64 hex digits) spells, if it does.
bool parse_digest(std::string_view text, Digest& digest);

// The entry that holds `payload` under `key`, signed with `secret`.
std::vector<char> encode_remote(const DiskKey& key, std::span<const char> payload,
                                std::span<const unsigned char> secret);

// What decode_remote() found: the payload, or why the entry is refused.
struct RemoteDecoded {
  std::span<const char> payload;  // inside the decoded entry
  std::string rejection;          // empty when the entry is good
};

// Checks `entry` against `key` and `secret`: magic, version, the key digest
// (another key's entry is "foreign"), the payload's length, the signature.
RemoteDecoded decode_remote(std::span<const char> entry, const DiskKey& key,
                            std::span<const unsigned char> secret);
// The same checks against a key known by its digest only.
RemoteDecoded decode_remote(std::span<const char> entry, const Digest& digest,
                            std::span<const unsigned char> secret);

}  // namespace augur::cache
