// Trees of ifs on one variable's ranges, emitted as one LLVM switch
// (jit/cpu/range_switch.h): which trees qualify, and random trees of every
// integer type, compare and shape (unreachable leaves, leaves that return,
// break or continue, parts of a split function inside them) agreeing with the
// interpreter at O0, at O2 and split at O2, at values on both sides of every
// threshold and at the type's extremes.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "runtime/ir/interp.h"
#include "runtime/ir/parser.h"
#include "runtime/ir/range_switch.h"
#include "tests/jit/jit_test_util.h"

namespace augur::cpu::test {
using ir::kMinSwitchLeaves;
using ir::match_range_switch;
using ir::RangeSwitch;
using ir::RangeSwitchMatch;
namespace {

struct IntType {
  const char* name;
  unsigned bits;
  bool is_signed;

  // The constant `value` (two's complement bits) as IR text.
  std::string literal(std::uint64_t value) const {
    const std::uint64_t mask = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    value &= mask;
    if (is_signed && (value >> (bits - 1)) & 1) {
      const std::uint64_t magnitude = (~value + 1) & mask;
      return "-" + std::to_string(magnitude) + name;
    }
    return std::to_string(value) + name;
  }
  std::uint64_t min() const { return is_signed ? std::uint64_t{1} << (bits - 1) : 0; }
  std::uint64_t max() const {
    const std::uint64_t mask = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    return is_signed ? mask >> 1 : mask;
  }
};

const IntType kTypes[] = {{"i8", 8, true},    {"u8", 8, false},  {"i16", 16, true},
                          {"u16", 16, false}, {"i32", 32, true}, {"u32", 32, false},
                          {"i64", 64, true},  {"u64", 64, false}};

// A balanced tree over `leaves` consecutive values from `first`, each leaf
// `r = <its value>;`.
std::string balanced_tree(const char* var, const IntType& t, std::int64_t first, int leaves,
                          const std::string& indent) {
  if (leaves == 1) return indent + "r = " + std::to_string(first) + "i32;\n";
  const int half = leaves / 2;
  const std::int64_t mid = first + half;
  return indent + "if (" + var + " < " + t.literal(static_cast<std::uint64_t>(mid)) + ") {\n" +
         balanced_tree(var, t, first, half, indent + "  ") + indent + "} else {\n" +
         balanced_tree(var, t, mid, leaves - half, indent + "  ") + indent + "}\n";
}

ir::Module tree_module(int leaves, const IntType& t = kTypes[4]) {
  return ir::parse_module(std::string("fn tree(v: ") + t.name +
                          ") -> i32 {\n  var r: i32 = -1i32;\n" +
                          balanced_tree("v", t, 0, leaves, "  ") + "  return r;\n}\n");
}

const ir::Stmt& first_if(const ir::Module& m) {
  return m.functions.front().body[1];
}

bool never_stops(const ir::Stmt&) {
  return false;
}

TEST(RangeSwitch, ABalancedTreeOf64LeavesIsOneSwitch) {
  const ir::Module m = tree_module(64);
  const RangeSwitchMatch match = match_range_switch(first_if(m), never_stops);
  ASSERT_TRUE(match.found);
  const RangeSwitch& s = *match.found;
  EXPECT_EQ(s.leaves.size(), 64u);
  // Values below 1 take the first leaf (a compare), 63 and above the last
  // (the default); 1..62 are cases, in order.
  ASSERT_TRUE(s.below);
  EXPECT_EQ(*s.below, 0u);
  EXPECT_EQ(s.low_bound, 1u);
  EXPECT_EQ(s.default_leaf, 63u);
  ASSERT_EQ(s.cases.size(), 62u);
  for (std::size_t i = 0; i < s.cases.size(); ++i) {
    EXPECT_EQ(s.cases[i].value, i + 1);
    EXPECT_EQ(s.cases[i].leaf, i + 1);
  }
}

TEST(RangeSwitch, SmallTreesStayCompares) {
  const ir::Module m = tree_module(static_cast<int>(kMinSwitchLeaves) - 1);
  const RangeSwitchMatch match = match_range_switch(first_if(m), never_stops);
  EXPECT_FALSE(match.found);
  // Every inner if below the root is reported, so none is tried again.
  EXPECT_EQ(match.inner.size(), kMinSwitchLeaves - 3);
}

TEST(RangeSwitch, ANarrowTypeListsItsLowestValues) {
  const ir::Module m = tree_module(20, kTypes[1]);  // u8: the lowest leaf is just {0}
  const RangeSwitchMatch match = match_range_switch(first_if(m), never_stops);
  ASSERT_TRUE(match.found);
  EXPECT_FALSE(match.found->below);
  EXPECT_EQ(match.found->cases.front().value, 0u);
}

TEST(RangeSwitch, TooManyCaseValuesStayCompares) {
  // Leaves 2,000 values wide: 16 of them list 28,000 values.
  std::string text = "fn tree(v: i32) -> i32 {\n  var r: i32 = -1i32;\n";
  std::string tree;
  for (int i = 0; i < 18; ++i) {
    tree += "if (v < " + std::to_string(2000 * (i + 1)) + "i32) { r = " + std::to_string(i) +
            "i32; } else { ";
  }
  tree += "r = 99i32;";
  for (int i = 0; i < 18; ++i) tree += " }";
  const ir::Module m = ir::parse_module(text + tree + "\n  return r;\n}\n");
  EXPECT_FALSE(match_range_switch(first_if(m), never_stops).found);
}

TEST(RangeSwitch, TestsOfAnotherVariableAreLeaves) {
  const ir::Module m = ir::parse_module(
      "fn tree(v: i32, w: i32) -> i32 {\n  var r: i32 = 0i32;\n" +
      std::string("if (v < 0i32) { if (w < 3i32) { r = 1i32; } else { r = 2i32; } } "
                  "else { r = 3i32; }\n") +
      "  return r;\n}\n");
  const RangeSwitchMatch match = match_range_switch(first_if(m), never_stops);
  EXPECT_FALSE(match.found);
  EXPECT_TRUE(match.inner.empty());
}

TEST(RangeSwitch, ThePartsOfASplitFunctionAreLeaves) {
  const ir::Module m = tree_module(64);
  const ir::Stmt& root = first_if(m);
  const ir::Stmt& then_child = root.body.front();
  const RangeSwitchMatch match =
      match_range_switch(root, [&](const ir::Stmt& s) { return &s == &then_child; });
  ASSERT_TRUE(match.found);
  EXPECT_EQ(match.found->leaves.size(), 33u);  // the then half is one leaf
}

TEST(RangeSwitch, TheCompiledTreeIsASwitch) {
  Options options;
  options.opt_level = 0;
  options.dump_llvm = true;
  std::string llvm;
  options.dump_sink = [&](DumpKind, std::string_view, std::string_view text) { llvm += text; };
  const auto code = compile(tree_module(64), {}, options);
  EXPECT_NE(llvm.find("switch i32"), std::string::npos) << llvm;
  for (std::int32_t v : {-5, 0, 1, 31, 32, 62, 63, 64, 1000}) {
    const std::int32_t expected = v < 0 ? 0 : v > 63 ? 63 : v;
    EXPECT_EQ(call_native<std::int32_t>(*code, "tree", v), expected) << v;
  }
}

// ---------------------------------------------------------------- random trees

// Random trees: search trees over sorted thresholds (as a first stage makes
// them), each split written as one of the eight equivalent compares, or trees
// of random compares (whose leaves are often unreachable).
class TreeWriter {
 public:
  TreeWriter(const IntType& type, std::mt19937_64& rng) : t_(type), rng_(rng) {
    const std::uint64_t bases[] = {t_.min(), t_.max(), 0, rng_()};
    const std::uint64_t base = bases[rng_() % 4];
    pool_ = {t_.min(), t_.max()};
    for (int i = 0; i < 70; ++i) {
      pool_.push_back(base +
                      static_cast<std::uint64_t>(static_cast<std::int64_t>(rng_() % 161) - 80));
    }
  }

  // Thresholds (and their neighbours) are the interesting inputs.
  const std::vector<std::uint64_t>& thresholds() const { return pool_; }

  // A search tree of about `leaves` leaves on `var`; `in_loop`: leaves may
  // break or continue.
  std::string search_tree(const char* var, int leaves, bool in_loop) {
    std::vector<std::uint64_t> keys;  // ordered as the type orders them
    for (std::uint64_t v : pool_) keys.push_back(key(v));
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    if (keys.front() == 0) keys.erase(keys.begin());  // "v < min" splits nothing
    if (keys.size() > static_cast<std::size_t>(leaves - 1)) keys.resize(leaves - 1);
    return search(var, keys, 0, keys.size(), in_loop, "  ");
  }

  std::string random_tree(const char* var, int leaves, bool in_loop, const std::string& indent) {
    if (leaves == 1) return leaf(in_loop, indent);
    static const char* const kOps[] = {"<", "<=", ">", ">="};
    const char* op = kOps[rng_() % 4];
    const std::string k = t_.literal(pool_[rng_() % pool_.size()]);
    const std::string cond =
        rng_() % 2 ? std::string(var) + " " + op + " " + k : k + " " + op + " " + var;
    const int left = 1 + static_cast<int>(rng_() % static_cast<std::uint64_t>(leaves - 1));
    return indent + "if (" + cond + ") {\n" + random_tree(var, left, in_loop, indent + "  ") +
           indent + "} else {\n" + random_tree(var, leaves - left, in_loop, indent + "  ") +
           indent + "}\n";
  }

 private:
  std::uint64_t key(std::uint64_t value) const {
    const std::uint64_t mask =
        t_.bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << t_.bits) - 1;
    return (value & mask) ^ (t_.is_signed ? std::uint64_t{1} << (t_.bits - 1) : 0);
  }
  std::uint64_t value(std::uint64_t key) const {
    return key ^ (t_.is_signed ? std::uint64_t{1} << (t_.bits - 1) : 0);
  }

  // The leaves between split keys[lo..hi): values below keys[mid] go left.
  std::string search(const char* var, const std::vector<std::uint64_t>& keys, std::size_t lo,
                     std::size_t hi, bool in_loop, const std::string& indent) {
    if (lo == hi) return leaf(in_loop, indent);
    const std::size_t mid = lo + (hi - lo) / 2;
    const std::string below = search(var, keys, lo, mid, in_loop, indent + "  ");
    const std::string above = search(var, keys, mid + 1, hi, in_loop, indent + "  ");
    const std::string k = t_.literal(value(keys[mid]));       // v < k: below
    const std::string k1 = t_.literal(value(keys[mid] - 1));  // v <= k - 1: below
    const std::string v(var);
    std::string cond;
    bool then_below = true;
    switch (rng_() % 8) {
      case 0:
        cond = v + " < " + k;
        break;
      case 1:
        cond = v + " <= " + k1;
        break;
      case 2:
        cond = k + " > " + v;
        break;
      case 3:
        cond = k1 + " >= " + v;
        break;
      case 4:
        cond = v + " >= " + k;
        then_below = false;
        break;
      case 5:
        cond = v + " > " + k1;
        then_below = false;
        break;
      case 6:
        cond = k + " <= " + v;
        then_below = false;
        break;
      default:
        cond = k1 + " < " + v;
        then_below = false;
        break;
    }
    return indent + "if (" + cond + ") {\n" + (then_below ? below : above) + indent + "} else {\n" +
           (then_below ? above : below) + indent + "}\n";
  }

  std::string leaf(bool in_loop, const std::string& indent) {
    const std::string k = std::to_string(++leaf_count_);
    switch (rng_() % (in_loop ? 12 : 9)) {
      case 0:
        return indent + "return " + k + "i32;\n";
      case 1:
        return "";  // an empty branch
      case 9:
        return indent + "break;\n";
      case 10:
        return indent + "continue;\n";
      default:
        return indent + "r = r * 7i32 + " + k + "i32;\n";
    }
  }

  const IntType& t_;
  std::mt19937_64& rng_;
  std::vector<std::uint64_t> pool_;
  int leaf_count_ = 0;
};

TEST(RangeSwitch, RandomTreesAgreeWithTheInterpreter) {
  constexpr int kPrograms = 96;
  std::mt19937_64 rng(20261126);
  int switches = 0;
  for (int program = 0; program < kPrograms; ++program) {
    const IntType& t = kTypes[program % 8];
    TreeWriter writer(t, rng);
    const int leaves = 2 + static_cast<int>(rng() % 70);
    const bool in_loop = program % 3 == 0;
    std::string body;
    if (in_loop) {
      body = std::string("  for (var i: i32 = 0i32; i < 3i32; i = i + 1i32) {\n    var w: ") +
             t.name + " = v + " + t.name + "(i);\n" +
             (program % 2 ? writer.search_tree("w", leaves, true)
                          : writer.random_tree("w", leaves, true, "    ")) +
             "  }\n";
    } else {
      body = program % 2 ? writer.search_tree("v", leaves, false)
                         : writer.random_tree("v", leaves, false, "  ");
    }
    const std::string text = std::string("fn tree(v: ") + t.name +
                             ") -> i32 {\n  var r: i32 = 1i32;\n" + body + "  return r;\n}\n";
    SCOPED_TRACE(text);
    const ir::Module m = ir::parse_module(text);
    const ir::Stmt& root = in_loop ? m.functions.front().body[1].body[1] : first_if(m);
    if (root.kind == ir::StmtKind::If && match_range_switch(root, never_stops).found) ++switches;

    const ir::Interpreter interpreter(m, "tree");
    const auto o0 = compile_at(0, m);
    const auto o2 = compile_at(2, m);
    Options split;
    split.split_nodes = 24;  // parts inside the tree: leaves of the switch
    split.verify = true;
    const auto o2_split = compile(m, {}, split);
    std::vector<std::uint64_t> inputs;
    for (std::uint64_t k : writer.thresholds()) {
      for (std::uint64_t d : {~std::uint64_t{0}, std::uint64_t{0}, std::uint64_t{1}})
        inputs.push_back(k + d);
    }
    for (int i = 0; i < 8; ++i) inputs.push_back(rng());
    for (std::uint64_t bits : inputs) {
      const ir::Value arg{ir::canonical_bits(m.functions.front().vars[0].type, bits)};
      const std::int32_t expected = interpreter.run({&arg, 1}).as<std::int32_t>();
      for (const auto* code : {o0.get(), o2.get(), o2_split.get()}) {
        EXPECT_EQ(invoke(*code, "tree", {&arg, 1}).as<std::int32_t>(), expected)
            << t.name << " " << t.literal(bits);
      }
    }
  }
  // The generator makes qualifying trees often enough to test the switches.
  std::printf("%d of %d random trees were switches\n", switches, kPrograms);
  EXPECT_GE(switches, kPrograms / 8);
}

}  // namespace
}  // namespace augur::cpu::test
