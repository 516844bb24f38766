// libFuzzer target for disk cache entries (run by scripts/fuzz.sh). Each
// input is planted as the file of one fixed key and loaded through
// DiskCache::load, as a process would find it; what loads is then decoded as
// a CPU entry (the extern list beside the object). Findings: a crash, a
// sanitizer report, a hang (libFuzzer's -timeout), an exception that is not a
// jit::error, or a load that returns a payload from a file that is not
// exactly the key's header, the key and that payload (an entry of another
// key served).
//
// The first byte picks how the rest is used: 0, the whole file; 1, a payload
// that the fuzzer wraps in a valid header for the key, so that mutations
// reach the CPU entry decoder behind the checksum.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "jit/cpu/cpu_entry.h"
#include "jit/error.h"
#include "runtime/cache/disk_cache.h"
#include "runtime/cache/disk_format.h"

namespace {

using namespace augur::cache;
using augur::cpu::CpuEntry;
using augur::cpu::decode_cpu_entry;

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "disk_entry_fuzzer finding: %s\n%s\n", what, detail.c_str());
  std::abort();
}

const DiskKey& key() {
  static const DiskKey k{"fuzz toolchain augur 0 rules 0 externs 0",
                         "fn f(a: i32) -> i32 {\n  return a;\n}\n"};
  return k;
}

DiskCache& cache() {
  static DiskCache* const disk = [] {
    set_disk_cache_reporter([](std::string_view) {});
    static const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("augur-disk-fuzz-" + std::to_string(::getpid()));
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    });
    return new DiskCache(dir);
  }();
  return *disk;
}

void plant(const std::vector<char>& bytes) {
  const std::filesystem::path path = cache().path_of(key());
  std::filesystem::remove(path);
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void check_entry(std::span<const char> payload) {
  try {
    const CpuEntry entry = decode_cpu_entry(payload);
    if (entry.object.data() < payload.data() ||
        entry.object.data() + entry.object.size() > payload.data() + payload.size()) {
      finding("the object lies outside the payload", "");
    }
  } catch (const jit::error&) {
  } catch (const std::exception& e) {
    finding("decode_cpu_entry threw a non-jit::error", e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::span<const char> rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<char> file;
  if (data[0] == 1) {
    file = encode_header(key(), rest);
    file.insert(file.end(), rest.begin(), rest.end());
  } else {
    file.assign(rest.begin(), rest.end());
  }
  plant(file);
  std::optional<std::vector<char>> payload;
  try {
    payload = cache().load(key());
  } catch (const std::exception& e) {
    finding("DiskCache::load threw", e.what());
  }
  if (payload) {
    std::vector<char> expected = encode_header(key(), *payload);
    expected.insert(expected.end(), payload->begin(), payload->end());
    if (expected != file) finding("a file that is not the key's entry loaded", "");
    check_entry(*payload);
  }
  check_entry(rest);
  return 0;
}
