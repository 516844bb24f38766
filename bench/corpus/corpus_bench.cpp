// The corpus (bench/corpus/corpus.h) through every stage of Augur, beside a C
// compiler on the same programs, in one run:
//
//   stage/P      the first stage (jit::extract)
//   peg/P        the PEG optimizer (default PegOptions, as O2 uses it); its
//                counters give e-nodes, iterations, optimized (1) or kept (0)
//                and the time of each phase; the summary says why it kept one
//   llvm_O1/P    augur::cpu::compile of the staged IR at O1 and O2, no PEG
//   llvm_O2/P    (opt_ms, codegen_ms: the backend's pass pipeline and
//                machine code, CPU summed over its threads)
//   compile/P    a cold compile at O2: staging, the PEG optimizer and the CPU
//                backend on its result; wall time, and all threads' CPU time
//                in its cpu_ms counter
//   gcc_O2/P     the IR printed as C (bench/compile/ir_to_c.h), gcc or
//   clang_O2/P   clang-14 -O2 -fwrapv -shared -fPIC, dlopen
//   run/P/...    the code on random arguments: Augur O2 without PEG
//                (peg_off) and with it (peg_on), gcc's and clang's; every
//                version is called through the same trampoline and checked
//                against peg_off (gcc's, clang's where it was skipped)
//                first; each call starts from the same arguments (the
//                written buffers are copied back before it: run/P/restore
//                is that copy alone)
//
// Phase times are CPU time of the process and its children (the C
// compilers), the `cpu_ms` counter; run times are CPU time per call. The
// summary at the end puts them side by side with the ratios.
//
//   AUGUR_CORPUS_SIZES      small | standard (default: ~1k and ~10k statements) | all
//   AUGUR_CORPUS_FAMILIES   e.g. "bf,dfa" (default: every family)
//   AUGUR_CORPUS_BUDGET_S   on programs of 5,000 statements or more a phase
//                           first runs once in a child process killed past
//                           this many seconds, and is skipped if it was; it
//                           is skipped without a probe when even a linear
//                           projection from the family's previous size
//                           passes them (default 60; 0 runs everything,
//                           unprobed)
//   AUGUR_CORPUS_SPLIT_NODES  cpu::Options::split_nodes of every Augur
//                           compile (default: the backend's; 0: never split)
//   AUGUR_CORPUS_STRAIGHT_LINE  0: the PEG optimizer leaves regions without
//                           loops to LLVM (PegOptions::
//                           straight_line_regions; default 1, as O2)
//
//   AUGUR_CORPUS_SIZES=all build/release/bench/corpus_bench
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bench/compile/ir_to_c.h"
#include "bench/corpus/corpus.h"
#include "bench/corpus/corpus_inputs.h"
#include "bench/corpus/ir_stats.h"
#include "bench/corpus/native.h"
#include "bench/corpus/probe.h"
#include "bench/support/ratio_reporter.h"
#include "jit/cpu/compile.h"
#include "jit/cpu/statistics.h"
#include "runtime/peg/optimize.h"
#include "runtime/stage/extract.h"

namespace augur::bench::corpus {
namespace {

std::string env_or(const char* name, const std::string& otherwise) {
  const char* value = std::getenv(name);
  return value && *value ? value : otherwise;
}

// PegOptions as O2 uses them, but for AUGUR_CORPUS_STRAIGHT_LINE.
peg::PegOptions peg_options() {
  peg::PegOptions options;
  options.straight_line_regions = env_or("AUGUR_CORPUS_STRAIGHT_LINE", "1") != "0";
  return options;
}

double ms(std::chrono::nanoseconds t) {
  return std::chrono::duration<double, std::milli>(t).count();
}

// A program and what the benchmarks made of it, each made on first use.
struct Subject {
  explicit Subject(Program p) : program(std::move(p)), args(program.params, 42) {}

  Program program;
  Arguments args;
  std::optional<jit::extraction> staged;
  IrStats stats;
  std::optional<peg::PegResult> peg;
  std::map<std::string, std::shared_ptr<cpu::CompiledCode>> augur;  // "peg_off", "peg_on"
  std::map<std::string, void*> native;                              // "gcc", "clang"
  // The result and the memory after one call of the first version made of
  // kReferences (corpus_bench.cpp), which every version must reproduce.
  std::optional<std::pair<std::uint64_t, std::vector<std::vector<std::uint8_t>>>> reference;
  std::string reference_version;

  const ir::Module& module() {
    if (!staged) {
      staged.emplace(program.stage());
      stats = ir_stats(module_unchecked().functions.front());
    }
    return module_unchecked();
  }
  const ir::Function& function() { return module().functions.front(); }

 private:
  const ir::Module& module_unchecked() const { return staged->result().extracted.module; }
};

std::vector<std::unique_ptr<Subject>>& subjects() {
  static std::vector<std::unique_ptr<Subject>> all;
  return all;
}

// Decides whether a phase runs on a program. On programs of kProbeAbove
// statements or more it must first finish a probe (probe.h) within the
// budget. A probe is not even tried when the phase's time, projected
// linearly in statements from the family's largest program measured so far,
// passes the budget: no phase here is faster than linear (the optimizer and
// LLVM are often much slower), so it would be killed anyway. The note of a
// skipped phase says which.
class Budget {
 public:
  static constexpr std::size_t kProbeAbove = 5'000;

  // Throws jit::error for an AUGUR_CORPUS_BUDGET_S that is not seconds.
  Budget() {
    const std::string text = env_or("AUGUR_CORPUS_BUDGET_S", "60");
    char* end = nullptr;
    seconds_ = std::strtod(text.c_str(), &end);
    if (*end != '\0' || !(seconds_ >= 0))
      throw jit::error("AUGUR_CORPUS_BUDGET_S is a number of seconds (0: no budget), not '" + text +
                       "'");
  }

  // Empty if `phase` may run on `subject`, probing it with `body` first if
  // it is large; else why not. Decided once per phase and program.
  std::string allow(const std::string& phase, Subject& subject, const std::function<void()>& body) {
    if (seconds_ <= 0) return {};
    const auto key = std::make_pair(phase, subject.program.name);
    if (const auto it = verdicts_.find(key); it != verdicts_.end()) return it->second;
    std::string why = projection(phase, subject);
    if (why.empty() && subject.stats.statements >= kProbeAbove) {
      if (const std::optional<double> took = probe(seconds_, body)) {
        record(phase, subject, *took);
      } else {
        why = "skipped: " + phase + " failed or ran past " + seconds_text() +
              " s in a probe (killed)";
      }
    }
    // Larger programs of the family skip it too.
    if (!why.empty()) record(phase, subject, std::numeric_limits<double>::infinity());
    verdicts_[key] = why;
    return why;
  }

  void record(const std::string& phase, Subject& subject, double seconds) {
    measured_[{phase, subject.program.family}] = {static_cast<double>(subject.stats.statements),
                                                  seconds};
  }

 private:
  std::string projection(const std::string& phase, const Subject& subject) const {
    const auto it = measured_.find({phase, subject.program.family});
    if (it == measured_.end()) return {};
    const double ratio = static_cast<double>(subject.stats.statements) / it->second.statements;
    const double projected = it->second.seconds * ratio;
    if (projected <= seconds_) return {};
    std::ostringstream why;
    why.precision(3);
    why << "skipped: " << phase << " projected (linearly) at " << projected << " s from "
        << it->second.seconds << " s at " << it->second.statements
        << " statements (AUGUR_CORPUS_BUDGET_S=" << seconds_text() << ")";
    return why.str();
  }
  std::string seconds_text() const {
    std::ostringstream text;
    text << seconds_;
    return text.str();
  }

  struct Measured {
    double statements = 1;
    double seconds = 0;
  };
  double seconds_ = 0;
  std::map<std::pair<std::string, std::string>, Measured> measured_;     // by phase and family
  std::map<std::pair<std::string, std::string>, std::string> verdicts_;  // by phase and program
};

Budget& budget() {
  static Budget b;
  return b;
}

// Runs one phase's benchmark loop: skipped past the budget (staging, bounded
// by construction, always runs), its CPU time (children included) recorded
// for the projections and as `cpu_ms`.
template <class Body>
void phase(benchmark::State& state, Subject& subject, const std::string& name, Body body) {
  try {
    subject.module();
    if (name != "stage") {
      if (const std::string why = budget().allow(name, subject, body); !why.empty()) {
        state.SkipWithError(why.c_str());
        return;
      }
    }
    const double start = cpu_seconds();
    for (auto _ : state) body();
    const double seconds = (cpu_seconds() - start) / static_cast<double>(state.iterations());
    budget().record(name, subject, seconds);
    state.counters["cpu_ms"] = seconds * 1e3;
    state.counters["statements"] = static_cast<double>(subject.stats.statements);
  } catch (const std::exception& e) {
    budget().record(name, subject, std::numeric_limits<double>::infinity());
    state.SkipWithError(e.what());
  }
}

void stage(benchmark::State& state, Subject& s) {
  phase(state, s, "stage", [&] { benchmark::DoNotOptimize(s.program.stage()); });
  state.counters["loops"] = static_cast<double>(s.stats.loops);
  if (s.staged) state.counters["runs"] = static_cast<double>(s.staged->report().control_flow_runs);
}

void optimize(benchmark::State& state, Subject& s) {
  phase(state, s, "peg", [&] { s.peg = peg::optimize(s.module(), peg_options()); });
  if (!s.peg) return;
  const peg::PegFunctionReport& r = s.peg->report.functions.front();
  state.counters["e_nodes"] = static_cast<double>(r.egraph_nodes);
  state.counters["iterations"] = static_cast<double>(r.iterations);
  state.counters["optimized"] = r.optimized ? 1 : 0;
  state.counters["to_peg_ms"] = ms(r.to_peg);
  state.counters["saturate_ms"] = ms(r.saturate);
  state.counters["extract_ms"] = ms(r.extract);
  state.counters["revert_ms"] = ms(r.revert);
}

cpu::Options at_level(int level) {
  cpu::Options options;
  options.opt_level = level;
  options.invokers = false;  // the trampoline calls the C ABI entry
  const std::string split = env_or("AUGUR_CORPUS_SPLIT_NODES", "");
  if (!split.empty()) {
    char* end = nullptr;
    options.split_nodes = std::strtoull(split.c_str(), &end, 10);
    if (*end != '\0' || split.front() == '-')
      throw jit::error("AUGUR_CORPUS_SPLIT_NODES is a number of IR nodes (0: never split), not '" +
                       split + "'");
  }
  return options;
}

// Also the backend's own timers per compile, summed over its threads: the
// pass pipeline (opt_ms) and machine code (codegen_ms).
void llvm(benchmark::State& state, Subject& s, int level) {
  const cpu::Statistics before = cpu::statistics();
  phase(state, s, "llvm_O" + std::to_string(level), [&] {
    std::shared_ptr<cpu::CompiledCode> code = cpu::compile(s.module(), {}, at_level(level));
    // The O2 code is the peg_off version the runs call.
    if (level == 2) s.augur["peg_off"] = std::move(code);
  });
  if (state.iterations() == 0) return;
  const cpu::Statistics after = cpu::statistics();
  const auto per_compile = [&](std::chrono::nanoseconds from, std::chrono::nanoseconds to) {
    return ms(to - from) / static_cast<double>(state.iterations());
  };
  state.counters["opt_ms"] = per_compile(before.optimization, after.optimization);
  state.counters["codegen_ms"] = per_compile(before.machine_code, after.machine_code);
}

// A cold jit::compile at O2 of the program: the first stage, the PEG
// optimizer and the CPU backend on its result, one after the other (the
// optimizer's regions and the backend's parts run on the TBB pool, so wall
// time is below CPU time on several cores).
void compile(benchmark::State& state, Subject& s) {
  phase(state, s, "compile", [&] {
    const jit::extraction e = s.program.stage();
    const peg::PegResult optimized = peg::optimize(e.result().extracted.module, peg_options());
    benchmark::DoNotOptimize(cpu::compile(optimized.module, {}, at_level(2)));
  });
}

void* load_native(Subject& s, const std::string& compiler, int version) {
  void* library = compile_and_load(ir_to_c(s.module()),
                                   s.program.name + "_" + compiler + std::to_string(version),
                                   compiler == "gcc" ? "gcc" : "clang-14", "-O2 -w");
  return symbol(library, s.program.name);
}

void native(benchmark::State& state, Subject& s, const std::string& compiler) {
  int version = 0;
  phase(state, s, compiler + "_O2",
        [&] { s.native[compiler] = load_native(s, compiler, version++); });
}

// Throws the budget's note if `phase` may not run on `s`.
void require(const std::string& phase, Subject& s, const std::function<void()>& body) {
  if (const std::string why = budget().allow(phase, s, body); !why.empty()) throw jit::error(why);
}

// The address of one version of the program, made on first use (the phase
// benchmarks leave theirs); throws the budget's note when its phase was
// skipped, or the phase's error.
void* version_address(Subject& s, const std::string& version) {
  if (version == "gcc" || version == "clang") {
    if (!s.native.count(version)) {
      require(version + "_O2", s, [&] { load_native(s, version, 1000); });
      s.native[version] = load_native(s, version, 1001);
    }
    return s.native[version];
  }
  if (version == "peg_on" && !s.peg) {
    require("peg", s, [&] { peg::optimize(s.module(), peg_options()); });
    s.peg = peg::optimize(s.module(), peg_options());
  }
  const ir::Module& module = version == "peg_on" ? s.peg->module : s.module();
  auto& code = s.augur[version];
  if (!code) {
    require("llvm_O2", s, [&] { cpu::compile(module, {}, at_level(2)); });
    code = cpu::compile(module, {}, at_level(2));
  }
  return code->address(s.program.name);
}

std::pair<std::uint64_t, std::vector<std::vector<std::uint8_t>>> call_once(Subject& s,
                                                                           void* function) {
  Arguments work = s.args;
  const std::vector<std::uint64_t> words = work.words();
  const std::uint64_t result = trampoline_for(s.function())(function, words.data());
  return {result, work.memory()};
}

// The versions that may serve as the reference the others are checked against, in order.
constexpr const char* kReferences[] = {"peg_off", "gcc", "clang"};

void run(benchmark::State& state, Subject& s, const std::string& version) {
  s.module();
  void* function = nullptr;
  if (version != "restore") {
    try {
      for (const char* reference : kReferences) {
        if (s.reference) break;
        try {
          s.reference = call_once(s, version_address(s, reference));
          s.reference_version = reference;
        } catch (const std::exception&) {
          // The next one, then.
        }
      }
      function = version_address(s, version);
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
      return;
    }
    if (!s.reference) {
      state.SkipWithError("no version to check against (peg_off, gcc and clang were skipped)");
      return;
    }
    if (call_once(s, function) != *s.reference) {
      const std::string why = "computes another result or memory than " + s.reference_version;
      state.SkipWithError(why.c_str());
      return;
    }
  }
  const Trampoline call = trampoline_for(s.function());
  Arguments work = s.args;
  const std::vector<std::uint64_t> words = work.words();
  for (auto _ : state) {
    work.reset_written(s.args);
    if (function) benchmark::DoNotOptimize(call(function, words.data()));
    benchmark::ClobberMemory();
  }
  state.counters["statements"] = static_cast<double>(s.stats.statements);
}

void register_benchmarks(Subject& s) {
  const std::string& n = s.program.name;
  auto add = [&](const std::string& name, auto fn) {
    return benchmark::RegisterBenchmark(name.c_str(), fn);
  };
  const auto ms_unit = benchmark::kMillisecond;
  add("stage/" + n, [&s](benchmark::State& st) { stage(st, s); })->Unit(ms_unit);
  add("peg/" + n, [&s](benchmark::State& st) { optimize(st, s); })->Unit(ms_unit);
  for (int level : {1, 2})
    add("llvm_O" + std::to_string(level) + "/" + n,
        [&s, level](benchmark::State& st) { llvm(st, s, level); })
        ->Unit(ms_unit)
        ->MeasureProcessCPUTime();  // LLVM materializes on TBB workers
  add("compile/" + n, [&s](benchmark::State& st) { compile(st, s); })
      ->Unit(ms_unit)
      ->UseRealTime();  // wall time; the cpu_ms counter has the CPU time of all threads
  for (const char* compiler : {"gcc", "clang"})
    add(std::string(compiler) + "_O2/" + n,
        [&s, compiler](benchmark::State& st) { native(st, s, compiler); })
        ->Unit(ms_unit)
        ->UseRealTime();  // the compiler's time is its own, not this process's
  for (const char* version : {"peg_off", "peg_on", "gcc", "clang", "restore"})
    add("run/" + n + "/" + version, [&s, version](benchmark::State& st) {
      run(st, s, version);
    })->Unit(benchmark::kMicrosecond);
}

// ---------------------------------------------------------------- summary

std::string cell(const RatioReporter& r, const std::string& name, bool counter_cpu_ms) {
  const RunTimes* t = r.find(name);
  if (!t) return "-";
  if (!t->error.empty()) return "skip";
  char out[32];
  if (counter_cpu_ms) {
    std::snprintf(out, sizeof out, "%.1f", t->counted_cpu_ns() / 1e6);
  } else {
    std::snprintf(out, sizeof out, "%.2f", t->cpu_ns / 1e3);
  }
  return out;
}

std::string ratio(const RatioReporter& r, const std::string& a, const std::string& b) {
  const RunTimes* x = r.find(a);
  const RunTimes* y = r.find(b);
  if (!x || !y || !x->error.empty() || !y->error.empty() || y->cpu_ns <= 0) return "-";
  char out[32];
  std::snprintf(out, sizeof out, "%.2f", x->cpu_ns / y->cpu_ns);
  return out;
}

void summary(const RatioReporter& r) {
  std::printf(
      "\nPhases, CPU ms (C compilers' children included; skip: see the benchmark's note)\n");
  std::printf("%-12s %8s %5s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n", "program", "stmts",
              "loops", "stage", "peg", "to_peg", "saturate", "extract", "e-nodes", "llvm_O1",
              "llvm_O2", "compile", "wall", "gcc_O2", "clang_O2");
  for (const auto& s : subjects()) {
    const std::string& n = s->program.name;
    const RunTimes* p = r.find("peg/" + n);
    auto counter = [&](const char* c) -> std::string {
      if (!p || !p->error.empty() || !p->counters.count(c)) return "-";
      char out[32];
      std::snprintf(out, sizeof out, "%.1f", p->counters.at(c));
      return out;
    };
    const RunTimes* c = r.find("compile/" + n);
    char wall[32] = "-";
    if (c && c->error.empty()) std::snprintf(wall, sizeof wall, "%.1f", c->wall_ns / 1e6);
    std::printf("%-12s %8zu %5zu %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n", n.c_str(),
                s->stats.statements, s->stats.loops, cell(r, "stage/" + n, true).c_str(),
                cell(r, "peg/" + n, true).c_str(), counter("to_peg_ms").c_str(),
                counter("saturate_ms").c_str(), counter("extract_ms").c_str(),
                counter("e_nodes").c_str(), cell(r, "llvm_O1/" + n, true).c_str(),
                cell(r, "llvm_O2/" + n, true).c_str(), cell(r, "compile/" + n, true).c_str(), wall,
                cell(r, "gcc_O2/" + n, true).c_str(), cell(r, "clang_O2/" + n, true).c_str());
  }
  std::printf("\nPEG optimizer per program (last run)\n");
  for (const auto& s : subjects()) {
    if (!s->peg) {
      std::printf("  %-12s not run\n", s->program.name.c_str());
      continue;
    }
    const peg::PegFunctionReport& f = s->peg->report.functions.front();
    const std::string outcome =
        f.regions == 0
            ? (f.unchanged   ? "optimized (nothing cheaper found, kept as it came)"
               : f.optimized ? "optimized"
                             : "kept")
            : std::to_string(f.regions_optimized) + " of " + std::to_string(f.regions) +
                  " regions optimized (" +
                  std::to_string(f.optimized_nodes * 100 / std::max<std::size_t>(f.ir_nodes, 1)) +
                  "% of the IR nodes" +
                  (f.regions_unchanged == 0
                       ? std::string(")")
                       : "; " + std::to_string(f.regions_unchanged) +
                             " with nothing cheaper found, kept as they came)");
    const bool all = f.regions == 0 ? f.optimized : f.regions_optimized == f.regions;
    std::printf("  %-12s %s, %zu iterations (%s), %zu e-nodes%s%s\n", s->program.name.c_str(),
                outcome.c_str(), f.iterations, f.stop.c_str(), f.egraph_nodes,
                all ? "" : "; kept: ", f.fallback.c_str());
  }
  std::printf(
      "\nCode speed, CPU us per call (restore: copying the written buffers back, included in "
      "each)\nand ratios of CPU time (below 1: the first is faster)\n");
  std::printf("%-12s %10s %10s %10s %10s %8s %8s %8s %8s %8s\n", "program", "peg_off", "peg_on",
              "gcc", "clang", "restore", "on/off", "on/gcc", "on/clang", "off/gcc");
  for (const auto& s : subjects()) {
    const std::string base = "run/" + s->program.name + "/";
    std::printf("%-12s %10s %10s %10s %10s %8s %8s %8s %8s %8s\n", s->program.name.c_str(),
                cell(r, base + "peg_off", false).c_str(), cell(r, base + "peg_on", false).c_str(),
                cell(r, base + "gcc", false).c_str(), cell(r, base + "clang", false).c_str(),
                cell(r, base + "restore", false).c_str(),
                ratio(r, base + "peg_on", base + "peg_off").c_str(),
                ratio(r, base + "peg_on", base + "gcc").c_str(),
                ratio(r, base + "peg_on", base + "clang").c_str(),
                ratio(r, base + "peg_off", base + "gcc").c_str());
  }
  for (const auto& s : subjects())
    for (const char* phase :
         {"stage/", "peg/", "llvm_O1/", "llvm_O2/", "compile/", "gcc_O2/", "clang_O2/"})
      if (const RunTimes* t = r.find(phase + s->program.name); t && !t->error.empty())
        std::printf("note: %s%s: %s\n", phase, s->program.name.c_str(), t->error.c_str());
}

}  // namespace
}  // namespace augur::bench::corpus

int main(int argc, char** argv) {
  namespace corpus = augur::bench::corpus;
  benchmark::Initialize(&argc, argv);
  try {
    const corpus::Sizes sizes =
        corpus::parse_sizes(corpus::env_or("AUGUR_CORPUS_SIZES", "standard"));
    const std::string families = "," + corpus::env_or("AUGUR_CORPUS_FAMILIES", "") + ",";
    for (corpus::Program& p : corpus::programs(sizes))
      if (families == ",," || families.find("," + p.family + ",") != std::string::npos)
        corpus::subjects().push_back(std::make_unique<corpus::Subject>(std::move(p)));
    corpus::budget();  // reads AUGUR_CORPUS_BUDGET_S
    augur::peg::warm_up();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "corpus_bench: %s\n", e.what());
    return EXIT_FAILURE;
  }
  for (const auto& s : corpus::subjects()) corpus::register_benchmarks(*s);
  augur::bench::RatioReporter reporter(corpus::summary);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return EXIT_SUCCESS;
}
