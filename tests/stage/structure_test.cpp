// Control flow written in C++ comes out as structured IR: each program runs in
// the interpreter against its plain C++ twin on many inputs, and the shape of
// its IR is checked where it matters.
#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <random>
#include <vector>

#include "jit/jit.h"
#include "runtime/ir/visit.h"
#include "support.h"
#include "tests/support/small_stack.h"

namespace augur::stage::testing {
namespace {

int count(const jit::extraction& e, ir::StmtKind kind) {
  return count_statements(function_of(e).body, kind);
}

// Runs the extracted program and `plain` on every (a, b) of a grid.
template <class Plain>
void expect_same_on_grid(const jit::extraction& e, Plain plain, int lo = -12, int hi = 12) {
  const ir::Interpreter interp = interpreter(e);
  for (int a = lo; a <= hi; ++a) {
    for (int b = lo; b <= hi; b += 3)
      EXPECT_EQ(run<int>(interp, a, b), plain(a, b)) << a << ", " << b;
  }
}

TEST(Structure, TernaryForksAndMerges) {
  auto staged = [](jit::dyn<int> x, jit::dyn<int> y) {
    jit::dyn<int> z = x > y ? x : y;
    return z + (x < 0 ? -x : x);
  };
  auto plain = [](int x, int y) { return (x > y ? x : y) + (x < 0 ? -x : x); };
  const jit::extraction e = jit::extract(staged);
  // The second run takes both `else`s.
  EXPECT_EQ(e.report().control_flow_runs, 2u);
  expect_same_on_grid(e, plain);
}

TEST(Structure, EarlyReturns) {
  auto staged = [](jit::dyn<int> x, jit::dyn<int> y) -> jit::dyn_expr<int> {
    if (x < 0) return -x;
    jit::dyn<int> z = x * 2;
    if (z > y) return z - y;
    return z + y;
  };
  auto plain = [](int x, int y) {
    if (x < 0) return -x;
    const int z = x * 2;
    if (z > y) return z - y;
    return z + y;
  };
  const jit::extraction e = jit::extract(staged);
  EXPECT_EQ(count(e, ir::StmtKind::Return), 3);
  expect_same_on_grid(e, plain);
}

// A dispatch on a static table: one early return per entry. Each if's
// other arm is the rest of the chain; the structurer emits the chain in a
// loop (it recursed once per entry, past a small stack's end), and the
// program stays flat.
jit::dyn<int> dispatch(jit::dyn<int> x, jit::dyn<int> y, int entries) {
  for (jit::stat<int> i = 0; i < entries; ++i) {
    if (x == i) return y * i;
  }
  return -y;
}

TEST(Structure, AChainOfEarlyReturnsIsFlatAndNeedsNoDeepStack) {
  // About 2 s in the dev build: each return ends a run, so extraction
  // replays the chain once per entry (quadratic in the entries).
  constexpr int kEntries = 3000;
  std::optional<jit::extraction> e;
  augur::testing::on_small_stack([&] { e.emplace(jit::extract(dispatch, kEntries)); });
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(count(*e, ir::StmtKind::Return), kEntries + 1);
  EXPECT_EQ(ir::nesting_depth(function_of(*e).body), 2u);  // an if holding its return
  expect_same_on_grid(
      *e, [](int x, int y) { return x >= 0 && x < kEntries ? y * x : -y; }, -5, 12);
  const ir::Interpreter interp = interpreter(*e);
  EXPECT_EQ(run<int>(interp, kEntries - 1, 2), 2 * (kEntries - 1));
}

TEST(Structure, ReturnInsideALoop) {
  auto staged = [](jit::dyn<int> x, jit::dyn<int> y) {
    for (jit::dyn<int> i = 0; i < 20; ++i) {
      if (i * i > x + y) return i;
      if (i == y) break;
    }
    return jit::dyn<int>(-1);
  };
  auto plain = [](int x, int y) {
    for (int i = 0; i < 20; ++i) {
      if (i * i > x + y) return i;
      if (i == y) break;
    }
    return -1;
  };
  const jit::extraction e = jit::extract(staged);
  EXPECT_EQ(count(e, ir::StmtKind::For), 1);
  expect_same_on_grid(e, plain);
}

TEST(Structure, DoWhileAndWhileTrueWithBreak) {
  auto staged = [](jit::dyn<int> x, jit::dyn<int> y) {
    jit::dyn<int> c = 0;
    do {
      x = x / 2;
      ++c;
    } while (x > 0);
    while (true) {
      y = y + 3;
      if (y > 10) break;
      c = c + 1;
    }
    return c * 100 + y;
  };
  auto plain = [](int x, int y) {
    int c = 0;
    do {
      x = x / 2;
      ++c;
    } while (x > 0);
    while (true) {
      y = y + 3;
      if (y > 10) break;
      c = c + 1;
    }
    return c * 100 + y;
  };
  const jit::extraction e = jit::extract(staged);
  EXPECT_EQ(count(e, ir::StmtKind::While), 2);
  expect_same_on_grid(e, plain);
}

TEST(Structure, VoidFunctionWithEarlyReturnAndStores) {
  auto staged = [](jit::dyn<int*> out, jit::dyn<int> n) {
    for (jit::dyn<int> i = 0; i < 8; ++i) {
      if (i == n) return;
      out[i] = i * n;
    }
    out[0] = -1;
  };
  const jit::extraction e = jit::extract(staged);
  const ir::Interpreter interp = interpreter(e);
  for (int n = -1; n < 10; ++n) {
    std::array<int, 8> got{}, want{};
    run<void>(interp, got.data(), n);
    [&] {
      for (int i = 0; i < 8; ++i) {
        if (i == n) return;
        want[i] = i * n;
      }
      want[0] = -1;
    }();
    EXPECT_EQ(got, want) << n;
  }
}

TEST(Structure, BreakOutOfAStaticLoopNestsIfs) {
  auto staged = [](jit::dyn<int> x, jit::dyn<int> y) {
    jit::dyn<int> found = -1;
    for (jit::stat<int> i = 0; i < 6; ++i) {
      if (x == i * y) {
        found = i;
        break;
      }
    }
    return found;
  };
  auto plain = [](int x, int y) {
    for (int i = 0; i < 6; ++i) {
      if (x == i * y) return i;
    }
    return -1;
  };
  const jit::extraction e = jit::extract(staged);
  EXPECT_EQ(e.report().control_flow_runs, 7u);
  expect_same_on_grid(e, plain);
}

TEST(Structure, StaticStateSetUnderADynBranch) {
  // `scale` depends on the path: the code after the ifs differs per path and
  // merges again once the static state agrees.
  auto staged = [](jit::dyn<int> x, jit::dyn<int> y) {
    jit::stat<int> scale = 1;
    if (x > 0) {
      if (y > 0) {
        scale = 2;
      } else {
        scale = 3;
      }
    } else {
      scale = 2;
    }
    jit::dyn<int> r = x * scale;
    r = r + y;
    scale = 0;
    r = r * 7;
    return r;
  };
  auto plain = [](int x, int y) {
    int scale = 1;
    if (x > 0) {
      scale = y > 0 ? 2 : 3;
    } else {
      scale = 2;
    }
    return (x * scale + y) * 7;
  };
  const jit::extraction e = jit::extract(staged);
  expect_same_on_grid(e, plain);
}

TEST(Structure, ContinueInWhileLoops) {
  auto staged = [](jit::dyn<int> x, jit::dyn<int> y) {
    jit::dyn<int> s = 0;
    jit::dyn<int> i = 0;
    while (i < 30) {
      i = i + 1;
      if (i % 3 == 0) continue;
      if (i > x + 20) break;
      s = s + i * y;
    }
    return s;
  };
  auto plain = [](int x, int y) {
    int s = 0, i = 0;
    while (i < 30) {
      i = i + 1;
      if (i % 3 == 0) continue;
      if (i > x + 20) break;
      s = s + i * y;
    }
    return s;
  };
  expect_same_on_grid(jit::extract(staged), plain);
}

TEST(Structure, RandomNestedPrograms) {
  // Programs built by a static recipe: nested dyn ifs and loops with breaks,
  // continues and returns chosen by the seed, each against its plain twin.
  struct Recipe {
    std::vector<int> ops;  // consumed in order by both versions
  };
  for (int seed = 0; seed < 40; ++seed) {
    std::mt19937 rng(seed);
    Recipe recipe;
    for (int k = 0; k < 24; ++k) recipe.ops.push_back(static_cast<int>(rng() % 7));

    // The same recipe, interpreted twice: staged and plain.
    auto staged = [](jit::dyn<int> x, jit::dyn<int> y, const Recipe& r) {
      jit::dyn<int> acc = 0;
      for (jit::stat<std::size_t> k = 0; k < r.ops.size(); ++k) {
        const int op = r.ops[k];
        const int c = static_cast<int>(k);
        if (op == 0) {
          if (x > c - 12) acc = acc + c;
        } else if (op == 1) {
          if ((acc & 1) == 0) {
            acc = acc * 3;
          } else {
            acc = acc - y;
          }
        } else if (op == 2) {
          for (jit::dyn<int> i = 0; i < y % 5; ++i) {
            if (i == c % 3) continue;
            acc = acc + i;
            if (acc > 200) break;
          }
        } else if (op == 3) {
          if (acc > 500 + c) return acc;
        } else if (op == 4) {
          jit::dyn<int> j = x;
          while (j > 0) {
            j = j - 4;
            acc = acc + 1;
          }
        } else if (op == 5) {
          acc = acc ^ (x + c);
        } else {
          acc = x > y ? acc + 1 : acc - 1;
        }
      }
      return acc;
    };
    auto plain = [](int x, int y, const Recipe& r) {
      int acc = 0;
      for (std::size_t k = 0; k < r.ops.size(); ++k) {
        const int op = r.ops[k];
        const int c = static_cast<int>(k);
        if (op == 0) {
          if (x > c - 12) acc = acc + c;
        } else if (op == 1) {
          acc = (acc & 1) == 0 ? acc * 3 : acc - y;
        } else if (op == 2) {
          for (int i = 0; i < y % 5; ++i) {
            if (i == c % 3) continue;
            acc = acc + i;
            if (acc > 200) break;
          }
        } else if (op == 3) {
          if (acc > 500 + c) return acc;
        } else if (op == 4) {
          for (int j = x; j > 0;) {
            j = j - 4;
            acc = acc + 1;
          }
        } else if (op == 5) {
          acc = acc ^ (x + c);
        } else {
          acc = x > y ? acc + 1 : acc - 1;
        }
      }
      return acc;
    };
    const jit::extraction e = jit::extract(staged, recipe);
    const ir::Interpreter interp = interpreter(e);
    for (int x = -13; x <= 13; x += 2) {
      for (int y = -7; y <= 9; y += 4) {
        ASSERT_EQ(run<int>(interp, x, y), plain(x, y, recipe))
            << "seed " << seed << " x " << x << " y " << y << "\n"
            << e.ir();
      }
    }
  }
}

}  // namespace
}  // namespace augur::stage::testing
