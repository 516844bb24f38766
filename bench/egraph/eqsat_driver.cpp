// augur_eqsat: runs equality saturation over the rules and terms in two files
// and prints, per term, why saturation stopped, the best term extracted
// (egg's AstSize) and whether each goal was reached. The files are plain egg
// syntax (runtime/eqsat/rule_file.h), so the same workload can go through egg.

#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "bench/egraph/math.h"
#include "jit/error.h"
#include "runtime/eqsat/egraph.h"
#include "runtime/eqsat/explain.h"
#include "runtime/eqsat/extract.h"
#include "runtime/eqsat/rule_file.h"
#include "runtime/eqsat/runner.h"
#include "runtime/eqsat/term.h"

namespace {

using namespace augur::eqsat;

constexpr const char* kUsage = R"(usage: augur_eqsat RULES TERMS [options]

Saturates each term of TERMS with the rules of RULES, then prints why it
stopped, the smallest equal term (egg's AstSize) and whether each goal was
reached. Exit status: 0 if every goal was reached, 1 if not, 2 on an error.

options:
  --budget jit|egg   start from the JIT budget (default: 8 iterations,
                     6,000 e-nodes, 10 ms) or egg's Runner defaults (30,
                     10,000, 5 s)
  --iterations N     iteration limit
  --nodes N          e-node limit
  --time-ms N        time limit in milliseconds
  --threads N        search threads (default 1; results do not depend on it)
  --no-backoff       apply every match of every rule (no backoff scheduler)
  --explain          record explanations; print a proof of each goal reached
  --report           print per-iteration statistics

RULES holds one rule per statement, in egg's pattern syntax:
  comm-add: (+ ?a ?b) => (+ ?b ?a)
  zero-add: (+ ?a 0) <=> ?a
  div-canon: (/ ?a ?b) => (* ?a (pow ?b -1)) if (not-zero ?b)
  pair: ?x = (f ?a), ?y = (g ?a) => ?x = ?y
Guards: (not-zero ?x) (is-const ?x) (is-sym ?x) (const-or-distinct ?c ?x),
egg's tests/math.rs conditions. Numbers fold as doubles under + - * /.

TERMS holds one term per statement, each optionally followed by goals:
  (+ 1 (- a (* (- 2 1) a))) => 1

A statement ends at the end of a line unless a parenthesis is open or the line
ends with (or the next begins with) => <=> , = or if. ';' starts a comment.
)";

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw jit::error("cannot read '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t parse_count(std::string_view flag, const char* value) {
  std::size_t n = 0;
  const std::string_view v = value ? value : "";
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size())
    throw jit::error(std::string(flag) + " needs a number, got '" + std::string(v) + "'");
  return n;
}

double ms(std::chrono::nanoseconds d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

int run(int argc, char** argv) {
  std::string rules_path, terms_path;
  RunOptions options;
  std::optional<std::size_t> iterations, nodes, time_ms;
  bool explain = false, per_iteration = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const auto value = [&] { return i + 1 < argc ? argv[++i] : nullptr; };
    if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      return 0;
    } else if (arg == "--budget") {
      const std::string_view b = value() ? argv[i] : "";
      if (b == "jit")
        options.limits = Limits::jit();
      else if (b == "egg")
        options.limits = Limits::egg();
      else
        throw jit::error("--budget is jit or egg");
    } else if (arg == "--iterations") {
      iterations = parse_count(arg, value());
    } else if (arg == "--nodes") {
      nodes = parse_count(arg, value());
    } else if (arg == "--time-ms") {
      time_ms = parse_count(arg, value());
    } else if (arg == "--threads") {
      options.threads = static_cast<unsigned>(parse_count(arg, value()));
    } else if (arg == "--no-backoff") {
      options.backoff.enabled = false;
    } else if (arg == "--explain") {
      explain = true;
    } else if (arg == "--report") {
      per_iteration = true;
    } else if (arg.starts_with("-")) {
      throw jit::error("unknown option '" + std::string(arg) + "' (see --help)");
    } else if (rules_path.empty()) {
      rules_path = arg;
    } else if (terms_path.empty()) {
      terms_path = arg;
    } else {
      throw jit::error("too many files (see --help)");
    }
  }
  if (terms_path.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  if (iterations) options.limits.iterations = *iterations;
  if (nodes) options.limits.nodes = *nodes;
  if (time_ms) options.limits.time = std::chrono::milliseconds(*time_ms);

  SymbolLanguage language;
  const std::string rules_text = read_file(rules_path);
  const std::vector<Rewrite> rules =
      parse_rules(rules_text, language, math::guards(language), rules_path);
  const std::string terms_text = read_file(terms_path);
  const std::vector<TermEntry> entries = parse_terms(terms_text, language, terms_path);

  Runner runner(options);
  bool all_reached = true;
  for (const TermEntry& entry : entries) {
    EGraph egraph(EGraphOptions{.explanations = explain});
    math::add_constant_folding(egraph, language);
    const Id start = add_term_exact(egraph, entry.start);
    const Id root = egraph.find(start);
    const Report report = runner.run(egraph, rules);
    const Extractor extractor(egraph, ast_size());
    std::cout << "term " << print_term(entry.start, language) << "\n  " << report.summary()
              << "\n  best: " << print_term(extractor.extract(root), language) << "   (cost "
              << *extractor.cost(root) << ")\n";
    if (per_iteration) {
      for (std::size_t i = 0; i < report.per_iteration.size(); ++i) {
        const IterationReport& it = report.per_iteration[i];
        std::printf(
            "  iteration %zu: %zu e-nodes, %zu classes, %zu matches, %zu applied, "
            "%zu congruences, search %.3f ms, apply %.3f ms, rebuild %.3f ms\n",
            i, it.nodes, it.classes, it.matches, it.applied, it.congruences, ms(it.search),
            ms(it.apply), ms(it.rebuild));
      }
    }
    for (const Term& goal : entry.goals) {
      const std::optional<Id> found = lookup_term(egraph, goal);
      const bool reached = found && egraph.equivalent(*found, root);
      all_reached = all_reached && reached;
      std::cout << "  goal " << print_term(goal, language) << ": "
                << (reached ? "reached" : "NOT reached") << "\n";
      if (reached && explain) {
        const Proof proof = egraph.explanations()->prove(start, add_term_exact(egraph, goal));
        std::cout << print_proof(proof, egraph, language);
      }
    }
  }
  return all_reached ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "augur_eqsat: " << e.what() << "\n";
    return 2;
  }
}
