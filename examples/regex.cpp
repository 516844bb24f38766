// Regular expressions compiled to native code by staging (regex.h): each
// pattern becomes a DFA in the first stage and the DFA becomes straight code.
// Checks every pattern against std::regex on random strings, then counts the
// matching lines of a small text, as grep -c would.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "regex.h"

namespace {

using Matcher = jit::function<bool(const std::uint8_t*, std::int64_t)>;
using LineCounter = jit::function<std::int64_t(const std::uint8_t*, std::int64_t)>;

const std::uint8_t* bytes(const std::string& s) {
  return reinterpret_cast<const std::uint8_t*>(s.data());
}

struct Case {
  const char* pattern;
  const char* alphabet;  // random strings are drawn from it
};

const Case kCases[] = {
    {"abc", "abcx"},
    {"[0-9]+", "0123a "},
    {"[a-z]+ing", "inga "},
    {"(cat|dog|bird)s?", "catdogbirs "},
    {"(a*b|c*d)e", "abcde"},
    {"(ab|cd)*ef", "abcdef"},
    {"^From:", "From: x"},
    {"end$", "end x"},
    {"^[A-Z][a-z]*$", "Aab "},
    {"colou?r", "colur x"},
    {"x(yz)+", "xyz "},
    {"[^aeiou ]{3}", "abe xyz"},
    {"\\w+@\\w+\\.com", "ab@.com x"},
    {"(foo|bar|baz)[0-9]{2}", "fobarz01"},
    {"q[^u]", "quia "},
    {"a.c", "abc\n"},
};

std::string random_string(std::mt19937& rng, const std::string& alphabet) {
  std::string s(std::uniform_int_distribution<int>(0, 12)(rng), ' ');
  for (char& c : s) c = alphabet[rng() % alphabet.size()];
  return s;
}

}  // namespace

int main() {
  try {
    int failures = 0;
    std::mt19937 rng(7);
    for (const Case& c : kCases) {
      const regex::Dfa full = regex::compile_dfa(c.pattern, regex::mode::full);
      const regex::Dfa lines = regex::compile_dfa(c.pattern, regex::mode::lines);
      const Matcher matches = jit::compile(regex::full_match, full);
      const LineCounter count = jit::compile(regex::count_lines, lines);
      const std::regex reference(c.pattern);
      int wrong = 0;
      for (int trial = 0; trial < 400; ++trial) {
        const std::string s = random_string(rng, c.alphabet);
        const std::string line = s.substr(0, s.find('\n'));
        const bool want_full = std::regex_match(s, reference);
        const std::int64_t want_lines = std::regex_search(line, reference) ? 1 : 0;
        if (matches(bytes(s), static_cast<std::int64_t>(s.size())) != want_full) ++wrong;
        if (count(bytes(line), static_cast<std::int64_t>(line.size())) != want_lines) ++wrong;
      }
      std::printf("%-24s %3zu DFA states  %s\n", c.pattern, lines.size(), wrong ? "WRONG" : "ok");
      failures += wrong;
    }

    const std::string text = "From: someone\nthe cat sat\nno match here\ndogs and cats\nend\n";
    const regex::Dfa animals = regex::compile_dfa("(cat|dog)s?", regex::mode::lines);
    const std::int64_t found = jit::compile(regex::count_lines, animals)(
        bytes(text), static_cast<std::int64_t>(text.size()));
    std::printf("lines with a cat or a dog: %lld\n", static_cast<long long>(found));
    if (found != 2) ++failures;

    std::printf(failures == 0 ? "regex: OK\n" : "regex: %d FAILURES\n", failures);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "regex: %s\n", e.what());
    return EXIT_FAILURE;
  }
}
