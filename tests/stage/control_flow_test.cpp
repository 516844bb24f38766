// Any control flow a first stage makes is extracted (docs/staging.md,
// "Control flow"): exits that leave several loops at once, loops entered at
// more than one point (node splitting, or a dispatch loop past its bound).
// The staged matcher shapes of issue 14 (a DFA in the direct style: the state
// static, a dyn test on the next byte, a static jump to the next state's code)
// are compared with goldens, and run in the interpreter and compiled (O0, and
// O2 with the PEG optimizer) against plain C++ on random texts. Their goldens
// are in golden/text/: they read the `n` bytes of a text, so they are not
// safe on the arbitrary arguments tests/jit/differential_test.cpp gives the
// programs of golden/.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "jit/jit.h"
#include "runtime/ir/visit.h"
#include "support.h"

namespace augur::stage::testing {
namespace {

using Text = std::vector<std::uint8_t>;

// Texts over a small alphabet, so that matches are frequent; the empty text
// and one-byte texts included.
std::vector<Text> random_texts(std::uint32_t seed, std::string_view alphabet, int count) {
  std::mt19937 rng(seed);
  std::vector<Text> out{{}, {static_cast<std::uint8_t>(alphabet[0])}};
  while (static_cast<int>(out.size()) < count) {
    Text t(rng() % 40);
    for (std::uint8_t& c : t) c = static_cast<std::uint8_t>(alphabet[rng() % alphabet.size()]);
    out.push_back(std::move(t));
  }
  return out;
}

int size_of(const Text& t) {
  return static_cast<int>(t.size());
}

// ---------------------------------------------------------------- the shapes

// Where "abc" first occurs, or -1. `state` is how much of "abc" the text read
// so far ends with: a DFA of three states in the direct style. From states 1
// and 2 a mismatch goes back to state 0, the header of the outer loop, from
// inside the loops of states 1 and 2: an exit of two loops at once.
jit::dyn<int> search_abc(jit::dyn<const std::uint8_t*> s, jit::dyn<int> n) {
  jit::dyn<int> i = 0;
  jit::stat<int> state = 0;
  while (i < n) {
    const jit::dyn<int> c("c", s[i]);
    i = i + 1;
    jit::stat<int> next = 0;
    if (c == 'a') {
      next = 1;
    } else if (state == 1) {
      if (c == 'b') next = 2;
    } else if (state == 2) {
      if (c == 'c') return i - 3;
    }
    state = next;
  }
  return -1;
}

int plain_search_abc(const std::uint8_t* s, int n) {
  const std::string_view text(reinterpret_cast<const char*>(s), static_cast<std::size_t>(n));
  const std::size_t at = text.find("abc");
  return at == std::string_view::npos ? -1 : static_cast<int>(at);
}

// Whether the text has an odd number of 'x' bytes. The first byte chooses the
// start state: the loop over the rest is entered in state 0 or state 1, and
// each state's code jumps to the other's. No state is reached first on every
// path: the loop is irreducible.
jit::dyn<int> parity_x(jit::dyn<const std::uint8_t*> s, jit::dyn<int> n) {
  jit::stat<int> odd = 0;
  jit::dyn<int> i = 1;
  if (n <= 0) return 0;
  if (s[0] == 'x') odd = 1;
  while (i < n) {
    if (s[i] == 'x') odd = 1 - odd;
    i = i + 1;
  }
  return static_cast<int>(odd);
}

int plain_parity_x(const std::uint8_t* s, int n) {
  int odd = 0;
  for (int i = 0; i < n; ++i) odd ^= s[i] == 'x' ? 1 : 0;
  return odd;
}

jit::extract_options named(std::string name, std::uint64_t max_split_nodes = 4096) {
  jit::extract_options options;
  options.name = std::move(name);
  options.param_names = {"s", "n"};
  options.max_split_nodes = max_split_nodes;
  return options;
}

using Staged = jit::dyn<int> (*)(jit::dyn<const std::uint8_t*>, jit::dyn<int>);
using Plain = int (*)(const std::uint8_t*, int);

// The extraction in the interpreter, and compiled at O0 and at O2 (the PEG
// optimizer included), against the plain function on every text.
void expect_agrees(const jit::extraction& e, Staged staged, Plain plain,
                   const jit::extract_options& options, const std::vector<Text>& texts) {
  const ir::Interpreter interp = interpreter(e);
  jit::compile_options o0;
  o0.opt_level = 0;
  o0.extraction = options;
  jit::compile_options o2 = o0;
  o2.opt_level = 2;
  const jit::function<int(const std::uint8_t*, int)> at_o0 = jit::compile(o0, staged);
  const jit::function<int(const std::uint8_t*, int)> at_o2 = jit::compile(o2, staged);
  for (const Text& t : texts) {
    const std::string shown(t.begin(), t.end());
    const int want = plain(t.data(), size_of(t));
    EXPECT_EQ(run<int>(interp, t.data(), size_of(t)), want) << shown;
    EXPECT_EQ(at_o0(t.data(), size_of(t)), want) << shown;
    EXPECT_EQ(at_o2(t.data(), size_of(t)), want) << shown;
  }
}

// The deepest `break` or `continue` in `block`: how many loops it leaves.
std::uint32_t widest_exit(const ir::Block& block) {
  std::uint32_t widest = 0;
  ir::for_each_stmt(block, [&](const ir::Stmt& s) {
    if (s.kind == ir::StmtKind::Break || s.kind == ir::StmtKind::Continue) {
      widest = std::max(widest, s.levels);
    }
  });
  return widest;
}

// ---------------------------------------------------------------- tests

TEST(ControlFlow, SearchForALiteralLeavesTwoLoopsAtOnce) {
  const jit::extract_options options = named("search_abc");
  const jit::extraction e = jit::extract(options, search_abc);
  EXPECT_TRUE(matches_golden("text/search_abc", e.ir()));
  EXPECT_EQ(widest_exit(function_of(e).body), 2u);
  EXPECT_EQ(e.report().irreducible_split + e.report().irreducible_dispatched, 0u);
  expect_agrees(e, search_abc, plain_search_abc, options, random_texts(14, "abcx", 400));
}

TEST(ControlFlow, IrreducibleLoopIsSplitWithinTheBound) {
  const jit::extract_options options = named("parity_x");
  const jit::extraction e = jit::extract(options, parity_x);
  EXPECT_TRUE(matches_golden("text/parity_x_split", e.ir()));
  EXPECT_EQ(e.report().irreducible_split, 1u);
  EXPECT_EQ(e.report().irreducible_dispatched, 0u);
  EXPECT_GT(e.report().split_copies, 0u);
  EXPECT_NE(e.report().str().find("irreducible loops split 1"), std::string::npos);
  expect_agrees(e, parity_x, plain_parity_x, options, random_texts(15, "xy", 400));
}

TEST(ControlFlow, IrreducibleLoopPastTheBoundIsADispatchLoop) {
  const jit::extract_options options = named("parity_x_dispatch", 0);
  const jit::extraction e = jit::extract(options, parity_x);
  EXPECT_TRUE(matches_golden("text/parity_x_dispatch", e.ir()));
  EXPECT_EQ(e.report().irreducible_split, 0u);
  EXPECT_EQ(e.report().irreducible_dispatched, 1u);
  EXPECT_EQ(e.report().split_copies, 0u);
  expect_agrees(e, parity_x, plain_parity_x, options, random_texts(16, "xy", 400));
}

// Code where the paths of a branch meet at two places: the `k == 2` code is
// reached from the inner else and the outer else (static state merges the
// paths across C++ scopes), the last statement from every path. Each is
// emitted once: the `k == 2` code after a block that both elses leave (its
// four statements cost more twice than a block and two breaks).
int count_assignments(const ir::Block& block, const ir::Function& fn, std::string_view var) {
  int n = 0;
  ir::for_each_stmt(block, [&](const ir::Stmt& s) {
    if (s.kind == ir::StmtKind::Assign && fn.var(s.var).name == var) ++n;
  });
  return n;
}

jit::dyn<int> shared_continuations(jit::dyn<int> x, jit::dyn<int> y) {
  jit::dyn<int> r("r", 1);
  jit::dyn<int> q("q", 0);
  jit::stat<int> k = 0;
  if (x > 0) {
    if (y > 0) {
      r = r + x * y;
      k = 1;
    } else {
      k = 2;
    }
  } else {
    k = 2;
  }
  if (k == 2) {
    q = r * 3 + x;
    r = q - y;
    q = q ^ r;
    r = r + (q & 15);
  }
  k = 0;
  return r + 7;
}

int plain_shared_continuations(int x, int y) {
  int r = 1;
  if (x > 0 && y > 0) {
    r = r + x * y;
  } else {
    const int q = r * 3 + x;
    r = q - y;
    r = r + ((q ^ r) & 15);
  }
  return r + 7;
}

TEST(ControlFlow, CodeWherePathsMeetIsEmittedOnce) {
  jit::extract_options options;
  options.name = "shared_continuations";
  options.param_names = {"x", "y"};
  const jit::extraction e = jit::extract(options, shared_continuations);
  EXPECT_TRUE(matches_golden("shared_continuations", e.ir()));
  EXPECT_EQ(count_assignments(function_of(e).body, function_of(e), "q"), 2);
  EXPECT_EQ(e.report().control_flow_runs, 3u);
  const ir::Interpreter interp = interpreter(e);
  for (int x = -5; x <= 5; ++x) {
    for (int y = -5; y <= 5; ++y) {
      EXPECT_EQ(run<int>(interp, x, y), plain_shared_continuations(x, y)) << x << ", " << y;
    }
  }
}

// A random DFA of 26 states over "abcd" (any other byte goes to state 0),
// written in the direct style; it counts the positions where it accepts.
struct Dfa {
  std::vector<std::array<int, 4>> next;
  std::vector<bool> accepting;
};

Dfa random_dfa(int states, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Dfa dfa;
  for (int s = 0; s < states; ++s) {
    std::array<int, 4> next{};
    for (int& t : next) t = static_cast<int>(rng() % static_cast<unsigned>(states));
    dfa.next.push_back(next);
    dfa.accepting.push_back(rng() % 4 == 0);
  }
  return dfa;
}

jit::dyn<int> count_accepts(jit::dyn<const std::uint8_t*> s, jit::dyn<int> n, const Dfa& dfa) {
  jit::dyn<int> i = 0;
  jit::dyn<int> count = 0;
  jit::stat<int> state = 0;
  while (i < n) {
    const jit::dyn<int> c("c", s[i]);
    i = i + 1;
    jit::stat<int> next = 0;
    for (jit::stat<int> k = 0; k < 4; ++k) {
      if (c == 'a' + k) {
        next = dfa.next[static_cast<std::size_t>(state)][static_cast<std::size_t>(k)];
        break;
      }
    }
    state = next;
    if (dfa.accepting[static_cast<std::size_t>(state)]) count = count + 1;
  }
  return count;
}

int plain_count_accepts(const std::uint8_t* s, int n, const Dfa& dfa) {
  int state = 0;
  int count = 0;
  for (int i = 0; i < n; ++i) {
    const int k = s[i] - 'a';
    state = k >= 0 && k < 4 ? dfa.next[static_cast<std::size_t>(state)][static_cast<std::size_t>(k)]
                            : 0;
    if (dfa.accepting[static_cast<std::size_t>(state)]) ++count;
  }
  return count;
}

// Both strategies on a DFA of 26 states whose loops nest nowhere. Runs stay
// 1 + the dyn branch points (a test per byte class and the loop's test, per
// state).
TEST(ControlFlow, TwentySixStateDfaInTheDirectStyle) {
  const Dfa dfa = random_dfa(26, 26);
  const std::vector<Text> texts = random_texts(17, "abcde", 300);
  for (const std::uint64_t bound : {std::uint64_t{4096}, std::uint64_t{0}}) {
    jit::extract_options options = named("dfa26", bound);
    const jit::extraction e = jit::extract(options, count_accepts, dfa);
    const jit::stage_report& r = e.report();
    std::cout << "26-state DFA, max_split_nodes " << bound << ": " << r.str() << "\n";
    EXPECT_LE(r.control_flow_runs, 1u + 26u * 5u);
    EXPECT_GE(r.irreducible_split + r.irreducible_dispatched, 1u);
    if (bound == 0) {
      EXPECT_EQ(r.irreducible_split, 0u);
    }
    const ir::Interpreter interp = interpreter(e);
    for (const Text& t : texts) {
      EXPECT_EQ(run<int>(interp, t.data(), size_of(t)),
                plain_count_accepts(t.data(), size_of(t), dfa))
          << std::string(t.begin(), t.end());
    }
  }
}

}  // namespace
}  // namespace augur::stage::testing
