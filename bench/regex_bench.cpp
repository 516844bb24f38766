// The staged regex matcher (examples/regex.h: a DFA whose states are code)
// against RE2 and PCRE2 with its JIT, on 32 MiB of text: every engine counts
// the lines that contain a match (grep -c), for patterns with rare and
// frequent matches. Also the compile of each pattern by each engine.
//
//   match/<pattern>/{augur,re2,pcre2}    one pass over the text; the counts
//                                        must agree (else the run is an error)
//   compile/<pattern>/{augur,re2,pcre2}  a cold compile: Augur's cache cleared
//                                        (DFA, staging, optimizer, LLVM), RE2's
//                                        constructor, pcre2_compile + JIT
//
// At the end: per pattern, the CPU time of RE2 and of PCRE2 over Augur's (above 1:
// Augur is faster), and their geometric means.
#include <benchmark/benchmark.h>
#include <pcre2.h>
#include <re2/re2.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/support/ratio_reporter.h"
#include "examples/regex.h"

namespace {

struct Pattern {
  const char* name;
  const char* regex;
};

// From no matching line to most lines (the report's `lines` counter): the
// text has about 550,000 lines.
const Pattern kPatterns[] = {
    {"literal_hello_world", "hello world"},
    {"literal_absent", "xyzzy"},
    {"date", "[0-9]{4}-[0-9]{2}-[0-9]{2}"},
    {"anchored_from", "^From: [a-z]+"},
    {"error_at_end", "error [0-9]+$"},
    {"class_quiz", "qu[aeiou]z"},
    {"alternation_3_words", "(foobar|bazqux|quuxly)"},
    {"star_in_alternation", "(zz+y|yx*w)v"},
    {"literal_the", "the"},
    {"alternation_cat_dog", "(cat|dog)s?"},
    {"suffix_ing", "[a-z]+ing"},
    {"email", "[a-z]+@[a-z]+\\.com"},
    {"vowels", "[aeiou]{3}"},
    {"dfa_abb", "(a|b)*abb"},
    {"anchored_two_words", "^[a-z]+ [a-z]+"},
};

// 32 MiB of lines of random words, with the rare patterns' matches planted in
// a few lines per thousand.
const std::string& text() {
  static const std::string built = [] {
    std::mt19937_64 rng(2026);
    std::vector<std::string> words = {"the",  "cat",           "dogs",  "going", "seeing", "abb",
                                      "babb", "mail@host.com", "queue", "aeiou", "a",      "b"};
    for (int w = 0; w < 3000; ++w) {
      std::string word(2 + rng() % 8, 'a');
      for (char& c : word) c = static_cast<char>('a' + rng() % 26);
      words.push_back(word);
    }
    const char* planted[] = {"hello world", "2026-11-25", "error 404", "quiz",
                             "bazqux",      "zzzyv",      "yxxwv"};
    std::string out;
    const std::size_t size = std::size_t{32} << 20;
    out.reserve(size + 200);
    while (out.size() < size) {
      if (rng() % 500 == 0) out += "From: sender ";
      const int count = 6 + static_cast<int>(rng() % 10);
      for (int w = 0; w < count; ++w) {
        out += rng() % 400 == 0 ? planted[rng() % std::size(planted)] : words[rng() % words.size()];
        out += w + 1 < count ? ' ' : '\n';
      }
    }
    return out;
  }();
  return built;
}

// RE2 and PCRE2 search the whole text at once, so a negated class must not
// cross a line (the staged matcher never sees a newline inside a line).
std::string for_whole_text(const char* pattern) {
  std::string out;
  for (const char* p = pattern; *p; ++p) {
    out += *p;
    if (p[0] == '[' && p[1] == '^') {
      out += "^\\n";
      ++p;
    }
  }
  return out;
}

using LineCounter = jit::function<std::int64_t(const std::uint8_t*, std::int64_t)>;

std::int64_t count_augur(const LineCounter& f, const std::string& t) {
  return f(reinterpret_cast<const std::uint8_t*>(t.data()), static_cast<std::int64_t>(t.size()));
}

// The lines of `t` with a match: search, count, go on after the line.
std::int64_t count_re2(const RE2& re, const std::string& t) {
  std::int64_t count = 0;
  std::size_t pos = 0;
  re2::StringPiece match;
  while (pos < t.size() && re.Match(t, pos, t.size(), RE2::UNANCHORED, &match, 1)) {
    ++count;
    const std::size_t nl = t.find('\n', static_cast<std::size_t>(match.data() - t.data()));
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return count;
}

struct Pcre2 {
  pcre2_code* code = nullptr;
  pcre2_match_data* data = nullptr;

  explicit Pcre2(const std::string& pattern) {
    int error = 0;
    PCRE2_SIZE offset = 0;
    code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.c_str()), PCRE2_ZERO_TERMINATED,
                         PCRE2_MULTILINE, &error, &offset, nullptr);
    if (code) {
      pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
      data = pcre2_match_data_create_from_pattern(code, nullptr);
    }
  }
  ~Pcre2() {
    pcre2_match_data_free(data);
    pcre2_code_free(code);
  }
  Pcre2(const Pcre2&) = delete;
  Pcre2& operator=(const Pcre2&) = delete;

  std::int64_t count(const std::string& t) const {
    std::int64_t count = 0;
    std::size_t pos = 0;
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(t.data());
    while (pos < t.size() && pcre2_jit_match(code, subject, t.size(), pos, 0, data, nullptr) > 0) {
      ++count;
      const std::size_t nl = t.find('\n', pcre2_get_ovector_pointer(data)[0]);
      if (nl == std::string::npos) break;
      pos = nl + 1;
    }
    return count;
  }
};

// What the staged matcher counts, for the others to agree with.
std::int64_t reference_count(const Pattern& p) {
  const regex::Dfa dfa = regex::compile_dfa(p.regex, regex::mode::lines);
  return count_augur(jit::compile(regex::count_lines, dfa), text());
}

void register_pattern(const Pattern& p) {
  const std::string name = p.name;
  const std::string whole = "(?m)" + for_whole_text(p.regex);
  benchmark::RegisterBenchmark(("match/" + name + "/augur").c_str(), [p](benchmark::State& state) {
    const regex::Dfa dfa = regex::compile_dfa(p.regex, regex::mode::lines);
    const LineCounter f = jit::compile(regex::count_lines, dfa);
    std::int64_t lines = 0;
    for (auto _ : state) benchmark::DoNotOptimize(lines = count_augur(f, text()));
    state.counters["lines"] = static_cast<double>(lines);
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text().size()));
  })->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark(("match/" + name + "/re2").c_str(), [p, whole](
                                                                       benchmark::State& state) {
    const RE2 re(whole);
    std::int64_t lines = 0;
    for (auto _ : state) benchmark::DoNotOptimize(lines = count_re2(re, text()));
    if (lines != reference_count(p)) state.SkipWithError("RE2 counts other lines");
    state.counters["lines"] = static_cast<double>(lines);
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text().size()));
  })->Unit(benchmark::kMillisecond);
  const std::string pcre = for_whole_text(p.regex);
  benchmark::RegisterBenchmark(("match/" + name + "/pcre2").c_str(), [p, pcre](
                                                                         benchmark::State& state) {
    const Pcre2 re(pcre);
    std::int64_t lines = 0;
    for (auto _ : state) benchmark::DoNotOptimize(lines = re.count(text()));
    if (lines != reference_count(p)) state.SkipWithError("PCRE2 counts other lines");
    state.counters["lines"] = static_cast<double>(lines);
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text().size()));
  })->Unit(benchmark::kMillisecond);

  benchmark::RegisterBenchmark(("compile/" + name + "/augur").c_str(), [p](benchmark::State&
                                                                               state) {
    for (auto _ : state) {
      jit::clear_cache();
      const regex::Dfa dfa = regex::compile_dfa(p.regex, regex::mode::lines);
      benchmark::DoNotOptimize(jit::compile(regex::count_lines, dfa));
    }
  })->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark(("compile/" + name + "/re2").c_str(), [whole](
                                                                         benchmark::State& state) {
    for (auto _ : state) {
      RE2 re(whole);
      benchmark::DoNotOptimize(re.ok());
    }
  })->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark(("compile/" + name + "/pcre2").c_str(),
                               [pcre](benchmark::State& state) {
                                 for (auto _ : state) {
                                   Pcre2 re(pcre);
                                   benchmark::DoNotOptimize(re.code);
                                 }
                               })
      ->Unit(benchmark::kMicrosecond);
}

void print_ratios(const augur::bench::RatioReporter& r) {
  std::printf(
      "\nthroughput of Augur over RE2 and PCRE2-JIT (their CPU time / Augur's), compile times "
      "(us, wall)\n");
  std::printf("%-22s %9s %9s %11s %9s %9s\n", "pattern", "vs RE2", "vs PCRE2", "Augur cmp",
              "RE2 cmp", "PCRE2 cmp");
  double log_re2 = 0, log_pcre2 = 0;
  int n = 0;
  for (const Pattern& p : kPatterns) {
    const std::string m = std::string("match/") + p.name + "/";
    const std::string c = std::string("compile/") + p.name + "/";
    const auto [a, re2] = r.pair(m + "augur", m + "re2");
    const auto [a2, pcre2] = r.pair(m + "augur", m + "pcre2");
    if (!a || !a2) continue;
    const double vs_re2 = re2->cpu_ns / a->cpu_ns, vs_pcre2 = pcre2->cpu_ns / a->cpu_ns;
    log_re2 += std::log(vs_re2);
    log_pcre2 += std::log(vs_pcre2);
    ++n;
    const auto us = [&](const std::string& run) {
      const augur::bench::RunTimes* t = r.find(run);
      return t ? t->wall_ns / 1e3 : NAN;
    };
    std::printf("%-22s %9.2f %9.2f %11.0f %9.1f %9.1f\n", p.name, vs_re2, vs_pcre2, us(c + "augur"),
                us(c + "re2"), us(c + "pcre2"));
  }
  if (n > 0) {
    std::printf("%-22s %9.2f %9.2f\n", "geomean", std::exp(log_re2 / n), std::exp(log_pcre2 / n));
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (const Pattern& p : kPatterns) register_pattern(p);
  benchmark::Initialize(&argc, argv);
  augur::bench::RatioReporter reporter(print_ratios);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
