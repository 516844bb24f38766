// A regular-expression compiler written as a staged program: the pattern is
// turned into a DFA in the first stage (plain C++), and the matcher walks the
// DFA with the state static. Each DFA state becomes its own code: a dyn test
// of the next byte, then a static jump to the next state's code. What is left
// after staging is the automaton as straight branches and loops, with no
// table and no state variable: the classic compiled-automaton shape. Where
// the DFA would loop on most bytes (a search), it skips with jit::find_sets
// to where a match's first bytes, a run of bytes inside every match, or the
// next line that can match can be (count_lines).
//
// regex.cpp runs it; tests/stage/regex_test.cpp checks it against std::regex
// and RE2; bench/regex_bench.cpp measures it against RE2 and PCRE2's JIT.
//
// Syntax: literals, `.` (any byte but a newline), classes `[a-z]`, `[^...]`,
// escapes `\d \w \s \D \W \S \n \t` and `\` before a punctuation character,
// groups `(...)`, alternation `|`, repetition `* + ? {n} {n,} {n,m}`, `^` at
// the start and `$` at the end of a top-level alternative. No backreferences
// or lookaround (a DFA cannot have them).
#pragma once

#include <algorithm>
#include <array>
#include <bitset>
#include <cctype>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <jit/jit.h>

namespace regex {

// full: whether the whole text matches. lines: how many lines (split at '\n')
// contain a match, with `^` and `$` at each line's start and end, as grep -c.
enum class mode { full, lines };

using ByteSet = std::bitset<256>;

// ------------------------------------------------------------ parsing

// The syntax tree, in a vector: children by index.
struct Node {
  enum Kind { Bytes, Concat, Alt, Repeat, Empty } kind = Empty;
  ByteSet bytes;              // Bytes
  std::vector<int> children;  // Concat, Alt; Repeat has one
  int min = 0, max = -1;      // Repeat: max -1 is unbounded
};

struct Alternative {
  int root;
  bool at_start = false;  // ^
  bool at_end = false;    // $
};

class Parser {
 public:
  explicit Parser(std::string_view pattern) : p_(pattern) {}

  std::vector<Alternative> top_level() {
    std::vector<Alternative> alternatives;
    do {
      Alternative a;
      a.at_start = eat('^');
      std::vector<int> items;
      while (!done() && peek() != '|') {
        if (peek() == '$' && pos_ + 1 == p_.size()) break;
        if (peek() == '$' && pos_ + 1 < p_.size() && p_[pos_ + 1] == '|') break;
        items.push_back(repeat(0));
      }
      a.at_end = eat('$');
      a.root = concat(std::move(items));
      alternatives.push_back(a);
    } while (eat('|'));
    if (!done()) fail("unexpected `" + std::string(1, peek()) + "`");
    return alternatives;
  }

  std::vector<Node> nodes;

 private:
  // Groups nest at most this deep: the parser recurses once per group.
  static constexpr int kMaxDepth = 100;

  bool done() const { return pos_ >= p_.size(); }
  char peek() const { return p_[pos_]; }
  bool eat(char c) {
    if (!done() && peek() == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument("regex: " + what + " at offset " + std::to_string(pos_) + " of `" +
                                std::string(p_) + "`");
  }
  int add(Node n) {
    nodes.push_back(std::move(n));
    return static_cast<int>(nodes.size()) - 1;
  }
  int concat(std::vector<int> items) {
    if (items.size() == 1) return items[0];
    Node n;
    n.kind = items.empty() ? Node::Empty : Node::Concat;
    n.children = std::move(items);
    return add(std::move(n));
  }

  int alternation(int depth) {
    std::vector<int> options;
    do {
      std::vector<int> items;
      while (!done() && peek() != '|' && peek() != ')') items.push_back(repeat(depth));
      options.push_back(concat(std::move(items)));
    } while (eat('|'));
    if (options.size() == 1) return options[0];
    Node n;
    n.kind = Node::Alt;
    n.children = std::move(options);
    return add(std::move(n));
  }

  int number() {
    if (done() || !std::isdigit(static_cast<unsigned char>(peek()))) fail("expected a number");
    int value = 0;
    while (!done() && std::isdigit(static_cast<unsigned char>(peek()))) {
      value = value * 10 + (p_[pos_++] - '0');
      if (value > 1000) fail("a repetition count above 1000");
    }
    return value;
  }

  int repeat(int depth) {
    int item = atom(depth);
    while (!done()) {
      Node n;
      n.kind = Node::Repeat;
      if (eat('*')) {
        n.min = 0;
      } else if (eat('+')) {
        n.min = 1;
      } else if (eat('?')) {
        n.min = 0;
        n.max = 1;
      } else if (eat('{')) {
        n.min = number();
        n.max = n.min;
        if (eat(',')) n.max = !done() && peek() == '}' ? -1 : number();
        if (!eat('}')) fail("expected `}`");
        if (n.max != -1 && n.max < n.min) fail("a repetition {n,m} with m < n");
      } else {
        break;
      }
      n.children = {item};
      item = add(std::move(n));
    }
    return item;
  }

  static ByteSet range(int lo, int hi) {
    ByteSet s;
    for (int b = lo; b <= hi; ++b) s.set(static_cast<std::size_t>(b));
    return s;
  }
  static ByteSet word() {
    return range('a', 'z') | range('A', 'Z') | range('0', '9') | range('_', '_');
  }
  static ByteSet space() { return range(' ', ' ') | range('\t', '\r'); }

  // The bytes of an escape (after the backslash).
  ByteSet escape() {
    if (done()) fail("a pattern ends with `\\`");
    const char c = p_[pos_++];
    switch (c) {
      case 'd':
        return range('0', '9');
      case 'D':
        return ~range('0', '9');
      case 'w':
        return word();
      case 'W':
        return ~word();
      case 's':
        return space();
      case 'S':
        return ~space();
      case 'n':
        return range('\n', '\n');
      case 't':
        return range('\t', '\t');
      default:
        if (std::isalnum(static_cast<unsigned char>(c)))
          fail("unknown escape `\\" + std::string(1, c) + "`");
        return range(static_cast<unsigned char>(c), static_cast<unsigned char>(c));
    }
  }

  ByteSet bracket() {
    const bool negated = eat('^');
    ByteSet set;
    bool first = true;
    while (!done() && (peek() != ']' || first)) {
      first = false;
      if (eat('\\')) {
        set |= escape();
        continue;
      }
      const auto lo = static_cast<unsigned char>(p_[pos_++]);
      if (!done() && peek() == '-' && pos_ + 1 < p_.size() && p_[pos_ + 1] != ']') {
        ++pos_;
        const auto hi = static_cast<unsigned char>(p_[pos_++]);
        if (hi < lo) fail("a class range out of order");
        set |= range(lo, hi);
      } else {
        set.set(lo);
      }
    }
    if (!eat(']')) fail("an unclosed `[`");
    return negated ? ~set : set;
  }

  int atom(int depth) {
    Node n;
    n.kind = Node::Bytes;
    const char c = p_[pos_++];
    switch (c) {
      case '(': {
        if (depth >= kMaxDepth) fail("groups nested more than 100 deep");
        const int inner = alternation(depth + 1);
        if (!eat(')')) fail("an unclosed `(`");
        return inner;
      }
      case '.':
        n.bytes = ~range('\n', '\n');
        break;
      case '[':
        n.bytes = bracket();
        break;
      case '\\':
        n.bytes = escape();
        break;
      case '*':
      case '+':
      case '?':
      case '{':
      case ')':
      case '^':
      case '$':
        --pos_;
        fail("`" + std::string(1, c) + "` where an item was expected");
      default:
        n.bytes.set(static_cast<unsigned char>(c));
    }
    return add(std::move(n));
  }

  std::string_view p_;
  std::size_t pos_ = 0;
};

// ------------------------------------------------------------ NFA

// Thompson's construction: states with one byte-set edge or epsilon edges.
struct Nfa {
  struct State {
    ByteSet bytes;
    int next = -1;  // on a byte in `bytes`
    std::vector<int> epsilon;
  };
  std::vector<State> states;
  int start = -1;
  int accept = -1;      // a match (lines: ends anywhere)
  int accept_eol = -1;  // lines: a match that must end at the end of the line

  int add() {
    states.emplace_back();
    return static_cast<int>(states.size()) - 1;
  }
};

class NfaBuilder {
 public:
  NfaBuilder(Nfa& nfa, const std::vector<Node>& nodes) : nfa_(nfa), nodes_(nodes) {}

  // A fragment for node `n`: its start and its end (which has no edges yet).
  struct Fragment {
    int start, end;
  };

  Fragment build(int n, int depth = 0) {
    if (depth > 400) throw std::invalid_argument("regex: the pattern nests too deep");
    const Node& node = nodes_[static_cast<std::size_t>(n)];
    switch (node.kind) {
      case Node::Empty: {
        const int s = nfa_.add();
        return {s, s};
      }
      case Node::Bytes: {
        const int s = nfa_.add(), e = nfa_.add();
        nfa_.states[static_cast<std::size_t>(s)].bytes = node.bytes;
        nfa_.states[static_cast<std::size_t>(s)].next = e;
        return {s, e};
      }
      case Node::Concat: {
        Fragment f = build(node.children[0], depth + 1);
        for (std::size_t i = 1; i < node.children.size(); ++i) {
          const Fragment g = build(node.children[i], depth + 1);
          link(f.end, g.start);
          f.end = g.end;
        }
        return f;
      }
      case Node::Alt: {
        const int s = nfa_.add(), e = nfa_.add();
        for (int child : node.children) {
          const Fragment g = build(child, depth + 1);
          link(s, g.start);
          link(g.end, e);
        }
        return {s, e};
      }
      case Node::Repeat: {
        const int s = nfa_.add();
        Fragment f{s, s};
        for (int i = 0; i < node.min; ++i) {
          const Fragment g = build(node.children[0], depth + 1);
          link(f.end, g.start);
          f.end = g.end;
        }
        if (node.max == -1) {
          const int loop = nfa_.add(), e = nfa_.add();
          const Fragment g = build(node.children[0], depth + 1);
          link(f.end, loop);
          link(loop, g.start);
          link(loop, e);
          link(g.end, loop);
          f.end = e;
        } else {
          const int e = nfa_.add();
          for (int i = node.min; i < node.max; ++i) {
            const Fragment g = build(node.children[0], depth + 1);
            link(f.end, e);
            link(f.end, g.start);
            f.end = g.end;
          }
          link(f.end, e);
          f.end = e;
        }
        return f;
      }
    }
    return {};
  }

 private:
  void link(int from, int to) { nfa_.states[static_cast<std::size_t>(from)].epsilon.push_back(to); }

  Nfa& nfa_;
  const std::vector<Node>& nodes_;
};

// ------------------------------------------------------------ DFA

struct Dfa {
  std::vector<std::array<int, 256>> next;  // per state, per byte
  std::vector<char> matched;  // lines: a match ends here (the rest of the line is skipped)
  std::vector<char> accepts;  // full: the text may end here; lines: the line may end here
  std::vector<char> dead;     // no match can follow
  int start = 0;
  mode how = mode::full;
  std::string pattern;  // what it was made from: the cache key (below)
  // lines, for unanchored patterns: byte sets at fixed offsets from where
  // every match starts (the rarest first), where they are selective enough
  // to skip to with jit::find_sets; else empty.
  std::vector<jit::byte_set_at> start_filter;
  // lines, for one unanchored alternative where start_filter is empty: byte
  // sets at offsets from the start of a run of fixed-width items inside
  // every match (`ing` in `[a-z]+ing`): a search skips to the line where they
  // are next found; else empty.
  std::vector<jit::byte_set_at> inner_filter;
  // lines, for patterns anchored at the line's start: a newline and byte
  // sets at fixed offsets after it, where every match starts: where the next
  // line that may match starts (after the newline), when selective enough to
  // skip to with jit::find_sets; else empty.
  std::vector<jit::byte_set_at> line_filter;

  std::size_t size() const { return next.size(); }
};

// How often a byte is expected in text (English-like: letters by their
// frequency, spaces, few digits and punctuation), to rank byte sets by how
// rarely a search stops on them.
inline double byte_weight(int b) {
  static constexpr double kLetters[26] = {8.2,  1.5, 2.8, 4.3, 12.7, 2.2,  2.0, 6.1, 7.0,
                                          0.15, 0.8, 4.0, 2.4, 6.7,  7.5,  1.9, 0.1, 6.0,
                                          6.3,  9.1, 2.8, 1.0, 2.4,  0.15, 2.0, 0.07};
  if (b >= 'a' && b <= 'z') return kLetters[b - 'a'] * 0.007;
  if (b >= 'A' && b <= 'Z') return kLetters[b - 'A'] * 0.0007;
  if (b == ' ') return 0.15;
  if (b == '\n') return 0.02;
  if (b >= '0' && b <= '9') return 0.004;
  if (b > ' ' && b < 127) return 0.002;
  return 0.0001;
}

inline double weight_of(const ByteSet& bytes) {
  double sum = 0;
  for (int b = 0; b < 256; ++b) {
    if (bytes.test(static_cast<std::size_t>(b))) sum += byte_weight(b);
  }
  return std::min(sum, 1.0);
}

// The rarest sets of `sets` (a set per offset, at most 64 count) for
// jit::find_sets, rarest first, and the expected share of positions that
// pass them all.
inline std::pair<std::vector<jit::byte_set_at>, double> rarest_sets(
    const std::vector<ByteSet>& sets) {
  std::vector<std::pair<double, std::int64_t>> ranked;
  for (std::size_t j = 0; j < sets.size() && j < 64; ++j)
    ranked.emplace_back(weight_of(sets[j]), static_cast<std::int64_t>(j));
  std::sort(ranked.begin(), ranked.end());
  ranked.resize(std::min<std::size_t>(ranked.size(), 8));
  std::vector<jit::byte_set_at> chosen;
  double passing = 1;
  for (const auto& [weight, offset] : ranked) {
    chosen.push_back({offset, sets[static_cast<std::size_t>(offset)]});
    passing *= weight;
  }
  return {chosen, passing};
}

// A filter pays where it stops the search at no more than this share of
// positions; above, the DFA's own skipping does as well.
inline constexpr double kSelectiveFilter = 0.1;

// Subset construction; at most `max_states` states (std::invalid_argument beyond).
inline Dfa compile_dfa(std::string_view pattern, mode how, std::size_t max_states = 2000) {
  Parser parser(pattern);
  const std::vector<Alternative> alternatives = parser.top_level();
  Nfa nfa;
  NfaBuilder builder(nfa, parser.nodes);
  nfa.start = nfa.add();
  nfa.accept = nfa.add();
  nfa.accept_eol = nfa.add();
  int unanchored = -1;
  if (how == mode::lines) {
    // A search: any number of bytes of the line before an unanchored match.
    unanchored = nfa.add();
    nfa.states[static_cast<std::size_t>(unanchored)].bytes = ~ByteSet().set('\n');
    nfa.states[static_cast<std::size_t>(unanchored)].next = unanchored;
  }
  std::vector<int> alternative_starts;
  for (const Alternative& a : alternatives) {
    const NfaBuilder::Fragment f = builder.build(a.root);
    alternative_starts.push_back(f.start);
    const int entry = how == mode::lines && !a.at_start ? unanchored : nfa.start;
    nfa.states[static_cast<std::size_t>(entry)].epsilon.push_back(f.start);
    const int exit = how == mode::lines && !a.at_end ? nfa.accept : nfa.accept_eol;
    nfa.states[static_cast<std::size_t>(f.end)].epsilon.push_back(exit);
  }
  if (unanchored >= 0)
    nfa.states[static_cast<std::size_t>(nfa.start)].epsilon.push_back(unanchored);

  const auto closure = [&](std::vector<int> set) {
    std::vector<char> in(nfa.states.size(), 0);
    for (int s : set) in[static_cast<std::size_t>(s)] = 1;
    for (std::size_t i = 0; i < set.size(); ++i) {
      for (int t : nfa.states[static_cast<std::size_t>(set[i])].epsilon) {
        if (!in[static_cast<std::size_t>(t)]) {
          in[static_cast<std::size_t>(t)] = 1;
          set.push_back(t);
        }
      }
    }
    // Only states with a byte edge or a final one tell DFA states apart.
    std::vector<int> kept;
    for (int s : set) {
      const Nfa::State& st = nfa.states[static_cast<std::size_t>(s)];
      if (st.next >= 0 || s == nfa.accept || s == nfa.accept_eol) kept.push_back(s);
    }
    std::sort(kept.begin(), kept.end());
    return kept;
  };

  Dfa dfa;
  dfa.how = how;
  dfa.pattern = pattern;
  std::map<std::vector<int>, int> ids;
  std::vector<std::vector<int>> sets;
  const auto id_of = [&](std::vector<int> set) {
    auto [it, fresh] = ids.emplace(set, static_cast<int>(sets.size()));
    if (fresh) {
      if (sets.size() >= max_states) {
        throw std::invalid_argument("regex: `" + std::string(pattern) + "` needs more than " +
                                    std::to_string(max_states) + " DFA states");
      }
      sets.push_back(std::move(set));
    }
    return it->second;
  };
  dfa.start = id_of(closure({nfa.start}));
  for (std::size_t d = 0; d < sets.size(); ++d) {
    std::array<int, 256> row{};
    // Bytes with the same NFA edges go to the same state: one move per class.
    std::map<std::vector<int>, int> by_targets;
    for (int b = 0; b < 256; ++b) {
      std::vector<int> targets;
      for (int s : sets[d]) {
        const Nfa::State& st = nfa.states[static_cast<std::size_t>(s)];
        if (st.next >= 0 && st.bytes.test(static_cast<std::size_t>(b))) targets.push_back(st.next);
      }
      auto it = by_targets.find(targets);
      if (it == by_targets.end()) it = by_targets.emplace(targets, id_of(closure(targets))).first;
      row[static_cast<std::size_t>(b)] = it->second;
    }
    dfa.next.push_back(row);
  }
  for (const std::vector<int>& set : sets) {
    const bool has_accept = std::binary_search(set.begin(), set.end(), nfa.accept);
    const bool has_eol = std::binary_search(set.begin(), set.end(), nfa.accept_eol);
    dfa.matched.push_back(how == mode::lines && has_accept);
    dfa.accepts.push_back(has_accept || has_eol);
    dfa.dead.push_back(set.empty());
  }
  const auto anchored = [](const Alternative& a) { return a.at_start; };
  const bool none_anchored = std::none_of(alternatives.begin(), alternatives.end(), anchored);
  const bool all_anchored = std::all_of(alternatives.begin(), alternatives.end(), anchored);
  if (how == mode::lines && (none_anchored || all_anchored)) {
    // The bytes at offset j of every match: the NFA states j bytes into a
    // match, from all alternatives' starts, until one may end there.
    std::vector<ByteSet> at_offset;
    std::vector<int> now;
    for (const int s : alternative_starts) now.push_back(s);
    now = closure(now);
    while (at_offset.size() < 64 && !std::binary_search(now.begin(), now.end(), nfa.accept) &&
           !std::binary_search(now.begin(), now.end(), nfa.accept_eol)) {
      ByteSet bytes;
      std::vector<int> next;
      for (const int s : now) {
        const Nfa::State& st = nfa.states[static_cast<std::size_t>(s)];
        bytes |= st.bytes;
        if (st.next >= 0 && std::find(next.begin(), next.end(), st.next) == next.end())
          next.push_back(st.next);
      }
      at_offset.push_back(bytes.reset('\n'));
      now = closure(next);
    }
    auto [start_filter, start_passing] = rarest_sets(at_offset);
    if (all_anchored) {
      if (!at_offset.empty() && start_passing <= kSelectiveFilter) {
        std::vector<ByteSet> after_newline{ByteSet().set('\n')};
        after_newline.insert(after_newline.end(), at_offset.begin(), at_offset.end());
        dfa.line_filter = rarest_sets(after_newline).first;
      }
      return dfa;
    }
    // Inside one alternative: runs of fixed-width items of its top-level
    // sequence (a bounded repetition of a class counts its copies; an
    // unbounded one ends a run, its last copy starting the next).
    std::pair<std::vector<jit::byte_set_at>, double> inner{{}, 1.0};
    if (alternatives.size() == 1) {
      const Node& root = parser.nodes[static_cast<std::size_t>(alternatives[0].root)];
      const std::vector<int> items =
          root.kind == Node::Concat ? root.children : std::vector<int>{alternatives[0].root};
      std::vector<ByteSet> run;
      const auto end_run = [&] {
        if (!run.empty()) {
          auto candidate = rarest_sets(run);
          if (candidate.second < inner.second) inner = std::move(candidate);
        }
        run.clear();
      };
      for (const int item : items) {
        const Node& n = parser.nodes[static_cast<std::size_t>(item)];
        const Node* child = n.kind == Node::Repeat
                                ? &parser.nodes[static_cast<std::size_t>(n.children[0])]
                                : nullptr;
        if (n.kind == Node::Bytes) {
          run.push_back(ByteSet(n.bytes).reset('\n'));
        } else if (child && child->kind == Node::Bytes && n.min == n.max) {
          for (int k = 0; k < n.min && run.size() < 64; ++k)
            run.push_back(ByteSet(child->bytes).reset('\n'));
        } else if (child && child->kind == Node::Bytes && n.min >= 1) {
          run.push_back(ByteSet(child->bytes).reset('\n'));
          end_run();
          run.push_back(ByteSet(child->bytes).reset('\n'));
        } else {
          end_run();
        }
      }
      end_run();
    }
    if (!at_offset.empty() && start_passing <= kSelectiveFilter && start_passing <= inner.second) {
      dfa.start_filter = std::move(start_filter);
    } else if (inner.second <= kSelectiveFilter) {
      dfa.inner_filter = std::move(inner.first);
    }
  }
  return dfa;
}

// ------------------------------------------------------------ the staged matchers

using jit::dyn;

// `c` is in `bytes`: one test per range of bytes, or-ed as a balanced tree.
// An expression, not a variable: the first stage records nothing for it.
inline jit::dyn_expr<bool> in_set(const dyn<std::uint8_t>& c, const ByteSet& bytes) {
  std::vector<jit::dyn_expr<bool>> tests;
  for (int b = 0; b < 256;) {
    if (!bytes.test(static_cast<std::size_t>(b))) {
      ++b;
      continue;
    }
    int e = b;
    while (e + 1 < 256 && bytes.test(static_cast<std::size_t>(e + 1))) ++e;
    if (b == e) {
      tests.emplace_back(c == static_cast<std::uint8_t>(b));
    } else {
      tests.emplace_back(c >= static_cast<std::uint8_t>(b) && c <= static_cast<std::uint8_t>(e));
    }
    b = e + 1;
  }
  while (tests.size() > 1) {
    std::vector<jit::dyn_expr<bool>> pairs;
    for (std::size_t k = 0; k + 1 < tests.size(); k += 2)
      pairs.emplace_back(tests[k] || tests[k + 1]);
    if (tests.size() % 2) pairs.push_back(tests.back());
    tests = std::move(pairs);
  }
  return tests.front();
}

// The next state after byte `c` in state `s`: a dyn test per target state
// (the largest group of bytes is the fallthrough), a static result. The
// tests are a C++ loop around dyn branches, so its counter is a jit::stat.
inline int step(const Dfa& dfa, int s, const dyn<std::uint8_t>& c, const ByteSet& ignored) {
  std::map<int, ByteSet> by_target;
  for (int b = 0; b < 256; ++b) {
    if (!ignored.test(static_cast<std::size_t>(b))) {
      by_target[dfa.next[static_cast<std::size_t>(s)][static_cast<std::size_t>(b)]].set(
          static_cast<std::size_t>(b));
    }
  }
  int fallthrough = by_target.begin()->first;
  for (const auto& [target, bytes] : by_target) {
    if (bytes.count() > by_target[fallthrough].count()) fallthrough = target;
  }
  std::vector<std::pair<int, ByteSet>> tests;
  for (const auto& [target, bytes] : by_target) {
    if (target != fallthrough) tests.emplace_back(target, bytes);
  }
  for (jit::stat<int> k = 0; k < static_cast<int>(tests.size()); ++k) {
    if (in_set(c, tests[static_cast<std::size_t>(k)].second)) {
      return tests[static_cast<std::size_t>(k)].first;
    }
  }
  return fallthrough;
}

// Whether all of text[0, n) matches (mode::full).
inline dyn<bool> full_match(dyn<const std::uint8_t*> text, dyn<std::int64_t> n, const Dfa& dfa) {
  dyn<std::int64_t> i = 0;
  for (jit::stat<int> s = dfa.start;;) {
    if (dfa.dead[static_cast<std::size_t>(s)]) return false;
    if (i == n) return dfa.accepts[static_cast<std::size_t>(s)] != 0;
    const dyn<std::uint8_t> c = text[i];
    i = i + 1;
    s = step(dfa, s, c, ByteSet());
  }
}

// The bytes that leave state `s` (lines: a newline does, unless it leads
// from the start state back to it), when few enough or in few enough ranges
// for jit::find_any_of to skip the rest 16 at a time; empty otherwise.
inline std::vector<std::uint8_t> exits_of(const Dfa& dfa, int s) {
  const auto at = static_cast<std::size_t>(s);
  const bool newline_stays = s == dfa.start && !dfa.accepts[at];
  std::vector<std::uint8_t> exits;
  int ranges = 0;
  for (int b = 0; b < 256; ++b) {
    const bool leaves = b == '\n' ? !newline_stays : dfa.next[at][static_cast<std::size_t>(b)] != s;
    if (!leaves) continue;
    if (exits.empty() || exits.back() != b - 1) ++ranges;
    exits.push_back(static_cast<std::uint8_t>(b));
  }
  // Skipping pays where a state stays put on most bytes (a search for a
  // pattern's first bytes); where it leaves on many, the next byte would
  // usually leave it anyway.
  return exits.size() <= 16 && (exits.size() <= 8 || ranges <= 4) ? exits
                                                                  : std::vector<std::uint8_t>{};
}

// How many lines of text[0, n) contain a match (mode::lines).
inline dyn<std::int64_t> count_lines(dyn<const std::uint8_t*> text, dyn<std::int64_t> n,
                                     const Dfa& dfa) {
  dyn<std::int64_t> count = 0;
  dyn<std::int64_t> i = 0;
  // With an inner filter: where its run was last found (the search goes on
  // byte by byte up to there).
  dyn<std::int64_t> found = -1;
  const ByteSet newline = ByteSet().set('\n');
  for (jit::stat<int> s = dfa.start;;) {
    const auto at = static_cast<std::size_t>(s);
    if (dfa.matched[at] || dfa.dead[at]) {
      // The line is decided: on to the next one.
      if (dfa.matched[at]) count = count + 1;
      i = dfa.line_filter.empty() ? jit::find_byte(text, i, n, '\n')
                                  : jit::find_sets(text, i, n, dfa.line_filter);
      if (i == n) return count;
      i = i + 1;
      s = dfa.start;
      continue;
    }
    if (s == dfa.start && !dfa.start_filter.empty()) {
      i = jit::find_sets(text, i, n, dfa.start_filter);
    } else if (s == dfa.start && !dfa.inner_filter.empty()) {
      if (found < i) {
        // No match before the line of the run's next occurrence: on to
        // that line's start (or stay, where it is this line).
        found = jit::find_sets(text, i, n, dfa.inner_filter);
        if (found == n) return count;
        dyn<std::int64_t> line = found;
        while (line > i && text[line - 1] != static_cast<std::uint8_t>('\n')) line = line - 1;
        i = line;
      }
    } else if (const std::vector<std::uint8_t> exits = exits_of(dfa, s); !exits.empty()) {
      i = jit::find_any_of(text, i, n, exits);
    }
    if (i == n) return dfa.accepts[at] ? count + 1 : count;
    const dyn<std::uint8_t> c = text[i];
    i = i + 1;
    if (c == static_cast<std::uint8_t>('\n')) {
      if (dfa.accepts[at]) count = count + 1;
      s = dfa.start;
      continue;
    }
    s = step(dfa, s, c, newline);
  }
}

}  // namespace regex

// A DFA is keyed by what it was made from: two DFAs of one pattern and mode
// are equal, so a second compile of a pattern is a cache hit that builds no
// DFA states into the key.
template <>
struct jit::key<regex::Dfa> {
  static void encode(jit::key_writer& out, const regex::Dfa& dfa) {
    out.write_value(dfa.how);
    out.write_string(dfa.pattern);
  }
};
