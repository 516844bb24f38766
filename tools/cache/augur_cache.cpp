// augur-cache: shows, lists, verifies and purges a disk cache directory or a
// remote cache (docs/compile.md, "augur-cache").
//
//   augur-cache stats  --dir /var/cache/augur
//   augur-cache list   --remote redis://cache.internal:6379
//   augur-cache verify --remote redis://cache.internal:6379 --key-file /etc/augur/fleet.key
//   augur-cache purge  --dir /var/cache/augur
//
// Exit status: 0, 1 when verify finds a bad entry, 2 for a usage error or a
// cache that cannot be reached.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "jit/error.h"
#include "runtime/cache/disk_cache.h"
#include "runtime/cache/disk_format.h"
#include "runtime/cache/remote_cache.h"
#include "runtime/cache/remote_format.h"
#include "runtime/ir/hash.h"

namespace {

using namespace augur::cache;
namespace fs = std::filesystem;

constexpr const char* kUsage =
    "usage: augur-cache stats|list|verify|purge (--dir DIR | --remote URL) [--key-file FILE]\n"
    "  --dir DIR       a disk cache directory (AUGUR_CACHE_DIR); its gpu/ subdirectory too\n"
    "  --remote URL    a remote cache, redis://[user:password@]host[:port][/db]\n"
    "  --key-file FILE the fleet's key (AUGUR_CACHE_KEY_FILE), needed by verify --remote\n";

struct Arguments {
  std::string command;
  std::string dir;
  std::string remote;
  std::string key_file;
};

std::optional<Arguments> parse(int argc, char** argv) {
  Arguments arguments;
  if (argc < 2) return std::nullopt;
  arguments.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) return std::nullopt;
    const char* value = argv[++i];
    if (flag == "--dir") {
      arguments.dir = value;
    } else if (flag == "--remote") {
      arguments.remote = value;
    } else if (flag == "--key-file") {
      arguments.key_file = value;
    } else {
      return std::nullopt;
    }
  }
  const bool known = arguments.command == "stats" || arguments.command == "list" ||
                     arguments.command == "verify" || arguments.command == "purge";
  if (!known || arguments.dir.empty() == arguments.remote.empty()) return std::nullopt;
  return arguments;
}

std::vector<char> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The cache files (entries and temp files left by killed writers) of a disk
// cache and of its gpu/ subdirectory.
struct DiskFiles {
  std::vector<fs::path> entries;
  std::vector<fs::path> temps;
};

DiskFiles disk_files(const fs::path& dir) {
  DiskFiles files;
  for (const fs::path& where : {dir, dir / "gpu"}) {
    std::error_code error;
    if (!fs::is_directory(where, error)) continue;
    for (const fs::directory_entry& entry : fs::directory_iterator(where)) {
      if (!entry.is_regular_file()) continue;
      const std::string name = entry.path().filename().string();
      if (name.find(".aobj.tmp.") != std::string::npos) {
        files.temps.push_back(entry.path());
      } else if (entry.path().extension() == ".aobj") {
        files.entries.push_back(entry.path());
      }
    }
  }
  return files;
}

// Why the file at `path` would be rejected by every request, "" if it is
// whole: a header and key, the payload's checksum, and a name that is its
// key's hash.
std::string disk_problem(const fs::path& path) {
  if (fs::file_size(path) > kMaxDiskEntryBytes) return "above the size limit";
  const std::vector<char> bytes = read_bytes(path);
  const std::optional<DiskKey> key = stored_key(bytes);
  if (!key) return "truncated or not an Augur cache file";
  const std::string rejection = decode(bytes, *key).rejection;
  if (!rejection.empty()) return rejection;
  augur::ir::Hasher hasher;  // DiskCache::path_of's name
  hasher.add(key->toolchain);
  hasher.add(key->program);
  if (hasher.finish().hex() + ".aobj" != path.filename().string()) return "named for another key";
  return {};
}

int disk(const Arguments& arguments) {
  const fs::path dir = arguments.dir;
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    std::fprintf(stderr, "augur-cache: %s is not a directory\n", dir.c_str());
    return 2;
  }
  const DiskFiles files = disk_files(dir);
  if (arguments.command == "stats") {
    std::uint64_t bytes = 0;
    for (const fs::path& path : files.entries) bytes += fs::file_size(path);
    std::printf("disk cache %s: %zu entries, %llu bytes, %zu temp files\n", dir.c_str(),
                files.entries.size(), static_cast<unsigned long long>(bytes), files.temps.size());
    return 0;
  }
  if (arguments.command == "list") {
    for (const fs::path& path : files.entries) {
      std::printf("%s %llu\n", fs::relative(path, dir).c_str(),
                  static_cast<unsigned long long>(fs::file_size(path)));
    }
    return 0;
  }
  if (arguments.command == "verify") {
    int bad = 0;
    for (const fs::path& path : files.entries) {
      const std::string problem = disk_problem(path);
      std::printf("%s %s%s%s\n", problem.empty() ? "ok " : "BAD", fs::relative(path, dir).c_str(),
                  problem.empty() ? "" : ": ", problem.c_str());
      bad += !problem.empty();
    }
    std::printf("%zu entries, %d bad\n", files.entries.size(), bad);
    return bad == 0 ? 0 : 1;
  }
  std::size_t removed = 0;
  for (const auto* list : {&files.entries, &files.temps}) {
    for (const fs::path& path : *list) removed += fs::remove(path, error) ? 1 : 0;
  }
  std::printf("removed %zu files from %s\n", removed, dir.c_str());
  return 0;
}

int remote(const Arguments& arguments) {
  RemoteSettings settings = parse_remote_url(arguments.remote);
  const std::string description = settings.describe();
  std::vector<unsigned char> secret;
  if (!arguments.key_file.empty()) {
    secret = read_key_file(arguments.key_file);
  } else if (arguments.command == "verify") {
    std::fprintf(stderr, "augur-cache: verify --remote needs --key-file\n");
    return 2;
  }
  // A tool waits longer than a compile would, and never pauses.
  settings.command_timeout = std::chrono::milliseconds(5000);
  settings.connect_timeout = std::chrono::milliseconds(2000);
  RemoteCache cache(std::move(settings), std::move(secret));
  if (arguments.command == "purge") {
    std::printf("removed %llu keys from %s\n", static_cast<unsigned long long>(cache.purge()),
                description.c_str());
    return 0;
  }
  const std::vector<RemoteCache::Listed> entries = cache.list();
  if (arguments.command == "stats") {
    std::uint64_t bytes = 0;
    for (const RemoteCache::Listed& entry : entries) bytes += entry.bytes;
    std::printf("remote cache %s: %zu entries, %llu bytes, %llu leases held\n", description.c_str(),
                entries.size(), static_cast<unsigned long long>(bytes),
                static_cast<unsigned long long>(cache.leases()));
    return 0;
  }
  if (arguments.command == "list") {
    for (const RemoteCache::Listed& entry : entries) {
      std::printf("%s %llu\n", RemoteCache::entry_name(entry.digest).c_str(),
                  static_cast<unsigned long long>(entry.bytes));
    }
    return 0;
  }
  int bad = 0;
  for (const RemoteCache::Listed& entry : entries) {
    const std::string problem = cache.verify(entry.digest);
    std::printf("%s %s%s%s\n", problem.empty() ? "ok " : "BAD",
                RemoteCache::entry_name(entry.digest).c_str(), problem.empty() ? "" : ": ",
                problem.c_str());
    bad += !problem.empty();
  }
  std::printf("%zu entries, %d bad\n", entries.size(), bad);
  return bad == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::optional<Arguments> arguments = parse(argc, argv);
  if (!arguments) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  try {
    return arguments->dir.empty() ? remote(*arguments) : disk(*arguments);
  } catch (const jit::error& e) {
    std::fprintf(stderr, "augur-cache: %s\n", e.message().c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "augur-cache: %s\n", e.what());
  }
  return 2;
}
