#include "gpu/fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "jit/error.h"

#if defined(__SANITIZE_ADDRESS__)
#define AUGUR_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AUGUR_FIBER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define AUGUR_FIBER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define AUGUR_FIBER_TSAN 1
#endif
#endif

#if AUGUR_FIBER_ASAN
#include <sanitizer/common_interface_defs.h>
#endif
#if AUGUR_FIBER_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace augur::gpu {

namespace {

thread_local Fiber* t_running = nullptr;

std::size_t page_size() {
  return static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

Fiber::Fiber(std::size_t stack_bytes) {
  const std::size_t page = page_size();
  stack_bytes_ = (stack_bytes + page - 1) / page * page;
  mapping_bytes_ = stack_bytes_ + page;
  // Untouched stack pages cost no memory (MAP_NORESERVE); the lowest page
  // stays inaccessible.
  mapping_ = mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapping_ == MAP_FAILED) {
    mapping_ = nullptr;
    throw jit::error("cannot map a " + std::to_string(mapping_bytes_) +
                     "-byte stack for a CPU-fallback GPU thread");
  }
  mprotect(mapping_, page, PROT_NONE);
  stack_ = static_cast<char*>(mapping_) + page;
#if AUGUR_FIBER_TSAN
  tsan_fiber_ = __tsan_create_fiber(0);
#endif
}

Fiber::~Fiber() {
#if AUGUR_FIBER_TSAN
  __tsan_destroy_fiber(tsan_fiber_);
#endif
  if (mapping_) munmap(mapping_, mapping_bytes_);
}

void Fiber::reset(void (*body)(void*), void* arg) {
#if AUGUR_FIBER_TSAN
  // The trampoline never returns, so TSan's shadow stack of this fiber keeps
  // its frame; a fresh TSan fiber per body keeps it from growing.
  __tsan_destroy_fiber(tsan_fiber_);
  tsan_fiber_ = __tsan_create_fiber(0);
#endif
  body_ = body;
  arg_ = arg;
  finished_ = false;
  getcontext(&context_);
  context_.uc_stack.ss_sp = stack_;
  context_.uc_stack.ss_size = stack_bytes_;
  context_.uc_link = nullptr;  // the body never returns through the context: see trampoline
  const auto self = reinterpret_cast<std::uintptr_t>(this);
  makecontext(&context_, reinterpret_cast<void (*)()>(&Fiber::trampoline), 2,
              static_cast<unsigned>(self >> 32), static_cast<unsigned>(self & 0xffffffffu));
}

bool Fiber::resume() {
  if (finished_) return true;
  Fiber* const outer = t_running;
  t_running = this;
#if AUGUR_FIBER_ASAN
  __sanitizer_start_switch_fiber(&caller_fake_stack_, stack_, stack_bytes_);
#endif
#if AUGUR_FIBER_TSAN
  tsan_caller_ = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(tsan_fiber_, 0);
#endif
  swapcontext(&caller_, &context_);
#if AUGUR_FIBER_ASAN
  __sanitizer_finish_switch_fiber(caller_fake_stack_, nullptr, nullptr);
#endif
  t_running = outer;
  return finished_;
}

void Fiber::yield() {
  Fiber* const self = t_running;
  if (!self) throw jit::error("Fiber::yield outside a fiber");
  self->switch_out(false);
#if AUGUR_FIBER_TSAN
  // Here, not in switch_out: TSan's switch must come right before the real
  // one, with no instrumented return between them (that return would pop a
  // frame off the caller's shadow stack).
  __tsan_switch_to_fiber(self->tsan_caller_, 0);
#endif
  swapcontext(&self->context_, &self->caller_);
  self->switched_in();
}

void Fiber::switch_out(bool finishing) {
#if AUGUR_FIBER_ASAN
  // A finishing fiber's fake stack goes away with it (null save slot).
  __sanitizer_start_switch_fiber(finishing ? nullptr : &fake_stack_, caller_stack_,
                                 caller_stack_bytes_);
#else
  (void)finishing;
#endif
}

void Fiber::switched_in() {
#if AUGUR_FIBER_ASAN
  __sanitizer_finish_switch_fiber(fake_stack_, &caller_stack_, &caller_stack_bytes_);
#endif
}

void Fiber::trampoline(unsigned high, unsigned low) {
  auto* self = reinterpret_cast<Fiber*>(std::uintptr_t{high} << 32 | low);
  self->fake_stack_ = nullptr;
  self->switched_in();
  self->body_(self->arg_);
  self->finished_ = true;
  self->switch_out(true);
#if AUGUR_FIBER_TSAN
  __tsan_switch_to_fiber(self->tsan_caller_, 0);  // right before the switch, as in yield()
#endif
  // Never resumed after this: reset() makes a fresh context.
  swapcontext(&self->context_, &self->caller_);
}

}  // namespace augur::gpu
