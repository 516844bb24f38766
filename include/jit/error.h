// Errors raised by Augur. Every failure a user can cause (a malformed program,
// a staging misuse, a compiler or driver failure) is reported as a jit::error
// naming what went wrong and where; the process keeps running.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace jit {

// Where an error happened. Fields that do not apply stay empty or zero.
struct location {
  std::string file;      // source or cache file, when one is involved
  int line = 0;          // 1-based; 0 when unknown
  int column = 0;        // 1-based; 0 when unknown
  std::string function;  // IR function or staged generator name
  std::string path;      // statement path inside the function, e.g. "body[2].then[0]"

  static location in_function(std::string function, std::string path = {}) {
    location l;
    l.function = std::move(function);
    l.path = std::move(path);
    return l;
  }
  static location in_text(std::string file, int line, int column) {
    location l;
    l.file = std::move(file);
    l.line = line;
    l.column = column;
    return l;
  }

  // "file:line:column: function 'f' at body[2]" with the parts that are set.
  std::string str() const;
};

class error : public std::runtime_error {
 public:
  explicit error(std::string message, location where = {});
  // The message without the location prefix.
  const std::string& message() const noexcept { return message_; }
  const location& where() const noexcept { return where_; }

 private:
  std::string message_;
  location where_;
};

// IR text that does not parse: `where` has the line and column.
class parse_error : public error {
 public:
  using error::error;
};

// An IR program the verifier rejects: `where` has the function and statement path.
class verify_error : public error {
 public:
  using error::error;
};

// A trap while interpreting IR: division by zero, an out-of-bounds access in
// bounds-checked mode, a divergent barrier.
class trap_error : public error {
 public:
  using error::error;
};

// Misuse of the staging API, or a first stage that is not deterministic.
class staging_error : public error {
 public:
  using error::error;
};

// A prophecy that keeps changing past the run bound; the message names it.
class prophecy_error : public staging_error {
 public:
  using staging_error::staging_error;
};

// A compiler (LLVM, NVRTC) failure; the message carries its log.
class compile_error : public error {
 public:
  using error::error;
};

// A GPU driver failure, or no usable GPU.
class gpu_error : public error {
 public:
  using error::error;
};

}  // namespace jit
