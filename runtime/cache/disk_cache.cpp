#include "runtime/cache/disk_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <system_error>
#include <utility>

#include "jit/error.h"
#include "runtime/cache/disk_format.h"

namespace augur::cache {

struct DiskCache::Counters {
  std::atomic<std::uint64_t> hits{0};
  std::atomic<std::uint64_t> misses{0};
  std::atomic<std::uint64_t> stores{0};
  std::atomic<std::uint64_t> rejected{0};
  std::atomic<std::uint64_t> write_failures{0};
};

namespace {

using Reporter = std::function<void(std::string_view message)>;

struct ReporterSlot {
  std::mutex mutex;
  Reporter reporter;
};

// Deliberately leaked, so that threads still reporting while the process
// exits never reach a destroyed slot.
ReporterSlot& reporter_slot() {
  static ReporterSlot* const slot = new ReporterSlot();
  return *slot;
}

}  // namespace

void report_disk_cache(const std::string& message) {
  Reporter reporter;
  {
    ReporterSlot& slot = reporter_slot();
    std::lock_guard lock(slot.mutex);
    reporter = slot.reporter;
  }
  if (reporter) {
    reporter(message);
  } else {
    std::fprintf(stderr, "augur: %s\n", message.c_str());
  }
}

namespace {

std::string errno_message() {
  return std::error_code(errno, std::generic_category()).message();
}

// Closes a file descriptor when it goes out of scope.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }
  // Closes now, reporting failure (where a delayed write error shows up).
  bool close() { return ::close(std::exchange(fd_, -1)) == 0; }

 private:
  int fd_;
};

bool write_all(int fd, std::span<const char> bytes) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    bytes = bytes.subspan(static_cast<std::size_t>(written));
  }
  return true;
}

// Reads up to bytes.size() bytes; how many it got, or -1 on an error.
ssize_t read_all(int fd, std::span<char> bytes) {
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  return static_cast<ssize_t>(got);
}

// A temp file name unique across threads and processes, beside `target` so
// that rename() stays on one file system and is atomic.
std::filesystem::path temp_path_for(const std::filesystem::path& target) {
  static std::atomic<std::uint64_t> next{0};
  std::filesystem::path temp = target;
  temp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(next++);
  return temp;
}

}  // namespace

DiskCache::DiskCache(std::filesystem::path dir)
    : directory_(std::move(dir)), counters_(std::make_unique<Counters>()) {
  std::error_code error;
  std::filesystem::create_directories(directory_, error);
  if (!error && !std::filesystem::is_directory(directory_, error)) {
    error = std::make_error_code(std::errc::not_a_directory);
  }
  if (error) {
    jit::location where;
    where.file = directory_.string();
    throw jit::error("cannot use '" + directory_.string() + "' as a disk cache: " + error.message(),
                     std::move(where));
  }
}

DiskCache::~DiskCache() = default;
DiskCache::DiskCache(DiskCache&&) noexcept = default;
DiskCache& DiskCache::operator=(DiskCache&&) noexcept = default;

std::optional<DiskCache> DiskCache::from_environment() {
  const char* dir = std::getenv("AUGUR_CACHE_DIR");
  if (dir == nullptr || *dir == '\0') return std::nullopt;
  try {
    return std::optional<DiskCache>(std::in_place, dir);
  } catch (const jit::error& e) {
    report_disk_cache(e.message() + " (AUGUR_CACHE_DIR); running without it");
    return std::nullopt;
  }
}

std::filesystem::path DiskCache::path_of(const DiskKey& key) const {
  ir::Hasher hasher;
  hasher.add(key.ir_hash.hi);
  hasher.add(key.ir_hash.lo);
  hasher.add(key.toolchain);
  return directory_ / (hasher.finish().hex() + ".aobj");
}

std::optional<std::vector<char>> DiskCache::load(const DiskKey& key, bool* rejected) {
  const std::filesystem::path path = path_of(key);
  if (rejected) *rejected = false;
  auto miss = [&] {
    ++counters_->misses;
    return std::nullopt;
  };
  FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat opened {};
  if (file.get() < 0 || ::fstat(file.get(), &opened) != 0) {
    if (errno != ENOENT)
      report_disk_cache("disk cache: cannot read " + path.string() + ": " + errno_message());
    return miss();
  }
  std::vector<char> bytes(static_cast<std::size_t>(opened.st_size));
  const ssize_t got = read_all(file.get(), bytes);
  if (got < 0) {
    report_disk_cache("disk cache: cannot read " + path.string() + ": " + errno_message());
    return miss();
  }
  bytes.resize(static_cast<std::size_t>(got));  // a file cut short meanwhile reads as truncated
  const Decoded decoded = decode(bytes, key);
  if (!decoded.rejection.empty()) {
    ++counters_->rejected;
    if (rejected) *rejected = true;
    report_disk_cache("disk cache: rejected " + path.string() + ": " + decoded.rejection +
                      "; removed");
    // Remove it unless a writer has already renamed a fresh file into place.
    struct stat current {};
    if (::stat(path.c_str(), &current) == 0 && current.st_dev == opened.st_dev &&
        current.st_ino == opened.st_ino) {
      ::unlink(path.c_str());
    }
    return miss();
  }
  ++counters_->hits;
  return std::vector<char>(decoded.payload.begin(), decoded.payload.end());
}

bool DiskCache::store(const DiskKey& key, std::span<const char> payload) {
  const std::filesystem::path path = path_of(key);
  const std::filesystem::path temp = temp_path_for(path);
  const std::vector<char> header = encode_header(key, payload);
  const auto create = [&] {
    return ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  };
  int fd = create();
  if (fd < 0 && errno == ENOENT) {
    // The directory was removed while the process ran (a cleanup): make it again.
    std::error_code ignored;
    std::filesystem::create_directories(directory_, ignored);
    fd = create();
  }
  FileDescriptor file(fd);
  const bool written = file.get() >= 0 && write_all(file.get(), header) &&
                       write_all(file.get(), payload) && file.close() &&
                       ::rename(temp.c_str(), path.c_str()) == 0;
  if (!written) {
    const std::string why = errno_message();
    ::unlink(temp.c_str());
    ++counters_->write_failures;
    report_disk_cache("disk cache: cannot write " + path.string() + ": " + why);
    return false;
  }
  ++counters_->stores;
  return true;
}

DiskCacheStats DiskCache::stats() const {
  return DiskCacheStats{counters_->hits.load(), counters_->misses.load(), counters_->stores.load(),
                        counters_->rejected.load(), counters_->write_failures.load()};
}

void set_disk_cache_reporter(std::function<void(std::string_view message)> reporter) {
  ReporterSlot& slot = reporter_slot();
  std::lock_guard lock(slot.mutex);
  slot.reporter = std::move(reporter);
}

}  // namespace augur::cache
