#include "runtime/cache/disk_cache.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <string>
#include <system_error>
#include <utility>

#include "jit/error.h"
#include "runtime/cache/disk_format.h"
#include "runtime/ir/hash.h"

namespace augur::cache {

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

std::string errno_message(int error = errno) {
  return std::error_code(error, std::generic_category()).message();
}

// Closes a file descriptor when it goes out of scope.
class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  FileDescriptor& operator=(FileDescriptor other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  int get() const { return fd_; }
  // Closes now, reporting failure (where a delayed write error shows up).
  bool close() { return ::close(std::exchange(fd_, -1)) == 0; }

 private:
  int fd_ = -1;
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

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

bool in_my_groups(gid_t group) {
  if (group == ::getegid()) return true;
  const int count = ::getgroups(0, nullptr);
  if (count <= 0) return false;
  std::vector<gid_t> groups(static_cast<std::size_t>(count));
  const int got = ::getgroups(count, groups.data());
  for (int i = 0; i < got; ++i) {
    if (groups[static_cast<std::size_t>(i)] == group) return true;
  }
  return false;
}

// Why `dir` may not hold code this process runs, or "" if it may.
std::string distrust_of_directory(const struct stat& dir, DirectoryTrust trust) {
  if (!S_ISDIR(dir.st_mode)) return "not a directory";
  const uid_t me = ::geteuid();
  if (trust == DirectoryTrust::Owner) {
    if (dir.st_uid != me) {
      return "owned by uid " + std::to_string(dir.st_uid) + ", not by this user (uid " +
             std::to_string(me) + ")";
    }
    if (dir.st_mode & (S_IWGRP | S_IWOTH)) {
      return "writable by " + std::string(dir.st_mode & S_IWOTH ? "others" : "its group") +
             " (mode " + octal_mode(dir.st_mode) +
             "; share a cache between users only with group trust, docs/compile.md)";
    }
    return {};
  }
  if (dir.st_uid != me && !in_my_groups(dir.st_gid)) {
    return "owned by uid " + std::to_string(dir.st_uid) + " and gid " + std::to_string(dir.st_gid) +
           ", neither this user nor one of its groups";
  }
  if (dir.st_mode & S_IWOTH) return "writable by others (mode " + octal_mode(dir.st_mode) + ")";
  return {};
}

// Why the opened cache file `file` is not to be read, or "" if it may be.
std::string distrust_of_file(const struct stat& file, const struct stat& dir,
                             DirectoryTrust trust) {
  if (S_ISFIFO(file.st_mode)) return "a FIFO, not a regular file";
  if (S_ISDIR(file.st_mode)) return "a directory, not a regular file";
  if (!S_ISREG(file.st_mode)) return "not a regular file";
  const uid_t me = ::geteuid();
  if (trust == DirectoryTrust::Owner) {
    if (file.st_uid != me) return "owned by uid " + std::to_string(file.st_uid) + ", not this user";
    if (file.st_mode & (S_IWGRP | S_IWOTH)) {
      return "writable by group or others (mode " + octal_mode(file.st_mode) + ")";
    }
  } else {
    if (file.st_uid != me && file.st_gid != dir.st_gid) {
      return "owned by uid " + std::to_string(file.st_uid) + " and gid " +
             std::to_string(file.st_gid) + ", outside the cache's group";
    }
    if (file.st_mode & S_IWOTH) return "writable by others (mode " + octal_mode(file.st_mode) + ")";
  }
  if (static_cast<std::uint64_t>(file.st_size) > kMaxDiskEntryBytes) {
    return std::to_string(file.st_size) + " bytes, above the limit of " +
           std::to_string(kMaxDiskEntryBytes);
  }
  return {};
}

mode_t directory_mode(DirectoryTrust trust) {
  return trust == DirectoryTrust::Owner ? 0700 : 02770;
}

mode_t file_mode(DirectoryTrust trust) {
  return trust == DirectoryTrust::Owner ? 0600 : 0640;
}

// Makes `path` and its missing parents with `mode`; 0 or an errno value.
int make_directories(const std::filesystem::path& path, mode_t mode) {
  std::filesystem::path prefix;
  for (const std::filesystem::path& part : path) {
    prefix /= part;
    if (part.empty() || part == "/" || part == "." || part == "..") continue;
    if (::mkdir(prefix.c_str(), mode) != 0 && errno != EEXIST) return errno;
  }
  return 0;
}

// Opens `path` as a cache directory: made if missing, then checked on its
// descriptor (so a path swapped after the check is never used). Throws
// jit::error naming it and why.
FileDescriptor open_directory(const std::filesystem::path& path, DirectoryTrust trust) {
  auto refuse = [&](const std::string& why) -> FileDescriptor {
    jit::location where;
    where.file = path.string();
    throw jit::error("cannot use '" + path.string() + "' as a disk cache: " + why,
                     std::move(where));
  };
  if (path.empty()) return refuse("empty path");
  if (const int error = make_directories(path, directory_mode(trust)); error != 0) {
    return refuse(errno_message(error));
  }
  FileDescriptor dir(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) return refuse(errno_message());
  struct stat status {};
  if (::fstat(dir.get(), &status) != 0) return refuse(errno_message());
  if (std::string why = distrust_of_directory(status, trust); !why.empty()) return refuse(why);
  return dir;
}

// A temp name beside `name`, unique across threads, processes and PID
// namespaces sharing the directory (random bits, not the pid).
std::string temp_name_for(const std::string& name) {
  std::uint64_t bits[2] = {0, 0};
  if (::getrandom(bits, sizeof bits, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof bits)) {
    static std::atomic<std::uint64_t> next{0};
    bits[0] =
        static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    bits[1] = (static_cast<std::uint64_t>(::getpid()) << 32) ^ next++;
  }
  const ir::Hash128 unique{bits[0], bits[1]};
  return name + ".tmp." + unique.hex();
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

// The open directory and the counters. The directory is reopened (and
// checked again) when a store finds it removed.
struct DiskCache::State {
  struct Directory {
    FileDescriptor fd;
    struct stat status {};
  };

  std::mutex mutex;
  std::shared_ptr<const Directory> directory;

  std::atomic<std::uint64_t> hits{0};
  std::atomic<std::uint64_t> misses{0};
  std::atomic<std::uint64_t> stores{0};
  std::atomic<std::uint64_t> rejected{0};
  std::atomic<std::uint64_t> write_failures{0};

  static std::shared_ptr<const Directory> open(const std::filesystem::path& path,
                                               DirectoryTrust trust) {
    auto directory = std::make_shared<Directory>();
    directory->fd = open_directory(path, trust);
    ::fstat(directory->fd.get(), &directory->status);
    return directory;
  }
  std::shared_ptr<const Directory> current() {
    std::lock_guard lock(mutex);
    return directory;
  }
  void replace(std::shared_ptr<const Directory> fresh) {
    std::lock_guard lock(mutex);
    directory = std::move(fresh);
  }
};

DiskCache::DiskCache(std::filesystem::path dir, DirectoryTrust trust)
    : directory_(std::move(dir)), trust_(trust), state_(std::make_unique<State>()) {
  state_->directory = State::open(directory_, trust_);
}

DiskCache::~DiskCache() = default;
DiskCache::DiskCache(DiskCache&&) noexcept = default;
DiskCache& DiskCache::operator=(DiskCache&&) noexcept = default;

std::optional<DiskCache> DiskCache::from_environment() {
  const char* dir = ::secure_getenv("AUGUR_CACHE_DIR");
  if (dir == nullptr || *dir == '\0') return std::nullopt;
  const char* shared = ::secure_getenv("AUGUR_CACHE_SHARED");
  const bool group = shared != nullptr && std::string_view(shared) == "group";
  if (shared != nullptr && *shared != '\0' && !group) {
    report_disk_cache("AUGUR_CACHE_SHARED='" + std::string(shared) +
                      "' is not 'group'; the cache is trusted for this user only");
  }
  try {
    return std::optional<DiskCache>(std::in_place, dir,
                                    group ? DirectoryTrust::Group : DirectoryTrust::Owner);
  } catch (const jit::error& e) {
    report_disk_cache(e.message() + " (AUGUR_CACHE_DIR); running without it");
    return std::nullopt;
  }
}

std::filesystem::path DiskCache::path_of(const DiskKey& key) const {
  ir::Hasher hasher;
  hasher.add(key.toolchain);
  hasher.add(key.program);
  return directory_ / (hasher.finish().hex() + ".aobj");
}

std::optional<std::vector<char>> DiskCache::load(const DiskKey& key, bool* rejected) {
  const std::filesystem::path path = path_of(key);
  if (rejected) *rejected = false;
  auto miss = [&] {
    ++state_->misses;
    return std::nullopt;
  };
  auto reject = [&](const std::string& why) {
    ++state_->rejected;
    if (rejected) *rejected = true;
    report_disk_cache("disk cache: rejected " + path.string() + ": " + why);
    return miss();
  };
  const std::shared_ptr<const State::Directory> dir = state_->current();
  const std::string name = path.filename().string();
  // O_NONBLOCK: opening a FIFO planted there must not wait for a writer.
  FileDescriptor file(
      ::openat(dir->fd.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (file.get() < 0) {
    if (errno == ENOENT) return miss();
    if (errno == ELOOP) return reject("a symbolic link");
    report_disk_cache("disk cache: cannot read " + path.string() + ": " + errno_message());
    return miss();
  }
  struct stat opened {};
  if (::fstat(file.get(), &opened) != 0) {
    report_disk_cache("disk cache: cannot read " + path.string() + ": " + errno_message());
    return miss();
  }
  if (std::string why = distrust_of_file(opened, dir->status, trust_); !why.empty()) {
    return reject(why);
  }
  std::vector<char> bytes;
  try {
    bytes.resize(static_cast<std::size_t>(opened.st_size));
  } catch (const std::bad_alloc&) {
    report_disk_cache("disk cache: cannot read " + path.string() + ": out of memory for " +
                      std::to_string(opened.st_size) + " bytes");
    return miss();
  }
  const ssize_t got = read_all(file.get(), bytes);
  if (got < 0) {
    report_disk_cache("disk cache: cannot read " + path.string() + ": " + errno_message());
    return miss();
  }
  bytes.resize(static_cast<std::size_t>(got));  // a file cut short meanwhile reads as truncated
  const Decoded decoded = decode(bytes, key);
  if (!decoded.rejection.empty()) return reject(decoded.rejection);
  ++state_->hits;
  // The payload is the file's tail: move it to the front rather than copy.
  const std::size_t offset = static_cast<std::size_t>(decoded.payload.data() - bytes.data());
  bytes.erase(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(offset));
  return bytes;
}

bool DiskCache::store(const DiskKey& key, std::span<const char> payload) {
  const std::filesystem::path path = path_of(key);
  const std::string name = path.filename().string();
  const std::string temp = temp_name_for(name);
  auto fail = [&](const std::string& why) {
    ++state_->write_failures;
    report_disk_cache("disk cache: cannot write " + path.string() + ": " + why);
    return false;
  };
  std::shared_ptr<const State::Directory> dir = state_->current();
  const auto create = [&] {
    return ::openat(dir->fd.get(), temp.c_str(),
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, file_mode(trust_));
  };
  FileDescriptor file(create());
  if (file.get() < 0 && errno == ENOENT) {
    // The directory was removed while the process ran (a cleanup): make it
    // again, and check it again.
    try {
      dir = State::open(directory_, trust_);
    } catch (const jit::error& e) {
      return fail(e.message());
    }
    state_->replace(dir);
    file = FileDescriptor(create());
  }
  if (file.get() < 0) return fail(errno_message());
  std::vector<char> header;
  try {
    header = encode_header(key, payload);
  } catch (const std::bad_alloc&) {
    ::unlinkat(dir->fd.get(), temp.c_str(), 0);
    return fail("out of memory");
  }
  // Group members must read what one of them writes, whatever its umask.
  const bool written =
      (trust_ == DirectoryTrust::Owner || ::fchmod(file.get(), file_mode(trust_)) == 0) &&
      write_all(file.get(), header) && write_all(file.get(), payload) && file.close() &&
      ::renameat(dir->fd.get(), temp.c_str(), dir->fd.get(), name.c_str()) == 0;
  if (!written) {
    const std::string why = errno_message();
    ::unlinkat(dir->fd.get(), temp.c_str(), 0);
    return fail(why);
  }
  ++state_->stores;
  return true;
}

DiskCacheStats DiskCache::stats() const {
  return DiskCacheStats{state_->hits.load(), state_->misses.load(), state_->stores.load(),
                        state_->rejected.load(), state_->write_failures.load()};
}

void set_disk_cache_reporter(std::function<void(std::string_view message)> reporter) {
  ReporterSlot& slot = reporter_slot();
  std::lock_guard lock(slot.mutex);
  slot.reporter = std::move(reporter);
}

}  // namespace augur::cache
