// The DFA family: a matcher compiled from a DFA, as a lexer generator would
// write it. A dyn loop reads the text; the current state, a dyn variable, is
// dispatched by a binary decision tree over the state numbers, and in each
// state the byte by a binary tree over the state's character-class bounds,
// down to `state = target` (and a count of the positions where the DFA
// accepts). The DFA is random: `states` states, 8 classes each.
//
// The trees are built by a static loop whose dyn branch narrows a static
// range: the two outcomes continue in different static states, so the code
// after the branch is not shared and the fork becomes the tree, while the
// replay of a leaf's run passes only the conditions on its path. Staging
// costs O(n log n) operations for n leaves. (An `else if` chain over the
// states would replay every earlier condition, O(states²), and nest as deep
// as there are states.)
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/corpus/families.h"
#include "bench/corpus/rng.h"

namespace augur::bench::corpus {
namespace {

constexpr int kClasses = 8;
constexpr std::size_t kText = 4096;

struct Dfa {
  // Per state, ascending class upper bounds (the last is 256) and the target of each class.
  std::vector<std::vector<int>> bounds;
  std::vector<std::vector<int>> targets;
  std::vector<bool> accepting;
};

Dfa random_dfa(int states, std::uint64_t seed) {
  Rng rng(seed);
  Dfa dfa;
  for (int s = 0; s < states; ++s) {
    std::vector<int> bounds;
    while (static_cast<int>(bounds.size()) < kClasses - 1) {
      const int b = static_cast<int>(rng.between(1, 255));
      if (std::find(bounds.begin(), bounds.end(), b) == bounds.end()) bounds.push_back(b);
    }
    std::sort(bounds.begin(), bounds.end());
    bounds.push_back(256);
    std::vector<int> targets;
    for (int c = 0; c < kClasses; ++c) targets.push_back(static_cast<int>(rng.below(states)));
    dfa.bounds.push_back(std::move(bounds));
    dfa.targets.push_back(std::move(targets));
    dfa.accepting.push_back(rng.below(4) == 0);
  }
  return dfa;
}

// The state's transition on byte `c`: a binary tree over its class bounds.
void transition(const Dfa& dfa, int from, const jit::dyn<int>& c, jit::dyn<int>& state,
                jit::dyn<int>& matches) {
  jit::stat<int> lo = 0, hi = kClasses;  // the class is in [lo, hi)
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (c < dfa.bounds[from][mid - 1]) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  const int target = dfa.targets[from][lo];
  state = target;
  if (dfa.accepting[target]) matches += 1;
}

jit::dyn<int> match(jit::dyn<const std::uint8_t*> text, jit::dyn<int> length, const Dfa& dfa) {
  jit::dyn<int> state("state", 0), matches("matches", 0);
  for (jit::dyn<int> i("i", 0); i < length; ++i) {
    const jit::dyn<int> c("c", text[i]);
    jit::stat<int> lo = 0, hi = static_cast<int>(dfa.bounds.size());  // the state is in [lo, hi)
    while (hi - lo > 1) {
      const int mid = (lo + hi) / 2;
      if (state < mid) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    transition(dfa, lo, c, state, matches);
  }
  return matches;
}

}  // namespace

Program make_dfa(std::size_t states) {
  if (states < 2 || states > 1'000'000)
    throw jit::error("corpus: a DFA needs between 2 and 1,000,000 states");
  Program p;
  p.family = "dfa";
  p.size = states;
  p.name = "dfa_" + std::to_string(states);
  p.description = "DFA matcher, " + std::to_string(states) + " states x " +
                  std::to_string(kClasses) + " byte classes, decision trees";
  p.params = {
      {"text", ir::type_of<const std::uint8_t*>(), kText, 0, 255, false},
      {"length", ir::Type::i32(), 0, 0, static_cast<double>(kText), false},
  };
  p.stage = [name = p.name, dfa = random_dfa(static_cast<int>(states), states)] {
    jit::extract_options options;
    options.name = name;
    options.param_names = {"text", "length"};
    return jit::extract(options, match, dfa);
  };
  return p;
}

}  // namespace augur::bench::corpus
