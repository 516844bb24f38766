// The disk cache across processes, at the CPU backend's level: this process
// compiles an object and stores it; a fresh process (this binary re-run on one
// disabled test) loads it back with cpu::load_object, checks the function
// against the interpreter, and proves through the backend's statistics that it
// ran no LLVM code generation or optimization. Damaged files are rejected and
// rebuilt in the child the same way.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <array>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>

#include "jit/cpu/compile.h"
#include "jit/cpu/statistics.h"
#include "runtime/cache/disk_cache.h"
#include "runtime/ir/builder.h"
#include "runtime/ir/hash.h"
#include "runtime/ir/interp.h"
#include "runtime/ir/printer.h"
#include "tests/cache/disk_test_util.h"

namespace augur::cache::test {
namespace {

using namespace ir;

// fn collatz(n: u64) -> i32: the number of steps from n down to 1.
Module collatz() {
  FunctionBuilder b("collatz", Type::i32());
  VarId n = b.param("n", Type::u64());
  VarId steps = b.declare("steps", Type::i32());
  b.while_(binary(BinaryOp::Ne, b.read(n), constant<std::uint64_t>(1)), [&] {
    b.if_(
        binary(BinaryOp::Eq, binary(BinaryOp::BitAnd, b.read(n), constant<std::uint64_t>(1)),
               constant<std::uint64_t>(0)),
        [&] { b.assign(n, binary(BinaryOp::Shr, b.read(n), constant<std::uint64_t>(1))); },
        [&] {
          b.assign(
              n, binary(BinaryOp::Add, binary(BinaryOp::Mul, b.read(n), constant<std::uint64_t>(3)),
                        constant<std::uint64_t>(1)));
        });
    b.assign(steps, binary(BinaryOp::Add, b.read(steps), constant<std::int32_t>(1)));
  });
  b.return_(b.read(steps));
  Module module;
  module.functions.push_back(std::move(b).finish());
  return module;
}

// The object's full key: the backend's object_key for the default
// options that compile_object() below runs with.
DiskKey key_of(const Module& module) {
  return DiskKey{cpu::object_key(cpu::Options{}), print(module)};
}

// Checks every input against the interpreter; the number of mismatches.
int mismatches(const cpu::CompiledCode& code, const Module& module) {
  const Interpreter oracle(module, "collatz");
  auto native = reinterpret_cast<std::int32_t (*)(std::uint64_t)>(code.address("collatz"));
  int wrong = 0;
  for (std::uint64_t n = 1; n < 2000; n += 7) {
    if (native(n) != oracle.call<std::int32_t>(n)) ++wrong;
  }
  return wrong;
}

// The child: AUGUR_TEST_EXPECT says whether the file must load ("hit") or be
// rejected and rebuilt ("rebuild").
TEST(DiskChild, DISABLED_LoadsFromTheCache) {
  const char* expect = std::getenv("AUGUR_TEST_EXPECT");
  ASSERT_NE(expect, nullptr);
  std::optional<DiskCache> disk = DiskCache::from_environment();
  ASSERT_TRUE(disk.has_value());
  const Module module = collatz();
  const DiskKey key = key_of(module);
  std::optional<std::vector<char>> object = disk->load(key);
  if (std::string(expect) == "rebuild") {
    ASSERT_FALSE(object.has_value());
    EXPECT_EQ(disk->stats().rejected, 1u);
    object = cpu::compile_object(module);
    disk->store(key, *object);
  }
  ASSERT_TRUE(object.has_value());
  const auto code = cpu::load_object(*object, module, {});
  EXPECT_EQ(mismatches(*code, module), 0);
  const cpu::Statistics stats = cpu::statistics();
  std::printf(
      "child: objects_loaded=%llu objects_compiled=%llu modules_compiled=%llu "
      "ir_to_llvm_ns=%lld optimization_ns=%lld machine_code_ns=%lld\n",
      static_cast<unsigned long long>(stats.objects_loaded),
      static_cast<unsigned long long>(stats.objects_compiled),
      static_cast<unsigned long long>(stats.modules_compiled),
      static_cast<long long>(stats.ir_to_llvm.count()),
      static_cast<long long>(stats.optimization.count()),
      static_cast<long long>(stats.machine_code.count()));
}

class DiskAcrossProcesses : public DiskCacheTest {
 protected:
  // Runs the child on dir(); its exit status and output.
  std::pair<int, std::string> run_child(const std::string& expect) {
    return run_this_binary("DiskChild.DISABLED_LoadsFromTheCache",
                           "AUGUR_CACHE_DIR='" + dir().string() + "' AUGUR_TEST_EXPECT=" + expect);
  }
};

constexpr const char* kNoLlvmWork =
    "child: objects_loaded=1 objects_compiled=0 modules_compiled=0 ir_to_llvm_ns=0 "
    "optimization_ns=0 machine_code_ns=0\n";

TEST_F(DiskAcrossProcesses, SecondProcessLoadsWithoutLlvmCodegen) {
  const Module module = collatz();
  {
    DiskCache disk(dir());
    disk.store(key_of(module), cpu::compile_object(module));
    ASSERT_EQ(disk.stats().stores, 1u);
  }
  const auto [status, output] = run_child("hit");
  ASSERT_EQ(status, 0) << output;
  EXPECT_THAT(output, ::testing::HasSubstr(kNoLlvmWork));
}

TEST_F(DiskAcrossProcesses, DamagedFilesAreRebuiltByTheNextProcess) {
  const Module module = collatz();
  DiskCache disk(dir());
  const std::filesystem::path path = disk.path_of(key_of(module));
  const std::vector<char> object = cpu::compile_object(module);
  const std::array<std::function<void(std::vector<char>&)>, 2> damages = {
      [](std::vector<char>& file) { file[file.size() / 2] ^= 1; },
      [](std::vector<char>& file) { file.erase(file.end() - 64, file.end()); }};
  for (const auto& damage : damages) {
    disk.store(key_of(module), object);
    std::vector<char> file = read_file(path);
    damage(file);
    write_file(path, file);
    const auto [rebuilt_status, rebuilt] = run_child("rebuild");
    ASSERT_EQ(rebuilt_status, 0) << rebuilt;
    EXPECT_THAT(rebuilt, ::testing::HasSubstr("rejected " + path.string()));
    EXPECT_THAT(rebuilt, ::testing::HasSubstr("child: objects_loaded=1 objects_compiled=1"));
    // The rebuilt file serves the next process.
    const auto [status, output] = run_child("hit");
    ASSERT_EQ(status, 0) << output;
    EXPECT_THAT(output, ::testing::HasSubstr(kNoLlvmWork));
  }
}

}  // namespace
}  // namespace augur::cache::test
