#include <gtest/gtest.h>

#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>

#include "jit/jit.h"

namespace {

void show(const char* what, const jit::extraction& e) {
  std::cout << "==== " << what << "\n" << e.ir() << e.report().str() << "\n";
}

jit::dyn<int> seq_ifs(jit::dyn<int> x, int n) {
  jit::dyn<int> s = 0;
  for (jit::stat<int> i = 0; i < n; ++i) {
    if (((x >> i) & 1) == 1) s = s + (1 << i);
  }
  return s;
}

jit::dyn<int> nested(jit::dyn<int> n, jit::dyn<int> m) {
  jit::dyn<int> s = 0;
  for (jit::dyn<int> i = 0; i < n; ++i) {
    if (i == 7) break;
    for (jit::dyn<int> j = 0; j < m; j = j + 1) {
      if ((j & 1) == 0) continue;
      if (j > i) break;
      s = s + i * j;
    }
  }
  return s;
}

[[gnu::noinline]] void bump(jit::dyn<int>& x) {
  x = x + 1;
}
inline void bump_inline(jit::dyn<int>& x) {
  x = x * 2;
}

jit::dyn<int> helper_twice(jit::dyn<int> x) {
  bump(x);
  bump(x);
  bump_inline(x);
  bump_inline(x);
  return x;
}

jit::dyn<int> ternary(jit::dyn<int> x, jit::dyn<int> y) {
  jit::dyn<int> z = x > y ? x : y;
  return z + (x < 0 ? -x : x);
}

jit::dyn<int> early(jit::dyn<int> x) {
  if (x < 0) return -x;
  jit::dyn<int> y = x * 2;
  if (y > 100) return y - 100;
  return y;
}

void store_loop(jit::dyn<float*> a, jit::dyn<int> n) {
  for (jit::dyn<int> i = 0; i < n; ++i) {
    if (a[i] < 0.0f) a[i] = 0.0f;
    a[i] *= 2.0f;
  }
}

jit::dyn<int> search(jit::dyn<const int*> a, jit::dyn<int> n, jit::dyn<int> key) {
  for (jit::dyn<int> i = 0; i < n; ++i) {
    if (a[i] == key) return i;
  }
  return -1;
}

jit::dyn<int> do_while(jit::dyn<int> x) {
  jit::dyn<int> c = 0;
  do {
    x = x / 2;
    ++c;
  } while (x > 0);
  return c;
}

TEST(Smoke, Shapes) {
  show("seq_ifs", jit::extract(seq_ifs, 32));
  show("nested", jit::extract(nested));
  show("helper_twice", jit::extract(helper_twice));
  show("ternary", jit::extract(ternary));
  show("early", jit::extract(early));
  show("store_loop", jit::extract(store_loop));
  show("search", jit::extract(search));
  show("do_while", jit::extract(do_while));
}

}  // namespace

namespace {

int match(const std::string& p, int pc) {
  int depth = 0;
  const int step = p[pc] == '[' ? 1 : -1;
  for (int i = pc;; i += step) {
    if (p[i] == '[') depth += step;
    if (p[i] == ']') depth -= step;
    if (depth == 0) return i;
  }
}

jit::dyn<int> bf(jit::dyn<std::uint8_t*> tape, jit::dyn<const std::uint8_t*> in,
                 jit::dyn<std::uint8_t*> out, const std::string& program) {
  jit::dyn<int> ptr("ptr", 0), ip("ip", 0), op("op", 0);
  for (jit::stat<int> pc = 0; pc < static_cast<int>(program.size()); ++pc) {
    switch (program[pc]) {
      case '>':
        ptr = ptr + 1;
        break;
      case '<':
        ptr = ptr - 1;
        break;
      case '+':
        tape[ptr] = tape[ptr] + 1;
        break;
      case '-':
        tape[ptr] = tape[ptr] - 1;
        break;
      case '.':
        out[op] = tape[ptr];
        op = op + 1;
        break;
      case ',':
        tape[ptr] = in[ip];
        ip = ip + 1;
        break;
      case '[':
        if (tape[ptr] == 0) pc = match(program, pc);
        break;
      case ']':
        if (tape[ptr] != 0) pc = match(program, pc);
        break;
    }
  }
  return op;
}

TEST(Smoke, Bf) {
  show("bf", jit::extract(bf, std::string(",[->+>+<<]>[-<+>]>[[-]<<.>>]")));
}

jit::dyn<int> rec(jit::dyn<int> n) {
  if (n == 0) return 1;
  return n * rec(n - 1);
}

TEST(Smoke, Errors) {
  try {
    jit::extract(rec);
  } catch (const jit::error& e) {
    std::cout << "rec: " << e.what() << "\n";
  }
  auto plain_loop = [](jit::dyn<int> x) {
    for (int i = 0; i < 3; ++i) x = x + 1;
    return x;
  };
  try {
    jit::extract(plain_loop);
  } catch (const jit::error& e) {
    std::cout << "plain: " << e.what() << "\n";
  }
  auto plain_loop2 = [](jit::dyn<int> x) {
    for (int i = 0; i < 3; ++i) {
      if (x > 0) x = x + 1;
      x = x * i;
    }
    return x;
  };
  try {
    show("plain2", jit::extract(plain_loop2));
  } catch (const jit::error& e) {
    std::cout << "plain2: " << e.what() << "\n";
  }
  auto plain_loop3 = [](jit::dyn<int> x) {
    for (int i = 0; i < 3; ++i) {
      x = x * i;
      if (x > 0) x = x + 1;
    }
    return x;
  };
  try {
    show("plain3", jit::extract(plain_loop3));
  } catch (const jit::error& e) {
    std::cout << "plain3: " << e.what() << "\n";
  }
  static int counter = 0;
  auto nondet = [](jit::dyn<int> x) {
    if (x > 0) x = x + 1;
    x = x + (counter++);
    return x;
  };
  try {
    show("nondet", jit::extract(nondet));
  } catch (const jit::error& e) {
    std::cout << "nondet: " << e.what() << "\n";
  }
  auto thrower = [](jit::dyn<int> x) {
    if (x > 0) throw std::runtime_error("boom");
    return x;
  };
  try {
    jit::extract(thrower);
  } catch (const jit::error& e) {
    std::cout << "throw: " << e.what() << "\n";
  }
  auto unroll = [](jit::dyn<int> x) {
    jit::stat<int> k = 0;
    while (x > 0) {
      x = x - k;
      ++k;
    }
    return x;
  };
  jit::extract_options small;
  small.max_nodes = 1000;
  try {
    jit::extract(small, unroll);
  } catch (const jit::error& e) {
    std::cout << "unroll: " << e.what() << "\n";
  }
  std::optional<jit::dyn<int>> leaked;
  auto leak = [&](jit::dyn<int> x) {
    leaked.emplace(std::move(x));
    return 0;
  };
  jit::extract(leak);
  try {
    *leaked = 3;
  } catch (const jit::error& e) {
    std::cout << "leak: " << e.what() << "\n";
  }
}

}  // namespace
