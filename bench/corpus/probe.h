// A trial run in a child process with a time limit, for benchmarks whose
// phases may take far longer than anyone will wait (today's optimizer and
// LLVM on some 10k-statement programs): a phase is measured in the process
// only after a probe finished it in time. The child compiles on its own
// thread (cpu::CompileOnThisThread): the parent's TBB workers do not exist
// in it.
#pragma once

#include <functional>
#include <optional>

namespace augur::bench::corpus {

// Runs `body` once in a forked child, killed after `seconds` of wall time.
// The CPU seconds it took (its own children included), or nullopt if it ran
// past the limit, threw or died.
std::optional<double> probe(double seconds, const std::function<void()>& body);

}  // namespace augur::bench::corpus
