// The arithmetic suite (bench/egraph/math.terms with egg's rules in
// bench/egraph/math.rules): every goal must be reached within the default JIT
// budget's iteration and node limits, with the same result on 1 and 2 search
// threads. The time limit is lifted: it is wall-clock, so a loaded or
// instrumented (sanitizer) build could otherwise stop early.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/egraph/math.h"
#include "runtime/eqsat/egraph.h"
#include "runtime/eqsat/extract.h"
#include "runtime/eqsat/rule_file.h"
#include "runtime/eqsat/runner.h"
#include "runtime/eqsat/term.h"
#include "tests/eqsat/dump.h"

namespace augur::eqsat {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string kRules = std::string(AUGUR_TEST_DATA) + "/../../bench/egraph/math.rules";
const std::string kTerms = std::string(AUGUR_TEST_DATA) + "/../../bench/egraph/math.terms";

struct Outcome {
  std::string stop;
  std::string best;
  std::vector<bool> reached;
  std::string dump;
};

Outcome saturate(const TermEntry& entry, const std::vector<Rewrite>& rules, SymbolLanguage& lang,
                 unsigned threads) {
  RunOptions options;
  options.limits.time = std::chrono::hours(1);
  options.threads = threads;
  EGraph g;
  math::add_constant_folding(g, lang);
  const Id root = add_term(g, entry.start);
  const Report report = Runner(options).run(g, rules);
  Outcome out;
  out.stop = std::string(to_string(report.stop)) + " after " + std::to_string(report.iterations);
  out.best = print_term(Extractor(g, ast_size()).extract(root), lang);
  for (const Term& goal : entry.goals) {
    const std::optional<Id> id = lookup_term(g, goal);
    out.reached.push_back(id && g.equivalent(*id, root));
  }
  out.dump = dump(g);
  return out;
}

TEST(MathSuite, ReachesEveryGoalWithinTheJitBudgetOnOneAndTwoThreads) {
  SymbolLanguage lang;
  const std::string rules_text = read(kRules);
  const std::string terms_text = read(kTerms);
  const std::vector<Rewrite> rules = parse_rules(rules_text, lang, math::guards(lang), kRules);
  const std::vector<TermEntry> terms = parse_terms(terms_text, lang, kTerms);
  ASSERT_EQ(rules.size(), 36u);  // all of egg's math.rs rules
  ASSERT_GE(terms.size(), 25u);
  for (const TermEntry& entry : terms) {
    const std::string name = print_term(entry.start, lang);
    const Outcome one = saturate(entry, rules, lang, 1);
    EXPECT_EQ(one.stop.find("time"), std::string::npos) << name;
    for (std::size_t i = 0; i < one.reached.size(); ++i)
      EXPECT_TRUE(one.reached[i]) << name << " => " << print_term(entry.goals[i], lang) << " ("
                                  << one.stop << ", best " << one.best << ")";
    const Outcome two = saturate(entry, rules, lang, 2);
    EXPECT_EQ(one.stop, two.stop) << name;
    EXPECT_EQ(one.best, two.best) << name;
    EXPECT_EQ(one.dump, two.dump) << name;
  }
}

}  // namespace
}  // namespace augur::eqsat
