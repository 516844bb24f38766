#include "runtime/cache/remote_cache.h"

#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <system_error>
#include <utility>

#include "jit/error.h"

namespace augur::cache {

namespace {

constexpr std::string_view kEntryPrefix = "augur:entry:";
constexpr std::string_view kLeasePrefix = "augur:lease:";

// Renews a lease only for the holder of its token; 1 if it did.
constexpr std::string_view kRenewScript =
    "if redis.call('get', KEYS[1]) == ARGV[1] then "
    "return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
// Deletes a lease only for the holder of its token.
constexpr std::string_view kReleaseScript =
    "if redis.call('get', KEYS[1]) == ARGV[1] then "
    "return redis.call('del', KEYS[1]) else return 0 end";

[[noreturn]] void bad_url(std::string_view url, const std::string& why) {
  // The password, if any, is left out of the message.
  std::string shown(url);
  if (const auto at = shown.find('@'); at != std::string::npos) {
    shown = "redis://…" + shown.substr(at);
  }
  throw jit::error("remote cache URL '" + shown + "': " + why);
}

bool parse_number(std::string_view text, std::int64_t& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && value >= 0;
}

std::string errno_message(int error = errno) {
  return std::error_code(error, std::generic_category()).message();
}

std::string random_token() {
  unsigned char bits[16] = {};
  if (::getrandom(bits, sizeof bits, 0) != static_cast<ssize_t>(sizeof bits)) {
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    std::memcpy(bits, &now, sizeof now);
    const auto pid = ::getpid();
    std::memcpy(bits + 8, &pid, sizeof pid);
  }
  Digest padded{};
  std::memcpy(padded.data(), bits, sizeof bits);
  return hex(padded).substr(0, 32);
}

timeval to_timeval(std::chrono::milliseconds ms) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
  return tv;
}

}  // namespace

std::string RemoteSettings::describe() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  return "redis://" + (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port) + "/" +
         std::to_string(db);
}

RemoteSettings parse_remote_url(std::string_view url) {
  constexpr std::string_view scheme = "redis://";
  if (!url.starts_with(scheme)) bad_url(url, "not a redis:// URL");
  RemoteSettings settings;
  std::string_view rest = url.substr(scheme.size());
  std::string_view query;
  if (const auto mark = rest.find('?'); mark != std::string_view::npos) {
    query = rest.substr(mark + 1);
    rest = rest.substr(0, mark);
  }
  if (const auto at = rest.rfind('@'); at != std::string_view::npos) {
    const std::string_view credentials = rest.substr(0, at);
    rest = rest.substr(at + 1);
    const auto colon = credentials.find(':');
    if (colon == std::string_view::npos) bad_url(url, "credentials are not user:password");
    settings.user = credentials.substr(0, colon);
    settings.password = credentials.substr(colon + 1);
  }
  if (const auto slash = rest.find('/'); slash != std::string_view::npos) {
    std::int64_t db = 0;
    if (!parse_number(rest.substr(slash + 1), db) || db > 1'000'000) {
      bad_url(url, "the database is not a number");
    }
    settings.db = static_cast<int>(db);
    rest = rest.substr(0, slash);
  }
  // An IPv6 address is written in brackets: redis://[::1]:6379.
  const std::size_t host_end = rest.starts_with('[') ? rest.find(']') : 0;
  if (host_end == std::string_view::npos) bad_url(url, "no ']' after an IPv6 address");
  if (const auto colon = rest.rfind(':');
      colon != std::string_view::npos && (host_end == 0 || colon > host_end)) {
    std::int64_t port = 0;
    if (!parse_number(rest.substr(colon + 1), port) || port == 0 || port > 65535) {
      bad_url(url, "the port is not a number in 1..65535");
    }
    settings.port = static_cast<int>(port);
    rest = rest.substr(0, colon);
  }
  if (host_end != 0) rest = rest.substr(1, host_end - 1);
  if (rest.empty()) bad_url(url, "no host");
  settings.host = rest;
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    const auto eq = pair.find('=');
    const std::string_view name = pair.substr(0, eq);
    std::int64_t value = 0;
    if (eq == std::string_view::npos || !parse_number(pair.substr(eq + 1), value)) {
      bad_url(url, "setting '" + std::string(name) + "' needs a number");
    }
    const std::chrono::milliseconds ms{value};
    if (name == "connect_timeout_ms") {
      settings.connect_timeout = ms;
    } else if (name == "command_timeout_ms") {
      settings.command_timeout = ms;
    } else if (name == "lease_ms") {
      settings.lease = ms;
    } else if (name == "wait_ms") {
      settings.wait = ms;
    } else if (name == "poll_ms") {
      settings.poll = ms;
    } else if (name == "breaker_pause_ms") {
      settings.breaker_pause = ms;
    } else if (name == "breaker_failures") {
      settings.breaker_failures = static_cast<int>(std::min<std::int64_t>(value, 1'000'000));
    } else if (name == "max_entry_bytes") {
      settings.max_entry_bytes = static_cast<std::uint64_t>(value);
    } else {
      bad_url(url, "unknown setting '" + std::string(name) + "'");
    }
  }
  if (settings.connect_timeout.count() == 0 || settings.command_timeout.count() == 0) {
    bad_url(url, "timeouts must be at least 1 ms");
  }
  if (settings.lease.count() < 3) bad_url(url, "lease_ms must be at least 3");
  if (settings.poll.count() == 0) bad_url(url, "poll_ms must be at least 1");
  if (settings.breaker_failures == 0) bad_url(url, "breaker_failures must be at least 1");
  return settings;
}

std::vector<unsigned char> read_key_file(const std::string& path) {
  auto refuse = [&](const std::string& why) -> std::vector<unsigned char> {
    jit::location where;
    where.file = path;
    throw jit::error("cannot use '" + path + "' as the remote cache's key file: " + why,
                     std::move(where));
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return refuse(errno_message());
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat status {};
  if (::fstat(fd, &status) != 0) return refuse(errno_message());
  if (!S_ISREG(status.st_mode)) return refuse("not a regular file");
  if (status.st_uid != ::geteuid()) {
    return refuse("owned by uid " + std::to_string(status.st_uid) + ", not by this user");
  }
  if (status.st_mode & (S_IRWXG | S_IRWXO)) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(status.st_mode & 07777));
    return refuse(std::string("readable or writable by its group or others (mode ") + mode +
                  "): anyone who reads it can sign code the fleet runs; chmod 600 it");
  }
  constexpr std::size_t kMaxKeyBytes = 4096;
  std::vector<unsigned char> key(kMaxKeyBytes + 1);
  std::size_t got = 0;
  while (got < key.size()) {
    const ssize_t n = ::read(fd, key.data() + got, key.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return refuse(errno_message());
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  key.resize(got);
  if (!key.empty() && key.back() == '\n') key.pop_back();
  if (key.size() > kMaxKeyBytes) return refuse("longer than 4096 bytes");
  if (key.size() < 16) return refuse("shorter than 16 bytes");
  return key;
}

struct RemoteCache::Connection {
  redisContext* context = nullptr;
  ~Connection() {
    if (context) redisFree(context);
  }
};

struct RemoteCache::Reply {
  redisReply* reply = nullptr;
  ~Reply() {
    if (reply) freeReplyObject(reply);
  }
};

RemoteCache::RemoteCache(RemoteSettings settings, std::vector<unsigned char> secret)
    : settings_(std::move(settings)), secret_(std::move(secret)) {}

RemoteCache::~RemoteCache() = default;

std::string RemoteCache::entry_name(const Digest& digest) {
  return std::string(kEntryPrefix) + hex(digest);
}

std::string RemoteCache::lease_name(const Digest& digest) {
  return std::string(kLeasePrefix) + hex(digest);
}

std::unique_ptr<RemoteCache::Connection> RemoteCache::connect(std::string& why) {
  auto connection = std::make_unique<Connection>();
  connection->context = redisConnectWithTimeout(settings_.host.c_str(), settings_.port,
                                                to_timeval(settings_.connect_timeout));
  redisContext* c = connection->context;
  if (c == nullptr) {
    why = "cannot allocate a connection";
    return nullptr;
  }
  if (c->err) {
    why = "connect: " + std::string(c->errstr);
    return nullptr;
  }
  if (redisSetTimeout(c, to_timeval(settings_.command_timeout)) != REDIS_OK) {
    why = "cannot set the command timeout";
    return nullptr;
  }
  auto setup = [&](std::vector<std::string> arguments) {
    std::vector<const char*> pointers;
    std::vector<std::size_t> lengths;
    for (const std::string& argument : arguments) {
      pointers.push_back(argument.data());
      lengths.push_back(argument.size());
    }
    Reply reply{static_cast<redisReply*>(
        redisCommandArgv(c, static_cast<int>(arguments.size()), pointers.data(), lengths.data()))};
    if (reply.reply == nullptr) {
      why = arguments[0] + ": " + std::string(c->errstr);
      return false;
    }
    if (reply.reply->type == REDIS_REPLY_ERROR) {
      why = arguments[0] + ": " + std::string(reply.reply->str, reply.reply->len);
      return false;
    }
    return true;
  };
  if (!settings_.password.empty()) {
    std::vector<std::string> auth{"AUTH"};
    if (!settings_.user.empty()) auth.push_back(settings_.user);
    auth.push_back(settings_.password);
    if (!setup(std::move(auth))) return nullptr;
  }
  if (settings_.db != 0 && !setup({"SELECT", std::to_string(settings_.db)})) return nullptr;
  return connection;
}

void RemoteCache::succeeded() {
  std::lock_guard lock(mutex_);
  consecutive_failures_ = 0;
  if (reported_down_) {
    reported_down_ = false;
    report_disk_cache("remote cache: " + settings_.describe() + " answers again");
  }
}

void RemoteCache::failed(const std::string& why) {
  bool report = false;
  {
    std::lock_guard lock(mutex_);
    if (++consecutive_failures_ >= settings_.breaker_failures) {
      closed_at_ = std::chrono::steady_clock::now() + settings_.breaker_pause;
      report = !reported_down_;
      reported_down_ = true;
    }
  }
  if (report) {
    report_disk_cache("remote cache: " + settings_.describe() + " failed (" + why +
                      "); not asked for " + std::to_string(settings_.breaker_pause.count()) +
                      " ms at a time until it answers; compiling locally meanwhile");
  }
}

std::shared_ptr<RemoteCache::Reply> RemoteCache::command(
    const std::vector<std::string_view>& arguments, Status& status) {
  std::unique_ptr<Connection> connection;
  {
    std::lock_guard lock(mutex_);
    if (consecutive_failures_ >= settings_.breaker_failures &&
        std::chrono::steady_clock::now() < closed_at_) {
      status = Status::Skipped;
      return nullptr;
    }
    if (!idle_.empty()) {
      connection = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  std::string why;
  if (!connection) connection = connect(why);
  if (!connection) {
    failed(why);
    status = Status::Failed;
    return nullptr;
  }
  std::vector<const char*> pointers;
  std::vector<std::size_t> lengths;
  for (std::string_view argument : arguments) {
    pointers.push_back(argument.data());
    lengths.push_back(argument.size());
  }
  auto reply = std::make_shared<Reply>();
  reply->reply = static_cast<redisReply*>(redisCommandArgv(
      connection->context, static_cast<int>(arguments.size()), pointers.data(), lengths.data()));
  if (reply->reply == nullptr) {
    // A timeout, a reset, a partial reply: the connection is dropped.
    failed(std::string(arguments[0]) + ": " + connection->context->errstr);
    status = Status::Failed;
    return nullptr;
  }
  {
    std::lock_guard lock(mutex_);
    idle_.push_back(std::move(connection));
  }
  if (reply->reply->type == REDIS_REPLY_ERROR) {
    failed(std::string(arguments[0]) + ": " + std::string(reply->reply->str, reply->reply->len));
    status = Status::Failed;
    return nullptr;
  }
  succeeded();
  status = Status::Ok;
  return reply;
}

RemoteCache::Status RemoteCache::get(const DiskKey& key, std::vector<char>& payload) {
  const Digest digest = key_digest(key);
  const std::string name = entry_name(digest);
  Status status;
  const std::shared_ptr<Reply> reply = command({"GET", name}, status);
  if (!reply) return status;
  const redisReply* r = reply->reply;
  if (r->type == REDIS_REPLY_NIL) return Status::Missing;
  auto refuse = [&](const std::string& why) {
    report_disk_cache("remote cache: refused " + name + " in " + settings_.describe() + ": " + why);
    return Status::Rejected;
  };
  if (r->type != REDIS_REPLY_STRING) return refuse("not a string");
  if (r->len > settings_.max_entry_bytes) {
    return refuse(std::to_string(r->len) + " bytes, above the limit of " +
                  std::to_string(settings_.max_entry_bytes));
  }
  const RemoteDecoded decoded =
      decode_remote(std::span<const char>(r->str, r->len), digest, secret_);
  if (!decoded.rejection.empty()) return refuse(decoded.rejection);
  payload.assign(decoded.payload.begin(), decoded.payload.end());
  return Status::Ok;
}

RemoteCache::Status RemoteCache::put(const DiskKey& key, std::span<const char> payload) {
  if (payload.size() + kRemoteHeaderBytes > settings_.max_entry_bytes) {
    report_disk_cache("remote cache: not writing an entry of " +
                      std::to_string(payload.size() + kRemoteHeaderBytes) +
                      " bytes, above the limit of " + std::to_string(settings_.max_entry_bytes));
    return Status::Rejected;
  }
  const std::vector<char> entry = encode_remote(key, payload, secret_);
  const std::string name = entry_name(key_digest(key));
  Status status;
  command({"SET", name, std::string_view(entry.data(), entry.size())}, status);
  return status;
}

RemoteCache::Status RemoteCache::take_lease(const DiskKey& key, const std::string& token) {
  Status status;
  const std::string lease = std::to_string(settings_.lease.count());
  const std::shared_ptr<Reply> reply =
      command({"SET", lease_name(key_digest(key)), token, "NX", "PX", lease}, status);
  if (!reply) return status;
  return reply->reply->type == REDIS_REPLY_NIL ? Status::Missing : Status::Ok;
}

RemoteCache::Status RemoteCache::renew_lease(const DiskKey& key, const std::string& token) {
  Status status;
  const std::string lease = std::to_string(settings_.lease.count());
  const std::shared_ptr<Reply> reply =
      command({"EVAL", kRenewScript, "1", lease_name(key_digest(key)), token, lease}, status);
  if (!reply) return status;
  return reply->reply->type == REDIS_REPLY_INTEGER && reply->reply->integer == 1 ? Status::Ok
                                                                                 : Status::Missing;
}

RemoteCache::Status RemoteCache::release_lease(const DiskKey& key, const std::string& token) {
  Status status;
  command({"EVAL", kReleaseScript, "1", lease_name(key_digest(key)), token}, status);
  return status;
}

std::vector<std::string> RemoteCache::scan(const std::string& pattern) {
  std::vector<std::string> names;
  std::string cursor = "0";
  do {
    Status status;
    const std::shared_ptr<Reply> reply =
        command({"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"}, status);
    if (!reply || reply->reply->type != REDIS_REPLY_ARRAY || reply->reply->elements != 2) {
      throw jit::error("remote cache " + settings_.describe() + ": SCAN failed");
    }
    const redisReply* next = reply->reply->element[0];
    const redisReply* batch = reply->reply->element[1];
    cursor.assign(next->str, next->len);
    for (std::size_t i = 0; i < batch->elements; ++i) {
      names.emplace_back(batch->element[i]->str, batch->element[i]->len);
    }
  } while (cursor != "0");
  return names;
}

std::vector<RemoteCache::Listed> RemoteCache::list() {
  std::vector<Listed> entries;
  for (const std::string& name : scan(std::string(kEntryPrefix) + "*")) {
    Listed listed;
    if (!parse_digest(std::string_view(name).substr(kEntryPrefix.size()), listed.digest)) continue;
    Status status;
    const std::shared_ptr<Reply> reply = command({"STRLEN", name}, status);
    if (!reply) throw jit::error("remote cache " + settings_.describe() + ": STRLEN failed");
    listed.bytes = static_cast<std::uint64_t>(reply->reply->integer);
    entries.push_back(listed);
  }
  return entries;
}

std::string RemoteCache::verify(const Digest& digest) {
  Status status;
  const std::shared_ptr<Reply> reply = command({"GET", entry_name(digest)}, status);
  if (!reply) throw jit::error("remote cache " + settings_.describe() + ": GET failed");
  const redisReply* r = reply->reply;
  if (r->type != REDIS_REPLY_STRING) return "gone";
  if (r->len > settings_.max_entry_bytes) return "above the size limit";
  return decode_remote(std::span<const char>(r->str, r->len), digest, secret_).rejection;
}

std::uint64_t RemoteCache::purge() {
  std::uint64_t deleted = 0;
  for (const std::string& name : scan("augur:*")) {
    Status status;
    const std::shared_ptr<Reply> reply = command({"DEL", name}, status);
    if (!reply) throw jit::error("remote cache " + settings_.describe() + ": DEL failed");
    deleted += static_cast<std::uint64_t>(reply->reply->integer);
  }
  return deleted;
}

std::uint64_t RemoteCache::leases() {
  return scan(std::string(kLeasePrefix) + "*").size();
}

RemoteFlight::RemoteFlight(RemoteCache& cache, const DiskKey& key, RemoteCounters& counters)
    : cache_(cache), key_(key), counters_(counters) {
  const auto start = std::chrono::steady_clock::now();
  lookup();
  counters_.nanoseconds +=
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count();
}

RemoteFlight::~RemoteFlight() {
  if (leading()) {
    stop_renewing();
    count(cache_.release_lease(key_, token_));
  }
}

void RemoteFlight::count(RemoteCache::Status status) {
  if (status == RemoteCache::Status::Failed) ++counters_.errors;
  if (status == RemoteCache::Status::Skipped) ++counters_.skipped;
}

void RemoteFlight::lookup() {
  using Status = RemoteCache::Status;
  std::vector<char> payload;
  Status status = cache_.get(key_, payload);
  count(status);
  if (status == Status::Ok) {
    found_ = std::move(payload);
    return;
  }
  if (status == Status::Rejected) ++counters_.rejected;
  if (status == Status::Missing || status == Status::Rejected) status = lead();
  if (status == Status::Missing) {
    // Another process compiles it: wait for its entry, within the bound;
    // take the lease over if it expires (a holder that crashed).
    ++counters_.waits;
    const auto deadline = std::chrono::steady_clock::now() + cache_.settings().wait;
    while (status == Status::Missing && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(cache_.settings().poll);
      status = cache_.get(key_, payload);
      count(status);
      if (status == Status::Ok) {
        found_ = std::move(payload);
        return;
      }
      if (status == Status::Rejected) ++counters_.rejected;
      if (status == Status::Missing) status = lead();
    }
    if (status == Status::Missing) ++counters_.wait_timeouts;
  }
  if (status != Status::Ok) ++counters_.misses;
}

RemoteCache::Status RemoteFlight::lead() {
  using Status = RemoteCache::Status;
  const std::string token = random_token();
  const Status status = cache_.take_lease(key_, token);
  count(status);
  if (status != Status::Ok) return status;
  // The entry may have been published between the lookup and the lease.
  std::vector<char> payload;
  const Status again = cache_.get(key_, payload);
  count(again);
  if (again == Status::Ok) {
    count(cache_.release_lease(key_, token));
    found_ = std::move(payload);
    return Status::Ok;
  }
  ++counters_.misses;
  token_ = token;
  renewer_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!stop_.wait_for(lock, cache_.settings().lease / 3, [this] { return stopping_; })) {
      lock.unlock();
      count(cache_.renew_lease(key_, token_));
      lock.lock();
    }
  });
  return Status::Ok;
}

void RemoteFlight::stop_renewing() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  renewer_.join();
}

void RemoteFlight::refuse_found() {
  ++counters_.rejected;
  found_.reset();
}

void RemoteFlight::publish(std::span<const char> artifact) {
  const auto start = std::chrono::steady_clock::now();
  const RemoteCache::Status status = cache_.put(key_, artifact);
  count(status);
  if (status == RemoteCache::Status::Ok) ++counters_.writes;
  if (status == RemoteCache::Status::Rejected) ++counters_.rejected;
  if (leading()) {
    stop_renewing();
    count(cache_.release_lease(key_, token_));
  }
  counters_.nanoseconds +=
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count();
}

ChosenRemoteCache remote_cache_for(const std::string& url, const std::string& key_file) {
  auto from_environment = [](const std::string& given, const char* variable) {
    if (!given.empty()) return given;
    const char* value = ::secure_getenv(variable);
    return std::string(value ? value : "");
  };
  const std::string chosen_url = from_environment(url, "AUGUR_REMOTE_CACHE");
  if (chosen_url.empty()) return {};
  const std::string chosen_key = from_environment(key_file, "AUGUR_CACHE_KEY_FILE");
  // Never destroyed, like the disk caches. A null entry remembers a level
  // that is off: it is reported once.
  static std::mutex* const mutex = new std::mutex();
  static auto* const caches =
      new std::map<std::pair<std::string, std::string>, std::unique_ptr<RemoteCache>>();
  std::lock_guard lock(*mutex);
  const auto [it, inserted] = caches->try_emplace({chosen_url, chosen_key});
  if (inserted) {
    try {
      RemoteSettings settings = parse_remote_url(chosen_url);
      if (chosen_key.empty()) {
        throw jit::error("remote cache " + settings.describe() +
                         " is off: no key file to sign entries with (AUGUR_CACHE_KEY_FILE or "
                         "compile_options::remote_cache_key_file)");
      }
      it->second = std::make_unique<RemoteCache>(std::move(settings), read_key_file(chosen_key));
    } catch (const jit::error& e) {
      report_disk_cache(e.message() + "; compiling without the remote cache");
    }
  }
  return {it->second.get(), it->second == nullptr};
}

}  // namespace augur::cache
