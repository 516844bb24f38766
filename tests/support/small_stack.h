// Running a test's work on a thread with a small stack, as background
// threads have: a pass that recurses on the program's shape overflows there
// long before it would on the main thread's 8 MiB.
#pragma once

#include <pthread.h>

#include <cstddef>

#include <gtest/gtest.h>

namespace augur::testing {

// 1 MiB, or under AddressSanitizer or ThreadSanitizer (whose frames are
// several times larger) 4 MiB, a TBB worker's default.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr std::size_t kSmallStack = std::size_t{4} << 20;
#else
inline constexpr std::size_t kSmallStack = std::size_t{1} << 20;
#endif

// Runs `job` on a thread with a kSmallStack stack and waits for it.
template <class F>
void on_small_stack(F job) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, kSmallStack), 0);
  pthread_t thread;
  ASSERT_EQ(pthread_create(
                &thread, &attr,
                [](void* p) -> void* {
                  (*static_cast<F*>(p))();
                  return nullptr;
                },
                &job),
            0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

}  // namespace augur::testing
