// The staged regex matcher of examples/regex.h (a DFA in the first stage, its
// states as code) against std::regex and RE2 on random strings, whole-text
// matches and lines containing a match, for patterns with literals, classes,
// alternation, stars inside alternation, anchors and bounded repetition; and
// its first stage against what the issue asked: the compiled-automaton shape
// extracts with 1 + branch points runs and no state variable.
#include <gtest/gtest.h>
#include <re2/re2.h>

#include <random>
#include <regex>
#include <string>
#include <vector>

#include "examples/regex.h"
#include "jit/jit.h"

namespace {

struct Case {
  const char* pattern;
  const char* alphabet;  // random strings are drawn from it
};

const Case kCases[] = {
    {"abc", "abcx"},
    {"hello world", "helo wrd"},
    {"[0-9]+", "0123a "},
    {"[a-z]+ing", "ingaZ "},
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
    {"a.c", "abc\t"},
    {"\\d{2,3}-\\d+", "12-3a"},
    {"(a|b)*abb", "ab"},
    {"^(ab|a)(bc|c)$", "abc"},
};

using Matcher = jit::function<bool(const std::uint8_t*, std::int64_t)>;
using LineCounter = jit::function<std::int64_t(const std::uint8_t*, std::int64_t)>;

const std::uint8_t* bytes(const std::string& s) {
  return reinterpret_cast<const std::uint8_t*>(s.data());
}

std::string random_string(std::mt19937& rng, const std::string& alphabet, int max_length) {
  std::string s(std::uniform_int_distribution<int>(0, max_length)(rng), ' ');
  for (char& c : s) c = alphabet[rng() % alphabet.size()];
  return s;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t begin = 0;
  for (std::size_t nl; (nl = text.find('\n', begin)) != std::string::npos; begin = nl + 1) {
    lines.push_back(text.substr(begin, nl - begin));
  }
  lines.push_back(text.substr(begin));
  return lines;
}

class Regex : public ::testing::TestWithParam<Case> {};

TEST_P(Regex, AgreesWithStdRegexAndRe2) {
  const Case& c = GetParam();
  const regex::Dfa full = regex::compile_dfa(c.pattern, regex::mode::full);
  const regex::Dfa lines = regex::compile_dfa(c.pattern, regex::mode::lines);
  const Matcher matches = jit::compile(regex::full_match, full);
  const LineCounter count = jit::compile(regex::count_lines, lines);
  const std::regex by_std(c.pattern);
  const RE2 by_re2(c.pattern);
  ASSERT_TRUE(by_re2.ok()) << by_re2.error();

  std::mt19937 rng(20261125);
  const std::string alphabet = c.alphabet;
  for (int trial = 0; trial < 1000; ++trial) {
    const std::string s = random_string(rng, alphabet, 14);
    const bool want = std::regex_match(s, by_std);
    ASSERT_EQ(want, RE2::FullMatch(s, by_re2)) << "the references disagree on `" << s << "`";
    ASSERT_EQ(matches(bytes(s), static_cast<std::int64_t>(s.size())), want)
        << c.pattern << " on `" << s << "`";

    // Several lines: the count of lines with a match.
    const std::string text = random_string(rng, alphabet + "\n", 60);
    std::int64_t want_lines = 0;
    for (const std::string& line : lines_of(text)) {
      const bool found = std::regex_search(line, by_std);
      ASSERT_EQ(found, RE2::PartialMatch(line, by_re2))
          << "the references disagree on `" << line << "`";
      want_lines += found;
    }
    ASSERT_EQ(count(bytes(text), static_cast<std::int64_t>(text.size())), want_lines)
        << c.pattern << " on `" << text << "`";
  }
}

INSTANTIATE_TEST_SUITE_P(Patterns, Regex, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return "pattern_" + std::to_string(info.index);
                         });

// Long texts, for the searches that skip with jit::find_sets 32 bytes at a
// time: to where a match's first bytes can be (start), to the line of a run
// every match contains (inner), to the next line that can start with a match
// (line), or none.
enum class Skip { start, inner, line, none };

struct Skipping {
  const char* pattern;
  const char* alphabet;
  Skip skip;
};

const Skipping kSkipping[] = {
    {"(cat|dog)s?", "cadogts x", Skip::start},
    {"[0-9]{4}-[0-9]{2}", "0123-9a ", Skip::start},
    {"[aeiou]{3}", "aeiouxy ", Skip::start},
    {"(a|b)*abb", "abx", Skip::inner},
    {"[a-z]+ing", "ingab ", Skip::inner},
    {"[a-z]{3,}ing", "ingab ", Skip::inner},
    {"[a-z]+@[a-z]+\\.com", "ab@.comx ", Skip::inner},
    {"^From: [a-z]+", "From: xab", Skip::line},
    {"^(ab|cd)[0-9]", "abcd01 ", Skip::line},
    {"^[a-z]+ [a-z]+", "ab ", Skip::none},
    {"^ab|cd", "abcd x", Skip::none},
};

Skip skip_of(const regex::Dfa& dfa) {
  if (!dfa.start_filter.empty()) return Skip::start;
  if (!dfa.inner_filter.empty()) return Skip::inner;
  if (!dfa.line_filter.empty()) return Skip::line;
  return Skip::none;
}

TEST(RegexSkipping, LongTextsCountTheLinesRe2Finds) {
  std::mt19937 rng(77);
  for (const Skipping& c : kSkipping) {
    const regex::Dfa dfa = regex::compile_dfa(c.pattern, regex::mode::lines);
    EXPECT_EQ(skip_of(dfa), c.skip) << c.pattern;
    const LineCounter count = jit::compile(regex::count_lines, dfa);
    const RE2 by_re2(c.pattern);
    ASSERT_TRUE(by_re2.ok()) << by_re2.error();
    for (int trial = 0; trial < 60; ++trial) {
      std::string text;
      std::int64_t want = 0;
      const int lines = 1 + static_cast<int>(rng() % 40);
      for (int l = 0; l < lines; ++l) {
        // Some lines mostly of bytes outside the alphabet, so that the
        // searches skip far; others with many matches.
        std::string line = random_string(rng, c.alphabet, 300);
        const unsigned outside = rng() % 3 * 4;  // in 8
        for (char& ch : line) {
          if (rng() % 8 < outside) ch = "QRSTUVW"[rng() % 7];
        }
        want += RE2::PartialMatch(line, by_re2);
        text += line;
        if (l + 1 < lines) text += '\n';
      }
      ASSERT_EQ(count(bytes(text), static_cast<std::int64_t>(text.size())), want)
          << c.pattern << " on `" << text << "`";
    }
  }
}

// The compiled-automaton shape is what staging is for: no DFA state survives
// as a variable (no dispatch loop), and the first stage runs once per dyn
// branch point plus one (no run replays a state's code for each way into
// it). Every branch point is an `if` or a loop condition in the IR.
std::size_t branch_points(const std::string& ir) {
  std::size_t count = 0;
  for (const char* keyword : {"if (", "while ("}) {
    for (std::size_t at = ir.find(keyword); at != std::string::npos;
         at = ir.find(keyword, at + 1)) {
      ++count;
    }
  }
  return count;
}

TEST(RegexStaging, TheAutomatonExtractsAsCodeInOneRunPerBranchPoint) {
  for (const char* pattern : {"abc", "(cat|dog|bird)s?", "(a|b)*abb", "x(yz)+", "^From: [a-z]+"}) {
    for (const regex::mode how : {regex::mode::full, regex::mode::lines}) {
      const regex::Dfa dfa = regex::compile_dfa(pattern, how);
      const jit::extraction e = how == regex::mode::full ? jit::extract(regex::full_match, dfa)
                                                         : jit::extract(regex::count_lines, dfa);
      const jit::stage_report& report = e.report();
      EXPECT_EQ(report.irreducible_dispatched, 0u) << pattern << "\n" << e.ir();
      EXPECT_LE(report.control_flow_runs, 1 + branch_points(e.ir())) << pattern << "\n" << e.ir();
    }
  }
}

TEST(RegexSyntax, BadPatternsAreClearErrors) {
  for (const char* pattern : {"(ab", "a)", "[a-", "*a", "a{3,1}", "\\q", "a{2000}"}) {
    EXPECT_THROW(regex::compile_dfa(pattern, regex::mode::full), std::invalid_argument) << pattern;
  }
  const std::string deep = std::string(200, '(') + "a" + std::string(200, ')');
  EXPECT_THROW(regex::compile_dfa(deep, regex::mode::full), std::invalid_argument);
}

}  // namespace
