// The engine around the code: concurrent compilation, unloading, versions
// side by side, object files, dumps, options and statistics.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <tbb/parallel_for.h>

#include "jit/cpu/statistics.h"
#include "jit/error.h"
#include "tests/jit/jit_test_util.h"

namespace augur::cpu::test {
namespace {

using namespace ir;

// fn <name>(x: i64) -> i64 { return x * k + 1; }
Module affine(const std::string& name, std::int64_t k) {
  FunctionBuilder b(name, Type::i64());
  VarId x = b.param("x", Type::i64());
  b.return_(binary(BinaryOp::Add, binary(BinaryOp::Mul, b.read(x), constant(k)),
                   constant<std::int64_t>(1)));
  return module_of({std::move(b).finish()});
}

// fn collatz(n: u64) -> i32: the number of Collatz steps from n to 1.
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
  return module_of({std::move(b).finish()});
}

std::int64_t call_affine(const CompiledCode& code, const std::string& name, std::int64_t x) {
  return call_native<std::int64_t>(code, name, x);
}

TEST(Engine, CompilesFromManyThreadsAtOnce) {
  const Statistics before = statistics();
  std::atomic<int> failures{0};
  auto work = [&](int thread) {
    for (int i = 0; i < 12; ++i) {
      const std::int64_t k = thread * 100 + i;
      Options options;
      options.opt_level = i % 4;
      auto code = compile(affine("f", k), {}, options);
      if (call_affine(*code, "f", 3) != 3 * k + 1) ++failures;
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back(work, t);
  for (std::thread& t : threads) t.join();
  // From TBB's own workers too, which compile in place rather than wait on the pool.
  tbb::parallel_for(0, 8, [&](int t) { work(10 + t); });
  EXPECT_EQ(failures.load(), 0);
  const Statistics after = statistics();
  EXPECT_EQ(after.modules_compiled - before.modules_compiled, 12u * 12u);
  EXPECT_GT(after.tasks_on_pool, before.tasks_on_pool);
  EXPECT_GT(after.tasks_inline, before.tasks_inline);
}

TEST(Engine, DestroyingCompiledCodeUnloadsIt) {
  std::string label;
  {
    auto code = compile(affine("f", 2), {});
    label = code->label();
    EXPECT_TRUE(is_loaded(label));
    EXPECT_EQ(call_affine(*code, "f", 5), 11);
  }
  EXPECT_FALSE(is_loaded(label));
}

TEST(Engine, TwoVersionsOfOneFunctionLiveSideBySide) {
  auto first = compile(affine("f", 2), {});
  auto second = compile(affine("f", 3), {});
  EXPECT_NE(first->label(), second->label());
  EXPECT_NE(first->address("f"), second->address("f"));
  EXPECT_EQ(call_affine(*first, "f", 10), 21);
  EXPECT_EQ(call_affine(*second, "f", 10), 31);
  first.reset();
  EXPECT_EQ(call_affine(*second, "f", 10), 31);
}

std::size_t resident_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoul(line.substr(6));
  }
  return 0;
}

TEST(Engine, MemoryDoesNotGrowOverCompileUnloadCycles) {
#ifdef __SANITIZE_ADDRESS__
  GTEST_SKIP() << "ASan's quarantine keeps freed memory resident";
#endif
#ifdef __SANITIZE_THREAD__
  GTEST_SKIP() << "TSan's shadow memory and access history grow with the work done";
#endif
  if (resident_kib() == 0) GTEST_SKIP() << "no /proc/self/status";
  Options options;
  options.opt_level = 0;
  auto cycle = [&](int i) {
    auto code = compile(affine("f", i), {}, options);
    ASSERT_EQ(call_affine(*code, "f", 1), i + 1);
  };
  for (int i = 0; i < 100; ++i) cycle(i);  // warm up allocators and LLVM's caches
  const std::size_t warm = resident_kib();
  for (int i = 0; i < 1000; ++i) cycle(i);
  const std::size_t after = resident_kib();
  // Leaking each version's code and data (two pages at least) would add 8 MiB.
  EXPECT_LT(after, warm + 4096) << "RSS " << warm << " KiB -> " << after << " KiB";
}

TEST(Engine, ObjectFilesRoundTrip) {
  const Module module = collatz();
  const Statistics before = statistics();
  auto direct = compile(module, {});
  const std::vector<char> object = compile_object(module);
  ASSERT_GT(object.size(), 4u);
  EXPECT_EQ(std::string(object.data() + 1, 3), "ELF");
  auto loaded = load_object(object, module, {});
  auto again = load_object(object, module, {});  // one object, loaded twice
  for (std::uint64_t v : {1ull, 6ull, 27ull, 97ull, 871ull}) {
    const std::int32_t expected = call_native<std::int32_t>(*direct, "collatz", v);
    EXPECT_EQ(call_native<std::int32_t>(*loaded, "collatz", v), expected);
    EXPECT_EQ(invoke_as<std::int32_t>(*again, "collatz", v), expected);
  }
  const Statistics after = statistics();
  EXPECT_EQ(after.objects_compiled - before.objects_compiled, 1u);
  EXPECT_EQ(after.objects_loaded - before.objects_loaded, 2u);
}

TEST(Engine, InvokersAreOptional) {
  Options options;
  options.invokers = false;
  const Module module = affine("f", 3);
  auto code = compile(module, {}, options);
  EXPECT_EQ(code->entry("f").invoker, nullptr);
  EXPECT_EQ(call_affine(*code, "f", 2), 7);
  const Value two = Value::of(std::int64_t{2});
  EXPECT_THROW(invoke(*code, "f", {&two, 1}), jit::error);
  // An object without invokers loads, and lacks them too.
  auto loaded = load_object(compile_object(module, options), module, {});
  EXPECT_EQ(loaded->entry("f").invoker, nullptr);
  EXPECT_EQ(call_affine(*loaded, "f", 2), 7);
}

TEST(Engine, CorruptObjectsAreRejected) {
  const Module module = affine("f", 2);
  std::vector<char> object = compile_object(module);
  std::vector<char> garbage(200, 'x');
  EXPECT_THROW(load_object(garbage, module, {}), jit::compile_error);
  std::vector<char> truncated(object.begin(), object.begin() + object.size() / 3);
  EXPECT_THROW(load_object(truncated, module, {}), jit::compile_error);
  // The same object, claiming to be for AArch64 (ELF e_machine 183).
  std::vector<char> foreign = object;
  foreign[18] = static_cast<char>(183);
  foreign[19] = 0;
  try {
    load_object(foreign, module, {});
    FAIL() << "expected a compile_error";
  } catch (const jit::compile_error& e) {
    EXPECT_NE(std::string(e.what()).find("aarch64"), std::string::npos) << e.what();
  }
  // An object of another module lacks the functions asked for.
  EXPECT_THROW(load_object(object, affine("g", 2), {}), jit::compile_error);
}

TEST(Engine, DumpsLlvmIrAndAssembly) {
  std::vector<std::pair<DumpKind, std::string>> dumps;
  Options options;
  options.dump_llvm = true;
  options.dump_asm = true;
  options.dump_sink = [&](DumpKind kind, std::string_view module, std::string_view text) {
    dumps.emplace_back(kind, std::string(module) + "\n" + std::string(text));
  };
  auto code = compile(affine("dumped", 7), {}, options);
  ASSERT_EQ(dumps.size(), 3u);
  EXPECT_EQ(dumps[0].first, DumpKind::LlvmIr);
  EXPECT_EQ(dumps[1].first, DumpKind::OptimizedLlvmIr);
  EXPECT_EQ(dumps[2].first, DumpKind::Assembly);
  for (const auto& [kind, text] : dumps) EXPECT_NE(text.find(code->label()), std::string::npos);
  EXPECT_NE(dumps[0].second.find("define i64 @augur.fn.dumped(i64"), std::string::npos);
  EXPECT_NE(dumps[0].second.find("alloca"), std::string::npos);  // as generated
  EXPECT_EQ(dumps[1].second.find("alloca"), std::string::npos);  // promoted at O2
  EXPECT_NE(dumps[2].second.find("augur.fn.dumped:"), std::string::npos);
  EXPECT_EQ(call_affine(*code, "dumped", 2), 15);

  // A failing sink fails the compilation, not the process.
  options.dump_sink = [](DumpKind, std::string_view, std::string_view) {
    throw std::runtime_error("disk full");
  };
  try {
    compile(affine("f", 1), {}, options);
    FAIL() << "expected a compile_error";
  } catch (const jit::compile_error& e) {
    EXPECT_NE(std::string(e.what()).find("disk full"), std::string::npos) << e.what();
  }
}

// AUGUR_DUMP is read once per process, so the check runs in a fresh one.
TEST(EngineDeathTest, AugurDumpAsksForDumpsOnStderr) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  ASSERT_EQ(setenv("AUGUR_DUMP", "ir,asm", 1), 0);
  EXPECT_EXIT(
      {
        compile(affine("dumped_by_environment", 2), {});
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), ";; augur asm of augur\\.v[0-9]+");
  unsetenv("AUGUR_DUMP");
}

TEST(Engine, TargetOptions) {
  Options options;
  options.cpu = "x86-64";
  options.features = "+sse4.2,-avx";
  auto code = compile(affine("f", 4), {}, options);
  EXPECT_EQ(call_affine(*code, "f", 4), 17);

  Options bad_level;
  bad_level.opt_level = 4;
  EXPECT_THROW(compile(affine("f", 1), {}, bad_level), jit::compile_error);
  Options bad_cpu;
  bad_cpu.cpu = "pentium-9000";
  EXPECT_THROW(compile(affine("f", 1), {}, bad_cpu), jit::compile_error);
  Options bad_feature;
  bad_feature.features = "+warp-drive";
  EXPECT_THROW(compile(affine("f", 1), {}, bad_feature), jit::compile_error);
  EXPECT_THROW(compile_object(affine("f", 1), bad_feature), jit::compile_error);
}

// Each (CPU, features, opt level) keeps its TargetMachine and pass pipelines
// across compilations (jit/toolchain.h): what one module leaves behind must
// not change the next one's code.
TEST(Engine, ReusedPipelinesEmitTheSameObjects) {
  for (int level = 0; level <= 3; ++level) {
    Options options;
    options.opt_level = level;
    const Module module = affine("f", 7);
    const std::vector<char> first = compile_object(module, options);
    compile_object(collatz(), options);
    EXPECT_EQ(compile_object(module, options), first) << "O" << level;
  }
}

TEST(Engine, CompileOnThisThreadRunsNoTaskOnThePool) {
  const Statistics before = statistics();
  {
    const CompileOnThisThread here;
    EXPECT_EQ(call_affine(*compile(affine("f", 5), {}), "f", 2), 11);
    EXPECT_EQ(call_affine(*load_object(compile_object(affine("f", 6)), affine("f", 6), {}), "f", 2),
              13);
  }
  const Statistics after = statistics();
  EXPECT_EQ(after.tasks_on_pool, before.tasks_on_pool);
  EXPECT_GT(after.tasks_inline, before.tasks_inline);
}

TEST(Engine, ObjectKeysNameToolchainTargetAndOptions) {
  Options o2;
  const std::string host = object_key(o2);
  EXPECT_NE(host.find("LLVM 19."), std::string::npos) << host;
  EXPECT_NE(host.find("x86_64"), std::string::npos) << host;
  EXPECT_NE(host.find("+sse2"), std::string::npos) << host;  // the host's features, resolved
  Options o0;
  o0.opt_level = 0;
  Options generic;
  generic.cpu = "x86-64";
  Options extra;
  extra.features = "-avx";
  Options no_invokers;
  no_invokers.invokers = false;
  Options unsplit;
  unsplit.split_nodes = 0;
  for (const Options* other : {&o0, &generic, &extra, &no_invokers, &unsplit}) {
    EXPECT_NE(object_key(*other), host);
  }
  EXPECT_EQ(object_key(Options{}), host);
}

TEST(Engine, InvalidIrIsRejectedByTheVerifier) {
  FunctionBuilder b("no_return", Type::i32());
  b.param("x", Type::i32());
  Options options;
  options.verify = true;
  try {
    compile(module_of({std::move(b).finish()}), {}, options);
    FAIL() << "expected a verify_error";
  } catch (const jit::verify_error& e) {
    EXPECT_EQ(e.where().function, "no_return");
  }
}

TEST(Engine, StatisticsCountTimeAndUnloads) {
  const Statistics before = statistics();
  Options options;
  options.verify = true;
  compile(affine("f", 1), {}, options);
  const Statistics after = statistics();
  EXPECT_EQ(after.modules_verified, before.modules_verified + 2);
  EXPECT_EQ(after.modules_compiled, before.modules_compiled + 1);
  EXPECT_EQ(after.versions_unloaded, before.versions_unloaded + 1);
  EXPECT_GT(after.ir_to_llvm, before.ir_to_llvm);
  EXPECT_GT(after.optimization, before.optimization);
  EXPECT_GT(after.machine_code, before.machine_code);
  EXPECT_GT(after.total, before.total);
}

TEST(Engine, EntriesDescribeTheModule) {
  Module module = affine("f", 1);
  FunctionBuilder k("k", Type::void_(), true);
  k.param("out", Type::pointer_to(Scalar::F32));
  k.shared_array("tile", Scalar::F64, 3);
  module.functions.push_back(std::move(k).finish());
  auto code = compile(module, {});
  const std::span<const EntryPoint> entries = code->entries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].name, "f");
  EXPECT_FALSE(entries[0].kernel);
  EXPECT_EQ(entries[0].ret, Type::i64());
  EXPECT_EQ(entries[0].params, std::vector<Type>{Type::i64()});
  EXPECT_NE(entries[0].address, nullptr);
  EXPECT_NE(entries[0].invoker, nullptr);
  EXPECT_EQ(entries[1].name, "k");
  EXPECT_TRUE(entries[1].kernel);
  EXPECT_EQ(entries[1].shared_bytes, 32u);  // 24 bytes, rounded up to the alignment
  EXPECT_NE(entries[1].address, nullptr);
  EXPECT_EQ(entries[1].invoker, nullptr);
}

TEST(Engine, MissingFunctionsAreNamed) {
  auto code = compile(affine("f", 1), {});
  EXPECT_EQ(code->find("g"), nullptr);
  try {
    code->address("g");
    FAIL() << "expected an error";
  } catch (const jit::error& e) {
    EXPECT_NE(std::string(e.what()).find("'g'"), std::string::npos);
  }
  const Value one = Value::of(std::int64_t{1});
  EXPECT_THROW(invoke(*code, "f", {}), jit::error);
  EXPECT_EQ(invoke(*code, "f", {&one, 1}).as<std::int64_t>(), 2);
}

}  // namespace
}  // namespace augur::cpu::test
