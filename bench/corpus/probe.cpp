#include "bench/corpus/probe.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "bench/corpus/native.h"
#include "jit/cpu/compile.h"

namespace augur::bench::corpus {

std::optional<double> probe(double seconds, const std::function<void()>& body) {
  int fds[2];
  if (pipe(fds) != 0) return std::nullopt;
  std::fflush(nullptr);  // the child must not write the parent's buffered output again
  const pid_t child = fork();
  if (child < 0) {
    close(fds[0]);
    close(fds[1]);
    return std::nullopt;
  }
  if (child == 0) {
    close(fds[0]);
    const cpu::CompileOnThisThread in_place;
    const double start = cpu_seconds();
    try {
      body();
    } catch (...) {
      _exit(2);
    }
    const double took = cpu_seconds() - start;
    const bool written = write(fds[1], &took, sizeof took) == static_cast<ssize_t>(sizeof took);
    _exit(written ? 0 : 3);
  }
  close(fds[1]);
  pollfd ready{fds[0], POLLIN, 0};
  const int polled = poll(&ready, 1, static_cast<int>(seconds * 1000));
  double took = 0;
  const bool answered =
      polled > 0 && read(fds[0], &took, sizeof took) == static_cast<ssize_t>(sizeof took);
  close(fds[0]);
  if (!answered) kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  if (!answered || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return took;
}

}  // namespace augur::bench::corpus
