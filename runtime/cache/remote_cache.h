// The remote level of the artifact cache: compiled code shared by a fleet of
// processes through one Redis server (docs/compile.md, "Remote cache"). It
// sits behind the disk cache and is keyed by the same exact key (DiskKey), so
// CPU objects and GPU images alike go through it.
//
// Entries are signed (remote_format.h) with the fleet's key, read from a file
// only its owner can read; an entry that is unsigned, wrongly signed,
// truncated, another key's or too large is refused, counted and never
// returned. Only one process of the fleet compiles a key at a time
// (RemoteFlight: a lease taken with SET NX PX, renewed while it compiles);
// the others wait, within a bound, for its entry. Faults never fail a
// compile: every command has a timeout, a store that keeps failing is left
// alone for a pause (the circuit breaker), broken connections are dropped
// and made again, and every failure is a miss.
//
//   RemoteCache& remote = ...;                 // remote_cache_for(url, key_file)
//   RemoteFlight flight(remote, key, counters);
//   if (const std::vector<char>* found = flight.found()) return load(*found);
//   auto artifact = compile();                 // this process holds the lease
//   flight.publish(artifact);                  // the entry, then the lease released
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "runtime/cache/disk_cache.h"
#include "runtime/cache/remote_format.h"

namespace augur::cache {

// The largest entry written or read by default (max_entry_bytes below).
inline constexpr std::uint64_t kMaxRemoteEntryBytes = std::uint64_t{64} << 20;

// Where the store is and how to treat it: parsed from
// redis://[user:password@]host[:port][/db][?name=value&...]. The query names
// the settings below in milliseconds (connect_timeout_ms, command_timeout_ms,
// lease_ms, wait_ms, poll_ms, breaker_pause_ms), breaker_failures and
// max_entry_bytes.
struct RemoteSettings {
  std::string host;
  int port = 6379;
  std::string user;
  std::string password;
  int db = 0;
  std::chrono::milliseconds connect_timeout{100};
  std::chrono::milliseconds command_timeout{250};
  std::chrono::milliseconds lease{10'000};  // a holder's lease; renewed every third of it
  std::chrono::milliseconds wait{30'000};   // how long a waiter waits for another's entry
  std::chrono::milliseconds poll{20};       // between a waiter's looks
  int breaker_failures = 3;                 // consecutive failures that open the breaker
  std::chrono::milliseconds breaker_pause{5'000};
  std::uint64_t max_entry_bytes = kMaxRemoteEntryBytes;

  // "redis://host:port/db", never the password: for messages.
  std::string describe() const;
};

// Throws jit::error naming `url` (without its password) and what is wrong.
RemoteSettings parse_remote_url(std::string_view url);

// The fleet key in `path`: its bytes, less one trailing newline, 16 to 4096
// of them. Throws jit::error naming the file and why when it cannot be read,
// is not a regular file, belongs to another user, can be read or written by
// its group or others, or is too short or too long.
std::vector<unsigned char> read_key_file(const std::string& path);

// What the remote level did, for one pipeline (jit::cache_stats).
struct RemoteCounters {
  std::atomic<std::uint64_t> hits{0};
  std::atomic<std::uint64_t> misses{0};
  std::atomic<std::uint64_t> writes{0};
  std::atomic<std::uint64_t> rejected{0};       // refused entries, and entries that did not load
  std::atomic<std::uint64_t> errors{0};         // commands that failed: connect, timeout, reply
  std::atomic<std::uint64_t> skipped{0};        // commands not sent: the breaker was open
  std::atomic<std::uint64_t> waits{0};          // lookups that waited for another's compile
  std::atomic<std::uint64_t> wait_timeouts{0};  // waits that ended without the entry
  std::atomic<std::uint64_t> off{0};            // compiles that named a remote level that is off
  std::atomic<std::int64_t> nanoseconds{0};     // time in the remote level, waits included
};

class RemoteCache {
 public:
  RemoteCache(RemoteSettings settings, std::vector<unsigned char> secret);
  ~RemoteCache();
  RemoteCache(const RemoteCache&) = delete;
  RemoteCache& operator=(const RemoteCache&) = delete;

  enum class Status : std::uint8_t {
    Ok,        // done (a lookup found a valid entry, a lease was taken, ...)
    Missing,   // a lookup found none; a lease is held by another
    Rejected,  // a lookup found an entry it refuses (reported)
    Failed,    // the command failed (counted by the caller as an error)
    Skipped,   // not sent: the breaker is open
  };

  // The payload under `key`, checked; never throws.
  Status get(const DiskKey& key, std::vector<char>& payload);
  Status put(const DiskKey& key, std::span<const char> payload);
  // The lease on `key`: taken for this process with `token`, renewed, released.
  Status take_lease(const DiskKey& key, const std::string& token);
  Status renew_lease(const DiskKey& key, const std::string& token);
  Status release_lease(const DiskKey& key, const std::string& token);

  // For augur-cache: every entry's key digest and size, the verification of
  // one, and purging them all; each throws jit::error naming the store when
  // it cannot be reached.
  struct Listed {
    Digest digest{};
    std::uint64_t bytes = 0;
  };
  std::vector<Listed> list();
  // Why the entry stored under `digest` is refused, "" if it is valid.
  std::string verify(const Digest& digest);
  std::uint64_t purge();   // entries and leases deleted
  std::uint64_t leases();  // leases held now (compiles in flight in the fleet)

  const RemoteSettings& settings() const { return settings_; }
  // Redis key names of an entry and of its lease.
  static std::string entry_name(const Digest& digest);
  static std::string lease_name(const Digest& digest);

 private:
  struct Connection;
  struct Reply;
  // Runs one command on a pooled connection (made when none is idle); null
  // after a failure or with the breaker open (`status` says which).
  std::shared_ptr<Reply> command(const std::vector<std::string_view>& arguments, Status& status);
  std::unique_ptr<Connection> connect(std::string& why);
  void succeeded();
  void failed(const std::string& why);
  std::vector<std::string> scan(const std::string& pattern);

  RemoteSettings settings_;
  std::vector<unsigned char> secret_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Connection>> idle_;
  int consecutive_failures_ = 0;
  std::chrono::steady_clock::time_point closed_at_{};  // the breaker is open before it
  bool reported_down_ = false;
};

// One process's part in the fleet's single flight for one key: on
// construction, the entry if the store has it; else the lease, taken here
// (the caller compiles, then publishes) or held by another process (waits
// for its entry up to settings().wait, taking the lease over when it
// expires). With the store unreachable it is a plain miss. Counts into
// `counters`; never throws.
class RemoteFlight {
 public:
  RemoteFlight(RemoteCache& cache, const DiskKey& key, RemoteCounters& counters);
  ~RemoteFlight();  // releases a lease still held (a failed compile)
  RemoteFlight(const RemoteFlight&) = delete;
  RemoteFlight& operator=(const RemoteFlight&) = delete;

  // The valid payload found, or null.
  const std::vector<char>* found() const { return found_ ? &*found_ : nullptr; }
  // The payload found does not load: counted as rejected; the caller
  // compiles and publishes a replacement.
  void refuse_found();
  // Whether this process holds the lease (the fleet waits for its entry).
  bool leading() const { return renewer_.joinable(); }
  // Writes the entry (the caller compiled it) and releases the lease.
  void publish(std::span<const char> artifact);

 private:
  void lookup();
  // Takes the lease (Ok: this process leads, or the entry has come meanwhile);
  // Missing: another holds it.
  RemoteCache::Status lead();
  void stop_renewing();
  void count(RemoteCache::Status status);

  RemoteCache& cache_;
  const DiskKey& key_;
  RemoteCounters& counters_;
  std::optional<std::vector<char>> found_;
  std::string token_;
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;
  std::thread renewer_;
};

struct ChosenRemoteCache {
  RemoteCache* cache = nullptr;  // null: none asked for, or off
  bool off = false;              // a store was named but the level is off (reported once)
};

// The remote level for `url` and `key_file`, or for empty ones
// AUGUR_REMOTE_CACHE's and AUGUR_CACHE_KEY_FILE's (read with secure_getenv).
// Never throws: a bad URL, a missing or refused key file turn the level off,
// reported once per URL and key file. The caches live until the process exits.
ChosenRemoteCache remote_cache_for(const std::string& url, const std::string& key_file);

}  // namespace augur::cache
