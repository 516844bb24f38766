// The remote cache on a real redis-server of the test's own: signed entries
// and what is refused, the fleet's single flight across processes (one
// compile per key, a killed holder's lease expiring), a second process
// loading with no LLVM work, and a store that stops, pauses, restarts and
// flushes under a run of compiles that all stay correct.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <vector>

#include "jit/cpu/statistics.h"
#include "jit/jit.h"
#include "runtime/cache/disk_cache.h"
#include "runtime/cache/remote_cache.h"
#include "runtime/cache/remote_format.h"
#include "tests/cache/redis_server.h"
#include "tests/support/staged_programs.h"

namespace augur::cache::test {
namespace {

using staged::plain_power;
using staged::power;

std::uint64_t backend_compiles() {
  const cpu::Statistics stats = cpu::statistics();
  return stats.objects_compiled + stats.modules_compiled;
}

// The child processes: compile AUGUR_TEST_KEYS exponents from
// AUGUR_TEST_FIRST on through the remote level the environment names, check
// each against the oracle, and print what they did.
TEST(RemoteChild, DISABLED_Compiles) {
  const int first = std::atoi(std::getenv("AUGUR_TEST_FIRST"));
  const int keys = std::atoi(std::getenv("AUGUR_TEST_KEYS"));
  int wrong = 0;
  for (int i = 0; i < keys; ++i) {
    const int n = first + i;
    const auto f = jit::compile(power, n);
    for (double x : {1.0001, -0.75}) wrong += f(x) != plain_power(x, n);
  }
  const jit::cache_statistics s = jit::cache_stats();
  std::printf("child: compiles=%llu remote_hits=%llu remote_writes=%llu wrong=%d\n",
              static_cast<unsigned long long>(backend_compiles()),
              static_cast<unsigned long long>(s.remote_hits),
              static_cast<unsigned long long>(s.remote_writes), wrong);
}

// Takes the lease of the key named by AUGUR_TEST_PROGRAM, says so, and hangs
// (the parent kills it: a holder that crashed mid-compile).
TEST(RemoteChild, DISABLED_HoldsTheLease) {
  RemoteCache cache(parse_remote_url(std::getenv("AUGUR_REMOTE_CACHE")),
                    read_key_file(std::getenv("AUGUR_CACHE_KEY_FILE")));
  const DiskKey key{"toolchain", std::getenv("AUGUR_TEST_PROGRAM")};
  RemoteCounters counters;
  RemoteFlight flight(cache, key, counters);
  ASSERT_TRUE(flight.leading());
  std::printf("leading\n");
  std::fflush(stdout);
  ::pause();
}

class RemoteCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = std::filesystem::temp_directory_path() /
            ("augur-remote-" + std::to_string(::getpid()) + "-" + info->name());
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
    if (find_redis_server().empty()) {
      GTEST_SKIP() << "redis-server is not installed (scripts/setup.sh installs it)";
    }
    server_ = std::make_unique<RedisServer>(root_ / "redis");
    ASSERT_TRUE(server_->start()) << "redis-server did not start";
    key_file_ = write_key("key", "fleet secret for the tests, 0123456789");
    set_disk_cache_reporter([this](std::string_view message) {
      std::lock_guard lock(mutex_);
      reports_.emplace_back(message);
    });
    jit::clear_cache();
  }
  void TearDown() override {
    set_disk_cache_reporter({});
    server_.reset();
    std::filesystem::remove_all(root_);
  }

  std::string write_key(const std::string& name, const std::string& text, mode_t mode = 0600) {
    const std::filesystem::path path = root_ / name;
    std::ofstream(path) << text << "\n";
    ::chmod(path.c_str(), mode);
    return path.string();
  }
  std::vector<unsigned char> secret() const { return read_key_file(key_file_); }
  RemoteCache cache(const std::string& settings = {}) const {
    return RemoteCache(parse_remote_url(server_->url(settings)), secret());
  }
  jit::compile_options with_remote(const std::string& settings) const {
    jit::compile_options options;
    options.remote_cache = server_->url(settings);
    options.remote_cache_key_file = key_file_;
    return options;
  }
  std::vector<std::string> reports() {
    std::lock_guard lock(mutex_);
    return reports_;
  }
  // Runs a raw command on the server; the reply's string, or "" for none.
  std::string raw(const std::vector<std::string>& arguments) const {
    redisContext* c = server_->connect();
    std::vector<const char*> pointers;
    std::vector<std::size_t> lengths;
    for (const std::string& a : arguments) {
      pointers.push_back(a.data());
      lengths.push_back(a.size());
    }
    auto* reply = static_cast<redisReply*>(
        redisCommandArgv(c, static_cast<int>(arguments.size()), pointers.data(), lengths.data()));
    std::string text;
    if (reply && reply->type == REDIS_REPLY_STRING) text.assign(reply->str, reply->len);
    if (reply && reply->type == REDIS_REPLY_INTEGER) text = std::to_string(reply->integer);
    if (reply) freeReplyObject(reply);
    redisFree(c);
    return text;
  }
  // Children of this binary with the remote level in their environment.
  std::vector<std::string> child_environment(const std::string& settings) const {
    return {"AUGUR_REMOTE_CACHE=" + server_->url(settings), "AUGUR_CACHE_KEY_FILE=" + key_file_};
  }
  static std::string self() { return std::filesystem::read_symlink("/proc/self/exe"); }

  std::filesystem::path root_;
  std::unique_ptr<RedisServer> server_;
  std::string key_file_;
  std::mutex mutex_;
  std::vector<std::string> reports_;
};

TEST_F(RemoteCacheTest, UrlsAreParsedOrRefusedByName) {
  const RemoteSettings s =
      parse_remote_url("redis://me:pw@cache.internal:7000/3?command_timeout_ms=40&lease_ms=900");
  EXPECT_EQ(s.host, "cache.internal");
  EXPECT_EQ(s.port, 7000);
  EXPECT_EQ(s.user, "me");
  EXPECT_EQ(s.password, "pw");
  EXPECT_EQ(s.db, 3);
  EXPECT_EQ(s.command_timeout.count(), 40);
  EXPECT_EQ(s.lease.count(), 900);
  EXPECT_EQ(s.describe(), "redis://cache.internal:7000/3");
  EXPECT_EQ(parse_remote_url("redis://h").port, 6379);
  EXPECT_EQ(parse_remote_url("redis://[::1]:7001").host, "::1");
  EXPECT_EQ(parse_remote_url("redis://[::1]:7001").port, 7001);
  EXPECT_EQ(parse_remote_url("redis://[::1]").port, 6379);
  for (const char* bad : {"http://h:1", "redis://h:99999", "redis://h:1/x",
                          "redis://h?lease_ms=", "redis://h?colour=3", "redis://:1", "redis://[::1",
                          "redis://u:secretpw@h?wait_ms=x"}) {
    try {
      parse_remote_url(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const jit::error& e) {
      EXPECT_THAT(e.message(), ::testing::HasSubstr("remote cache URL")) << bad;
      EXPECT_THAT(e.message(), ::testing::Not(::testing::HasSubstr("secretpw")));
    }
  }
}

TEST_F(RemoteCacheTest, KeyFilesReadableByOthersOrTooShortAreRefused) {
  EXPECT_EQ(secret().size(), std::string("fleet secret for the tests, 0123456789").size());
  const std::string shared = write_key("shared", "fleet secret for the tests, 0123456789", 0640);
  EXPECT_THAT([&] { read_key_file(shared); },
              ::testing::ThrowsMessage<jit::error>(
                  ::testing::HasSubstr("readable or writable by its group or others (mode 0640)")));
  const std::string shorter = write_key("short", "tiny");
  EXPECT_THAT([&] { read_key_file(shorter); },
              ::testing::ThrowsMessage<jit::error>(::testing::HasSubstr("shorter than 16 bytes")));
  EXPECT_THROW(read_key_file((root_ / "absent").string()), jit::error);
}

TEST_F(RemoteCacheTest, WithoutAKeyTheLevelIsOffAndSaysSoOnce) {
  jit::compile_options options;
  options.remote_cache = server_->url("poll_ms=7");  // a URL of this test's own
  const std::uint64_t off = jit::cache_stats().remote_off;
  const char* environment_key = std::getenv("AUGUR_CACHE_KEY_FILE");
  ASSERT_EQ(environment_key, nullptr);
  EXPECT_EQ(jit::compile(options, power, 5)(2.0), 32.0);
  EXPECT_EQ(jit::compile(options, power, 6)(2.0), 64.0);
  EXPECT_EQ(jit::cache_stats().remote_off - off, 2u);
  const std::vector<std::string> said = reports();
  ASSERT_EQ(said.size(), 1u) << ::testing::PrintToString(said);
  EXPECT_THAT(said[0], ::testing::HasSubstr("is off: no key file"));
  EXPECT_EQ(raw({"DBSIZE"}), "0");
}

TEST_F(RemoteCacheTest, EntriesRoundTripAndBadOnesAreRefused) {
  RemoteCache remote = cache("max_entry_bytes=400");
  const DiskKey key{"toolchain", "program"};
  const DiskKey other{"toolchain", "another program"};
  const std::string payload = "object code";
  std::vector<char> got;
  EXPECT_EQ(remote.get(key, got), RemoteCache::Status::Missing);
  ASSERT_EQ(remote.put(key, payload), RemoteCache::Status::Ok);
  ASSERT_EQ(remote.get(key, got), RemoteCache::Status::Ok);
  EXPECT_EQ(std::string(got.begin(), got.end()), payload);

  const std::string name = RemoteCache::entry_name(key_digest(key));
  const std::string other_name = RemoteCache::entry_name(key_digest(other));
  const std::string good = raw({"GET", name});
  auto refused_for = [&](const std::string& stored) {
    raw({"SET", other_name, stored});
    const std::size_t before = reports().size();
    EXPECT_EQ(remote.get(other, got), RemoteCache::Status::Rejected);
    const std::vector<std::string> said = reports();
    return said.size() > before ? said.back() : std::string("(nothing reported)");
  };
  // Another key's entry copied under this one's name.
  EXPECT_THAT(refused_for(good), ::testing::HasSubstr("foreign"));
  // Signed with another fleet's key.
  const std::vector<char> forged = encode_remote(
      other, payload, std::vector<unsigned char>(32, static_cast<unsigned char>('k')));
  EXPECT_THAT(refused_for(std::string(forged.begin(), forged.end())),
              ::testing::HasSubstr("wrong signature"));
  // The right signature over a changed payload.
  std::vector<char> tampered = encode_remote(other, payload, secret());
  tampered.back() ^= 1;
  EXPECT_THAT(refused_for(std::string(tampered.begin(), tampered.end())),
              ::testing::HasSubstr("wrong signature"));
  const std::vector<char> signed_entry = encode_remote(other, payload, secret());
  EXPECT_THAT(refused_for(std::string(signed_entry.begin(), signed_entry.end() - 3)),
              ::testing::HasSubstr("truncated"));
  EXPECT_THAT(refused_for(std::string(signed_entry.begin(), signed_entry.begin() + 40)),
              ::testing::HasSubstr("truncated"));
  EXPECT_THAT(refused_for(std::string(100, 'z')), ::testing::HasSubstr("unsigned"));
  EXPECT_THAT(refused_for(std::string(500, 'x')), ::testing::HasSubstr("above the limit of 400"));
  // Nothing above the limit is written either.
  const DiskKey big{"toolchain", "big"};
  EXPECT_EQ(remote.put(big, std::string(400, 'y')), RemoteCache::Status::Rejected);
  EXPECT_EQ(raw({"EXISTS", RemoteCache::entry_name(key_digest(big))}), "0");
  // The good entry still loads, and a flight counts what it refuses.
  ASSERT_EQ(remote.get(key, got), RemoteCache::Status::Ok);
  raw({"SET", other_name, good});
  RemoteCounters counters;
  {
    RemoteFlight flight(remote, other, counters);
    EXPECT_EQ(flight.found(), nullptr);
    EXPECT_TRUE(flight.leading());  // it compiles, and replaces the bad entry
    flight.publish(std::string_view("replacement"));
  }
  EXPECT_EQ(counters.rejected.load(), 1u);
  EXPECT_EQ(counters.writes.load(), 1u);
  ASSERT_EQ(remote.get(other, got), RemoteCache::Status::Ok);
  EXPECT_EQ(std::string(got.begin(), got.end()), "replacement");
}

TEST_F(RemoteCacheTest, ASecondProcessLoadsFromTheRemoteWithoutCompiling) {
  const std::uint64_t compiles = backend_compiles();
  for (int n = 40; n < 43; ++n) {
    EXPECT_EQ(jit::compile(with_remote(""), power, n)(1.0001), plain_power(1.0001, n));
  }
  EXPECT_EQ(backend_compiles() - compiles, 3u);
  // The child has a disk cache too: the remote hits fill it.
  std::vector<std::string> environment = child_environment("");
  environment.push_back("AUGUR_TEST_FIRST=40");
  environment.push_back("AUGUR_TEST_KEYS=3");
  environment.push_back("AUGUR_CACHE_DIR=" + (root_ / "disk").string());
  auto [pid, out] = spawn(
      {self(), "--gtest_also_run_disabled_tests", "--gtest_filter=RemoteChild.DISABLED_Compiles"},
      environment);
  ASSERT_GT(pid, 0);
  const std::string output = read_output(out);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_EQ(status, 0) << output;
  EXPECT_THAT(output,
              ::testing::HasSubstr("child: compiles=0 remote_hits=3 remote_writes=0 wrong=0\n"));
  const auto disk_entries = std::distance(std::filesystem::directory_iterator(root_ / "disk"),
                                          std::filesystem::directory_iterator());
  EXPECT_EQ(disk_entries, 3);
}

TEST_F(RemoteCacheTest, AFleetCompilesEachKeyOnce) {
  // 8 processes x 50 keys, all asking in the same order.
  constexpr int kProcesses = 8;
  constexpr int kKeys = 50;
  std::vector<std::pair<pid_t, int>> children;
  for (int i = 0; i < kProcesses; ++i) {
    std::vector<std::string> environment = child_environment("poll_ms=5");
    environment.push_back("AUGUR_TEST_FIRST=100");
    environment.push_back("AUGUR_TEST_KEYS=" + std::to_string(kKeys));
    children.push_back(spawn(
        {self(), "--gtest_also_run_disabled_tests", "--gtest_filter=RemoteChild.DISABLED_Compiles"},
        environment));
    ASSERT_GT(children.back().first, 0);
  }
  unsigned long long compiles = 0, hits = 0;
  for (auto [pid, out] : children) {
    const std::string output = read_output(out);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_EQ(status, 0) << output;
    unsigned long long c = 0, h = 0, w = 0;
    int wrong = -1;
    const std::size_t at = output.find("child: ");
    ASSERT_NE(at, std::string::npos) << output;
    ASSERT_EQ(std::sscanf(output.c_str() + at,
                          "child: compiles=%llu remote_hits=%llu remote_writes=%llu wrong=%d", &c,
                          &h, &w, &wrong),
              4)
        << output;
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(c, w) << "every compile is published";
    compiles += c;
    hits += h;
  }
  EXPECT_EQ(compiles, static_cast<unsigned long long>(kKeys));
  EXPECT_EQ(hits, static_cast<unsigned long long>(kKeys * (kProcesses - 1)));
}

TEST_F(RemoteCacheTest, AKilledHoldersLeaseExpiresAndAnotherCompiles) {
  const std::string settings = "lease_ms=600&poll_ms=10";
  std::vector<std::string> environment = child_environment(settings);
  environment.push_back("AUGUR_TEST_PROGRAM=held");
  auto [pid, out] = spawn({self(), "--gtest_also_run_disabled_tests",
                           "--gtest_filter=RemoteChild.DISABLED_HoldsTheLease"},
                          environment);
  ASSERT_GT(pid, 0);
  std::string said;
  while (said.find("leading\n") == std::string::npos) {
    const std::string line = read_output(out, true);
    ASSERT_FALSE(line.empty()) << said;
    said += line;
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  ::close(out);

  RemoteCache remote = cache(settings);
  const DiskKey key{"toolchain", "held"};
  RemoteCounters counters;
  RemoteFlight flight(remote, key, counters);
  EXPECT_EQ(flight.found(), nullptr);
  EXPECT_TRUE(flight.leading());
  EXPECT_EQ(counters.waits.load(), 1u);
  EXPECT_EQ(counters.wait_timeouts.load(), 0u);
  flight.publish(std::string_view("code"));
  std::vector<char> got;
  EXPECT_EQ(remote.get(key, got), RemoteCache::Status::Ok);
}

TEST_F(RemoteCacheTest, ALiveHoldersLeaseIsRenewedAndWaitersGetItsEntry) {
  // A lease of 1 s held for longer: renewal keeps the waiter waiting.
  RemoteCache remote = cache("lease_ms=1000&poll_ms=5");
  const DiskKey key{"toolchain", "slow"};
  RemoteCounters holder_counters, waiter_counters;
  RemoteFlight holder(remote, key, holder_counters);
  ASSERT_TRUE(holder.leading());
  std::thread waiter([&] {
    RemoteFlight flight(remote, key, waiter_counters);
    EXPECT_FALSE(flight.leading());
    ASSERT_NE(flight.found(), nullptr);
    EXPECT_EQ(std::string(flight.found()->begin(), flight.found()->end()), "slow code");
  });
  // Until the waiter is waiting, then two and a half lease periods.
  while (waiter_counters.waits.load() == 0) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  holder.publish(std::string_view("slow code"));
  waiter.join();
  EXPECT_EQ(waiter_counters.waits.load(), 1u);
  EXPECT_EQ(holder_counters.errors.load(), 0u);
}

TEST_F(RemoteCacheTest, CompilesSurviveTheStoreStoppingPausingRestartingAndFlushing) {
  const std::string settings =
      "connect_timeout_ms=50&command_timeout_ms=100&breaker_failures=2&breaker_pause_ms=100";
  const jit::compile_options options = with_remote(settings);
  int n = 200;
  auto compile_some = [&](int count) {
    for (int i = 0; i < count; ++i, ++n) {
      const auto f = jit::compile(options, power, n);
      for (double x : {1.0001, -0.5}) ASSERT_EQ(f(x), plain_power(x, n)) << n;
    }
  };
  const jit::cache_statistics start = jit::cache_stats();
  compile_some(2);
  EXPECT_EQ(jit::cache_stats().remote_writes - start.remote_writes, 2u);

  server_->pause();
  compile_some(4);
  server_->resume();
  const jit::cache_statistics paused = jit::cache_stats();
  EXPECT_GT(paused.remote_errors, start.remote_errors);

  server_->stop();
  compile_some(4);
  const jit::cache_statistics stopped = jit::cache_stats();
  EXPECT_GT(stopped.remote_errors + stopped.remote_skipped,
            paused.remote_errors + paused.remote_skipped);

  // Restarted empty: once the breaker's pause is over, entries are written again.
  server_->restart();
  for (int attempt = 0; attempt < 50 && jit::cache_stats().remote_writes == stopped.remote_writes;
       ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    compile_some(1);
  }
  EXPECT_GT(jit::cache_stats().remote_writes, stopped.remote_writes);
  EXPECT_THAT(reports(), ::testing::Contains(::testing::HasSubstr("answers again")));

  raw({"FLUSHALL"});
  const jit::cache_statistics flushed = jit::cache_stats();
  compile_some(2);
  EXPECT_EQ(jit::cache_stats().remote_misses - flushed.remote_misses, 2u);
  EXPECT_EQ(jit::cache_stats().remote_writes - flushed.remote_writes, 2u);
}

TEST_F(RemoteCacheTest, AFullStoreIsAMissAndAnEvictingOneToo) {
  const jit::compile_options options = with_remote("breaker_pause_ms=1");
  // Full, refusing writes (OOM error replies): counted errors, correct compiles.
  raw({"CONFIG", "SET", "maxmemory-policy", "noeviction"});
  raw({"CONFIG", "SET", "maxmemory", "1"});
  const jit::cache_statistics start = jit::cache_stats();
  for (int n = 300; n < 303; ++n) {
    EXPECT_EQ(jit::compile(options, power, n)(1.0001), plain_power(1.0001, n));
  }
  const jit::cache_statistics full = jit::cache_stats();
  EXPECT_GT(full.remote_errors, start.remote_errors);
  EXPECT_EQ(full.remote_writes, start.remote_writes);
  // Evicting: entries come and go; every request is a hit or a compile.
  raw({"CONFIG", "SET", "maxmemory", "0"});
  raw({"CONFIG", "SET", "maxmemory-policy", "allkeys-lru"});
  for (int n = 300; n < 303; ++n) jit::compile(options, power, n + 10);
  raw({"CONFIG", "SET", "maxmemory", "1"});
  jit::clear_cache();
  const std::uint64_t compiles = backend_compiles();
  for (int n = 300; n < 303; ++n) {
    EXPECT_EQ(jit::compile(options, power, n + 10)(1.0001), plain_power(1.0001, n + 10));
  }
  const jit::cache_statistics evicted = jit::cache_stats();
  EXPECT_EQ(backend_compiles() - compiles + (evicted.remote_hits - full.remote_hits), 3u);
  EXPECT_EQ(raw({"DBSIZE"}), "0");
}

// Runs augur-cache with `arguments`; its exit status and output.
std::pair<int, std::string> augur_cache(const std::vector<std::string>& arguments) {
  std::vector<std::string> command{AUGUR_CACHE_TOOL};
  command.insert(command.end(), arguments.begin(), arguments.end());
  auto [pid, out] = spawn(command);
  const std::string output = read_output(out);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

void scale_kernel(jit::dyn<float*> v, jit::dyn<int> n, float a) {
  jit::dyn<int> i = jit::gpu::global_id_x();
  if (i < n) v[i] = v[i] * a;
}

// GPU kernels (here on the CPU fallback) go through the remote level that
// AUGUR_REMOTE_CACHE names, and jit::gpu::stats counts it.
TEST_F(RemoteCacheTest, KernelsGoThroughTheRemoteLevelTheEnvironmentNames) {
  ::setenv("AUGUR_REMOTE_CACHE", server_->url("").c_str(), 1);
  ::setenv("AUGUR_CACHE_KEY_FILE", key_file_.c_str(), 1);
  jit::gpu::options options;
  options.where = jit::gpu::target::cpu;
  options.name = "remote_scale";
  const jit::gpu::statistics before = jit::gpu::stats();
  jit::gpu::compile(options, scale_kernel, 3.0f);
  const jit::gpu::statistics written = jit::gpu::stats();
  EXPECT_EQ(written.remote_misses, before.remote_misses + 1);
  EXPECT_EQ(written.remote_writes, before.remote_writes + 1);
  EXPECT_EQ(written.fallback_compiles, before.fallback_compiles + 1);

  // A new process, as far as the caches know: the kernel comes from Redis.
  jit::gpu::clear_cache();
  const auto k = jit::gpu::compile(options, scale_kernel, 3.0f);
  ::unsetenv("AUGUR_REMOTE_CACHE");
  ::unsetenv("AUGUR_CACHE_KEY_FILE");
  const jit::gpu::statistics loaded = jit::gpu::stats();
  EXPECT_EQ(loaded.remote_hits, written.remote_hits + 1);
  EXPECT_EQ(loaded.fallback_compiles, written.fallback_compiles);
  jit::gpu::buffer<float> v(std::vector<float>{1.0f, 2.0f, 3.0f}, k.where());
  k.launch(1, 4, v, 3);
  EXPECT_EQ(v.to_vector(), (std::vector<float>{3.0f, 6.0f, 9.0f}));
}

// Each thread counts the lines that start at or after its own.
void next_line_kernel(jit::dyn<const std::uint8_t*> text, jit::dyn<std::int64_t*> out,
                      jit::dyn<std::int64_t> n) {
  jit::dyn<std::int64_t> i = jit::dyn<std::int64_t>(jit::gpu::global_id_x());
  if (i < n) out[i] = jit::find_byte(text, i, n, '\n');
}

// jit::gpu::options names the remote level itself, and a kernel that calls a
// scan comes back from it bound to the host function (on the CPU fallback).
TEST_F(RemoteCacheTest, KernelOptionsNameTheRemoteLevel) {
  jit::gpu::options options;
  options.where = jit::gpu::target::cpu;
  options.name = "remote_next_line";
  options.remote_cache = server_->url("");
  options.remote_cache_key_file = key_file_;
  const jit::gpu::statistics before = jit::gpu::stats();
  jit::gpu::compile(options, next_line_kernel);
  EXPECT_EQ(jit::gpu::stats().remote_writes, before.remote_writes + 1);

  jit::gpu::clear_cache();
  const auto k = jit::gpu::compile(options, next_line_kernel);
  const jit::gpu::statistics loaded = jit::gpu::stats();
  EXPECT_EQ(loaded.remote_hits, before.remote_hits + 1);
  EXPECT_EQ(loaded.fallback_compiles, before.fallback_compiles + 1);
  const std::string text = "ab\ncd\n\nefg";
  jit::gpu::buffer<std::uint8_t> in(std::vector<std::uint8_t>(text.begin(), text.end()), k.where());
  jit::gpu::buffer<std::int64_t> out(std::vector<std::int64_t>(text.size(), -1), k.where());
  k.launch(1, 32, in, out, static_cast<std::int64_t>(text.size()));
  EXPECT_EQ(out.to_vector(), (std::vector<std::int64_t>{2, 2, 2, 5, 5, 5, 6, 10, 10, 10}));
}

TEST_F(RemoteCacheTest, AugurCacheListsVerifiesAndPurgesARemoteCache) {
  RemoteCache remote = cache();
  const DiskKey first{"toolchain", "first"}, second{"toolchain", "second"};
  ASSERT_EQ(remote.put(first, std::string_view("code one")), RemoteCache::Status::Ok);
  ASSERT_EQ(remote.put(second, std::string_view("code two")), RemoteCache::Status::Ok);
  const std::string url = server_->url();
  const auto [listed, list] = augur_cache({"list", "--remote", url});
  EXPECT_EQ(listed, 0) << list;
  EXPECT_THAT(list, ::testing::HasSubstr(RemoteCache::entry_name(key_digest(first)) + " " +
                                         std::to_string(kRemoteHeaderBytes + 8)));
  EXPECT_THAT(list, ::testing::HasSubstr(RemoteCache::entry_name(key_digest(second))));
  const auto [shown, stats] = augur_cache({"stats", "--remote", url});
  EXPECT_EQ(shown, 0) << stats;
  EXPECT_THAT(stats,
              ::testing::HasSubstr("2 entries, " + std::to_string(2 * (kRemoteHeaderBytes + 8)) +
                                   " bytes, 0 leases held"));
  const auto [good, verified] = augur_cache({"verify", "--remote", url, "--key-file", key_file_});
  EXPECT_EQ(good, 0) << verified;
  EXPECT_THAT(verified, ::testing::HasSubstr("2 entries, 0 bad"));
  // Another key's entry under the second's name.
  raw({"SET", RemoteCache::entry_name(key_digest(second)),
       raw({"GET", RemoteCache::entry_name(key_digest(first))})});
  const auto [bad, refused] = augur_cache({"verify", "--remote", url, "--key-file", key_file_});
  EXPECT_EQ(bad, 1) << refused;
  EXPECT_THAT(refused, ::testing::HasSubstr("BAD " + RemoteCache::entry_name(key_digest(second)) +
                                            ": foreign"));
  const auto [purged, purge] = augur_cache({"purge", "--remote", url});
  EXPECT_EQ(purged, 0) << purge;
  EXPECT_THAT(purge, ::testing::HasSubstr("removed 2 keys"));
  EXPECT_EQ(raw({"DBSIZE"}), "0");
  EXPECT_EQ(augur_cache({"verify", "--remote", url}).first, 2);
}

TEST_F(RemoteCacheTest, AugurCacheListsVerifiesAndPurgesADiskCache) {
  const std::filesystem::path dir = root_ / "disk";
  DiskCache disk(dir);
  ASSERT_TRUE(disk.store(DiskKey{"toolchain", "first"}, std::string_view("code one")));
  ASSERT_TRUE(disk.store(DiskKey{"toolchain", "second"}, std::string_view("code two")));
  const auto [good, verified] = augur_cache({"verify", "--dir", dir.string()});
  EXPECT_EQ(good, 0) << verified;
  EXPECT_THAT(verified, ::testing::HasSubstr("2 entries, 0 bad"));
  const std::filesystem::path damaged = disk.path_of(DiskKey{"toolchain", "second"});
  std::filesystem::resize_file(damaged, std::filesystem::file_size(damaged) - 1);
  const auto [bad, refused] = augur_cache({"verify", "--dir", dir.string()});
  EXPECT_EQ(bad, 1) << refused;
  EXPECT_THAT(refused, ::testing::HasSubstr("BAD " + damaged.filename().string()));
  const auto [shown, stats] = augur_cache({"stats", "--dir", dir.string()});
  EXPECT_THAT(stats, ::testing::HasSubstr("2 entries"));
  const auto [purged, purge] = augur_cache({"purge", "--dir", dir.string()});
  EXPECT_THAT(purge, ::testing::HasSubstr("removed 2 files"));
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

}  // namespace
}  // namespace augur::cache::test
