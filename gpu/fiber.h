// A minimal fiber: a function running on its own stack that can yield back
// to whoever resumed it (ucontext). Switches are annotated for AddressSanitizer
// and ThreadSanitizer, so sanitized builds understand the stack changes.
// A fiber stays on the OS thread that resumes it; it is not thread-safe.
#pragma once

#include <ucontext.h>

#include <cstddef>

namespace augur::gpu {

class Fiber {
 public:
  // A stack of `stack_bytes` (plus a guard page below it, so an overflow
  // faults instead of corrupting memory).
  explicit Fiber(std::size_t stack_bytes);
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // Makes the next resume() start `body(arg)` from the beginning. Whatever
  // the fiber was doing is abandoned (its stack must hold nothing that needs
  // destroying: true of compiled kernels).
  void reset(void (*body)(void*), void* arg);
  // Runs the fiber until it yields or its body returns; true if it returned.
  bool resume();
  // From inside a running fiber: switches back to the resume() that ran it.
  static void yield();

 private:
  static void trampoline(unsigned high, unsigned low);
  void switch_out(bool finishing);
  void switched_in();

  void* mapping_ = nullptr;  // guard page + stack
  std::size_t mapping_bytes_ = 0;
  void* stack_ = nullptr;
  std::size_t stack_bytes_ = 0;
  ucontext_t context_{};
  ucontext_t caller_{};
  void (*body_)(void*) = nullptr;
  void* arg_ = nullptr;
  bool finished_ = true;
  // Sanitizer state: the resumer's stack and fake stack (ASan), the fibers (TSan).
  const void* caller_stack_ = nullptr;
  std::size_t caller_stack_bytes_ = 0;
  void* caller_fake_stack_ = nullptr;
  void* fake_stack_ = nullptr;
  void* tsan_fiber_ = nullptr;
  void* tsan_caller_ = nullptr;
};

}  // namespace augur::gpu
