// ThreadSanitizer suppressions for programs that use the CPU backend.
//
// libLLVM and libtbb are not instrumented: ORC hands modules, symbols and
// JITDylib references between threads, and TBB hands tasks to its workers,
// through synchronization that ThreadSanitizer cannot see, so it reports
// those handoffs as races. The suppressions cover stacks that run through
// those libraries, TBB's inlined internals, and the bodies of run_kernel's
// parallel loop (which read launch data TBB handed over, then run generated
// code that is not instrumented either).
#if defined(__SANITIZE_THREAD__)
extern "C" const char* __tsan_default_suppressions() {
  return "race:libLLVM.so\n"
         "race:libtbb.so\n"
         "race_top:tbb::detail\n"
         "race:augur::cpu::run_kernel\n";
}
#endif
