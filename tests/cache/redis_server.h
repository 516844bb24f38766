// A redis-server of the test's own: on a free loopback port, without
// persistence, in a temp directory; stopped, paused, resumed and restarted on
// demand. Tests skip (with the reason) where redis-server is not installed.
#pragma once

#include <arpa/inet.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace augur::cache::test {

// The redis-server on the PATH, or "" when there is none.
inline std::string find_redis_server() {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::filesystem::path candidate =
        std::filesystem::path(dirs.substr(start, end - start)) / "redis-server";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    start = end + 1;
  }
  return {};
}

// A loopback port nobody listens on now.
inline int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof address;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  ::close(fd);
  return port;
}

// Spawns `arguments` with stdout (and stderr) into a pipe; its pid and the
// pipe's read end.
inline std::pair<pid_t, int> spawn(const std::vector<std::string>& arguments,
                                   const std::vector<std::string>& environment = {}) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return {-1, -1};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
  std::vector<char*> argv;
  for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_strings = environment;
  for (char** e = environ; *e; ++e) env_strings.emplace_back(*e);
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  if (::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data()) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  return {pid, pipe_fds[0]};
}

// Reads `fd` to its end (or, with `line`, to the first newline) and closes it
// in the first case.
inline std::string read_output(int fd, bool line = false) {
  std::string output;
  char c;
  while (::read(fd, &c, 1) == 1) {
    output += c;
    if (line && c == '\n') return output;
  }
  ::close(fd);
  return output;
}

class RedisServer {
 public:
  explicit RedisServer(std::filesystem::path dir) : dir_(std::move(dir)) {}
  ~RedisServer() { stop(); }

  // Starts it on a free port (or the same port again): whether it answers.
  bool start() {
    const std::string binary = find_redis_server();
    if (binary.empty()) return false;
    std::filesystem::create_directories(dir_);
    for (int attempt = 0; attempt < 5; ++attempt) {
      if (port_ == 0 || attempt > 0) port_ = free_port();
      auto [pid, out] = spawn({binary, "--port", std::to_string(port_), "--bind", "127.0.0.1",
                               "--save", "", "--appendonly", "no", "--dir", dir_.string(),
                               "--logfile", (dir_ / "redis.log").string()});
      if (pid < 0) return false;
      ::close(out);
      pid_ = pid;
      if (wait_until_ready()) return true;
      stop();
    }
    return false;
  }
  void restart() {
    stop();
    const std::string binary = find_redis_server();
    auto [pid, out] = spawn({binary, "--port", std::to_string(port_), "--bind", "127.0.0.1",
                             "--save", "", "--appendonly", "no", "--dir", dir_.string(),
                             "--logfile", (dir_ / "redis.log").string()});
    ::close(out);
    pid_ = pid;
    wait_until_ready();
  }
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGCONT);
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  void pause() { ::kill(pid_, SIGSTOP); }
  void resume() { ::kill(pid_, SIGCONT); }

  int port() const { return port_; }
  std::string url(const std::string& settings = {}) const {
    return "redis://127.0.0.1:" + std::to_string(port_) + (settings.empty() ? "" : "?" + settings);
  }

  // A direct connection for the test to read and write raw entries.
  redisContext* connect() const {
    timeval tv{1, 0};
    return redisConnectWithTimeout("127.0.0.1", port_, tv);
  }

 private:
  // Polls with PING, up to 250 times 20 ms apart.
  bool wait_until_ready() const {
    for (int i = 0; i < 250; ++i) {
      if (redisContext* c = connect()) {
        const bool up = c->err == 0 && [&] {
          auto* reply = static_cast<redisReply*>(redisCommand(c, "PING"));
          const bool pong = reply && reply->type == REDIS_REPLY_STATUS;
          if (reply) freeReplyObject(reply);
          return pong;
        }();
        redisFree(c);
        if (up) return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  std::filesystem::path dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace augur::cache::test
