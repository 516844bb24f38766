// The specialization cache behind jit::compile: statistics, capacity, clear.
// docs/compile.md describes its behaviour.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace jit {

// Process-wide counters since the start (clear_cache() does not reset them).
struct cache_statistics {
  std::uint64_t requests = 0;  // jit::compile calls that reached the cache
  std::uint64_t hits = 0;      // served by a version compiled before
  std::uint64_t misses = 0;    // found none ready: compiled it, or waited for another thread
  std::uint64_t compiles = 0;  // runs of the pipeline (staging to machine code)
  std::uint64_t failures = 0;  // runs that threw; their error reached every waiter
  // Runs whose program equalled one already compiled (same IR text, target
  // and options): that version was shared, no machine code was generated.
  std::uint64_t programs_shared = 0;
  // Compiled programs recorded now for that sharing: the live versions and,
  // until a periodic sweep, dead ones (never twice the live ones plus 64).
  std::size_t programs = 0;
  std::uint64_t evictions = 0;               // entries dropped to respect the capacity
  std::size_t entries = 0;                   // entries held now
  std::chrono::nanoseconds compile_time{0};  // all pipeline runs, staging included
  // The PEG optimizer (O2 and above): functions it optimized, functions it
  // kept as extracted (a budget or a shape it does not handle), and its time
  // (included in compile_time). Of those optimized, `functions_unchanged`
  // are code without loops in which saturation found nothing cheaper: left
  // as written, branches and all.
  std::uint64_t functions_optimized = 0;
  std::uint64_t functions_kept = 0;
  std::uint64_t functions_unchanged = 0;
  // A function above its size limit (500 IR nodes) is optimized region by
  // region (docs/peg.md): the regions optimized (of them, unchanged as above)
  // and kept. Such a function counts as optimized above when one of its
  // regions is.
  std::uint64_t regions_optimized = 0;
  std::uint64_t regions_unchanged = 0;
  std::uint64_t regions_kept = 0;
  std::chrono::nanoseconds optimize_time{0};
  // The disk cache (docs/compile.md, "Disk cache"), for compiles that named
  // one: objects loaded instead of compiled, lookups that found none, entries
  // rejected (corrupt, truncated, foreign, untrusted, not a regular file, or
  // failing to load: each reported, compiled again and replaced), entries
  // written, writes that failed, and compiles that ran without the cache
  // because its directory was refused (reported once per directory).
  std::uint64_t disk_hits = 0;
  std::uint64_t disk_misses = 0;
  std::uint64_t disk_rejected = 0;
  std::uint64_t disk_writes = 0;
  std::uint64_t disk_write_failures = 0;
  std::uint64_t disk_refused = 0;
  // The remote cache (docs/compile.md, "Remote cache"), for compiles that
  // named one: entries loaded instead of compiled (no optimizer, no LLVM),
  // lookups that found none, entries written, entries refused (unsigned,
  // wrongly signed, truncated, another key's, too large, or failing to load:
  // each reported and compiled again), commands that failed (connect or
  // command timeout, a broken connection, an error reply), commands not sent
  // because the circuit breaker was open, lookups that waited for another
  // process compiling the same key and waits that ended without its entry,
  // compiles that named a remote level that is off (no or a refused key
  // file, a bad URL: reported once), and the time spent in the remote level,
  // waits included.
  std::uint64_t remote_hits = 0;
  std::uint64_t remote_misses = 0;
  std::uint64_t remote_writes = 0;
  std::uint64_t remote_rejected = 0;
  std::uint64_t remote_errors = 0;
  std::uint64_t remote_skipped = 0;
  std::uint64_t remote_waits = 0;
  std::uint64_t remote_wait_timeouts = 0;
  std::uint64_t remote_off = 0;
  std::chrono::nanoseconds remote_time{0};
};

cache_statistics cache_stats();

// The most entries the cache holds (default 4096). Past it, the least recently
// used ones are dropped; their code stays loaded while jit::function copies
// of it live.
void set_cache_capacity(std::size_t entries);
std::size_t cache_capacity();

// Drops every entry (compilations in flight finish and are dropped too).
void clear_cache();

}  // namespace jit
