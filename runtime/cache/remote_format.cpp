#include "runtime/cache/remote_format.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <cstring>
#include <new>
#include <utility>

namespace augur::cache {

namespace {

constexpr char kMagic[8] = {'A', 'U', 'G', 'U', 'R', 'r', 'e', 'm'};
constexpr std::size_t kSignedBytes = 56;  // the header before the signature

void put32(char* out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((value >> (8 * i)) & 0xff);
}
void put64(char* out, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((value >> (8 * i)) & 0xff);
}
std::uint64_t get(const char* in, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) {
    value |= static_cast<std::uint64_t>(static_cast<unsigned char>(in[i])) << (8 * i);
  }
  return value;
}

// HMAC-SHA256 over the signed header and the payload.
Digest sign(std::span<const char> signed_header, std::span<const char> payload,
            std::span<const unsigned char> secret) {
  Digest mac{};
  EVP_MAC* algorithm = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  EVP_MAC_CTX* ctx = algorithm ? EVP_MAC_CTX_new(algorithm) : nullptr;
  char digest_name[] = "SHA256";
  const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("digest", digest_name, 0),
                               OSSL_PARAM_construct_end()};
  std::size_t length = 0;
  const bool ok = ctx && EVP_MAC_init(ctx, secret.data(), secret.size(), params) == 1 &&
                  EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(signed_header.data()),
                                 signed_header.size()) == 1 &&
                  EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(payload.data()),
                                 payload.size()) == 1 &&
                  EVP_MAC_final(ctx, mac.data(), &length, mac.size()) == 1 && length == mac.size();
  EVP_MAC_CTX_free(ctx);
  EVP_MAC_free(algorithm);
  if (!ok) mac.fill(0);  // matches no real signature: the entry is refused
  return mac;
}

}  // namespace

Digest key_digest(const DiskKey& key) {
  Digest digest{};
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  char length[8];
  unsigned size = 0;
  bool ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) == 1;
  for (const std::string* part : {&key.toolchain, &key.program}) {
    put64(length, part->size());
    ok = ok && EVP_DigestUpdate(ctx, length, sizeof length) == 1 &&
         EVP_DigestUpdate(ctx, part->data(), part->size()) == 1;
  }
  ok = ok && EVP_DigestFinal_ex(ctx, digest.data(), &size) == 1;
  EVP_MD_CTX_free(ctx);
  if (!ok) throw std::bad_alloc();
  return digest;
}

std::string hex(const Digest& digest) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  text.reserve(2 * digest.size());
  for (unsigned char byte : digest) {
    text += kDigits[byte >> 4];
    text += kDigits[byte & 15];
  }
  return text;
}

bool parse_digest(std::string_view text, Digest& digest) {
  if (text.size() != 2 * digest.size()) return false;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < digest.size(); ++i) {
    const int hi = nibble(text[2 * i]), lo = nibble(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    digest[i] = static_cast<unsigned char>(hi * 16 + lo);
  }
  return true;
}

std::vector<char> encode_remote(const DiskKey& key, std::span<const char> payload,
                                std::span<const unsigned char> secret) {
  std::vector<char> entry(kRemoteHeaderBytes + payload.size());
  std::memcpy(entry.data(), kMagic, sizeof kMagic);
  put32(entry.data() + 8, kRemoteFormatVersion);
  put32(entry.data() + 12, 0);
  put64(entry.data() + 16, payload.size());
  const Digest digest = key_digest(key);
  std::memcpy(entry.data() + 24, digest.data(), digest.size());
  const Digest mac = sign(std::span(entry.data(), kSignedBytes), payload, secret);
  std::memcpy(entry.data() + kSignedBytes, mac.data(), mac.size());
  if (!payload.empty())
    std::memcpy(entry.data() + kRemoteHeaderBytes, payload.data(), payload.size());
  return entry;
}

RemoteDecoded decode_remote(std::span<const char> entry, const DiskKey& key,
                            std::span<const unsigned char> secret) {
  return decode_remote(entry, key_digest(key), secret);
}

RemoteDecoded decode_remote(std::span<const char> entry, const Digest& digest,
                            std::span<const unsigned char> secret) {
  auto refuse = [](std::string why) { return RemoteDecoded{{}, std::move(why)}; };
  if (entry.size() < kRemoteHeaderBytes) {
    return refuse("truncated: " + std::to_string(entry.size()) + " bytes, shorter than a header");
  }
  if (std::memcmp(entry.data(), kMagic, sizeof kMagic) != 0)
    return refuse("unsigned or not an Augur entry (bad magic)");
  const auto version = static_cast<std::uint32_t>(get(entry.data() + 8, 4));
  if (version != kRemoteFormatVersion) {
    return refuse("format version " + std::to_string(version) + ", not " +
                  std::to_string(kRemoteFormatVersion));
  }
  if (std::memcmp(entry.data() + 24, digest.data(), digest.size()) != 0) {
    return refuse("foreign: the entry of another key");
  }
  const std::uint64_t payload_bytes = get(entry.data() + 16, 8);
  if (payload_bytes != entry.size() - kRemoteHeaderBytes) {
    return refuse("truncated or padded: payload of " +
                  std::to_string(entry.size() - kRemoteHeaderBytes) + " bytes, header says " +
                  std::to_string(payload_bytes));
  }
  const std::span<const char> payload = entry.subspan(kRemoteHeaderBytes);
  const Digest mac = sign(entry.first(kSignedBytes), payload, secret);
  if (CRYPTO_memcmp(mac.data(), entry.data() + kSignedBytes, mac.size()) != 0) {
    return refuse("wrong signature (HMAC-SHA256 does not match this fleet's key)");
  }
  return RemoteDecoded{payload, {}};
}

}  // namespace augur::cache
