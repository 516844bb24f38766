// libFuzzer target for remote cache entries (run by scripts/fuzz.sh): what a
// Redis server, or anyone who can write to it, hands back for a key. Findings:
// a crash, a sanitizer report, a hang, an exception, or an entry accepted that
// is not exactly encode_remote() of its payload under the key and the fleet's
// secret (a forged, foreign or padded entry served).
//
// The first byte picks how the rest is used: 0, the whole entry; 1, a payload
// that the fuzzer signs properly, which must come back intact and must be
// refused once any one byte of the entry is changed; 2, the text of a key
// digest as `augur-cache` reads it.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/cache/remote_format.h"

namespace {

using namespace augur::cache;

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "remote_entry_fuzzer finding: %s\n%s\n", what, detail.c_str());
  std::abort();
}

const DiskKey& key() {
  static const DiskKey k{"fuzz toolchain augur 0 rules 0 externs 0",
                         "fn f(a: i32) -> i32 {\n  return a;\n}\n"};
  return k;
}

std::span<const unsigned char> secret() {
  static const unsigned char bytes[] = "the fleet's secret, 32 bytes long";
  return {bytes, sizeof bytes - 1};
}

// Decodes `entry`; an accepted one must be the key's own encoding.
RemoteDecoded decode_checked(std::span<const char> entry) {
  const RemoteDecoded decoded = decode_remote(entry, key(), secret());
  if (!decoded.rejection.empty()) {
    if (!decoded.payload.empty()) finding("a refused entry came with a payload", "");
    return decoded;
  }
  if (decoded.payload.data() < entry.data() ||
      decoded.payload.data() + decoded.payload.size() > entry.data() + entry.size()) {
    finding("the payload lies outside the entry", "");
  }
  const std::vector<char> expected = encode_remote(key(), decoded.payload, secret());
  if (!std::equal(expected.begin(), expected.end(), entry.begin(), entry.end())) {
    finding("an entry that is not the key's encoding of its payload was accepted", "");
  }
  return decoded;
}

void signed_payload(std::span<const char> payload) {
  std::vector<char> entry = encode_remote(key(), payload, secret());
  const RemoteDecoded decoded = decode_checked(entry);
  if (!decoded.rejection.empty()) finding("a good entry was refused", decoded.rejection);
  if (!std::equal(payload.begin(), payload.end(), decoded.payload.begin(), decoded.payload.end()))
    finding("a good entry's payload changed", "");
  // One byte changed, chosen by the payload so that the fuzzer reaches them all.
  std::size_t at = payload.size();
  for (const char c : payload) at = at * 131 + static_cast<unsigned char>(c);
  at %= entry.size();
  entry[at] = static_cast<char>(entry[at] ^ 0x5a);
  if (decode_checked(entry).rejection.empty())
    finding("an entry with a changed byte was accepted", std::to_string(at));
}

void digest_text(std::string_view text) {
  Digest digest{};
  if (!parse_digest(text, digest)) return;
  if (hex(digest) != text) {
    finding("a digest does not print as the text it was read from", std::string(text));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::span<const char> rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 3) {
      case 0:
        decode_checked(rest);
        break;
      case 1:
        signed_payload(rest);
        break;
      case 2:
        digest_text(std::string_view(rest.data(), rest.size()));
        break;
    }
  } catch (const std::exception& e) {
    finding("an exception", e.what());
  }
  return 0;
}
