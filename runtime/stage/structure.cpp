#include "runtime/stage/structure.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "jit/error.h"
#include "runtime/ir/builder.h"
#include "runtime/stage/huge_pages.h"
#include "runtime/stage/stmt_stack.h"

namespace augur::stage {

namespace {

using NodeList = BigVector<std::uint32_t>;

// The successors of a node: the false edge first, then the true edge.
struct Successors {
  std::array<std::uint32_t, 2> nodes{};
  std::uint8_t count = 0;

  const std::uint32_t* begin() const { return nodes.data(); }
  const std::uint32_t* end() const { return nodes.data() + count; }
  std::size_t size() const { return count; }
  std::uint32_t operator[](std::size_t i) const { return nodes[i]; }
};

Successors successors(const Node& node) {
  switch (node.event.kind) {
    case EventKind::Branch:
      return {{node.succ[0], node.succ[1]}, 2};
    case EventKind::Return:
    case EventKind::End:
      return {};
    default:
      return {{node.succ[0], kNoNode}, 1};
  }
}

// A list of nodes per node, in two flat arrays (compressed rows): a million
// nodes cost two allocations, not one each.
class Adjacency {
 public:
  // `each(add)` calls add(node, item) for every item, in the order each
  // node's items are to be listed; it is called twice (count, then fill).
  template <class Each>
  void build(std::uint32_t size, Each&& each) {
    start_.assign(std::size_t{size} + 1, 0);
    each([&](std::uint32_t n, std::uint32_t) { ++start_[n + 1]; });
    for (std::uint32_t n = 0; n < size; ++n) start_[n + 1] += start_[n];
    items_.resize(start_[size]);
    // start_[n] is node n's cursor while filling: it ends at node n + 1's start.
    each([&](std::uint32_t n, std::uint32_t item) { items_[start_[n]++] = item; });
    for (std::uint32_t n = size; n > 0; --n) start_[n] = start_[n - 1];
    start_[0] = 0;
  }
  std::span<const std::uint32_t> operator[](std::uint32_t n) const {
    return {items_.data() + start_[n], items_.data() + start_[n + 1]};
  }

 private:
  NodeList start_;
  NodeList items_;
};

class Structurer {
 public:
  Structurer(const Graph& graph, const StructureOptions& options)
      : g_(graph), options_(options), size_(graph.size()) {}

  // The analyses structuring needs; false if the graph is irreducible.
  bool analyze() {
    if (size_ == 0) return true;
    for (std::uint32_t n = 0; n < size_; ++n) {
      for (std::uint32_t s : successors(g_[n])) {
        if (s == kNoNode)
          throw jit::staging_error("internal: an unexplored edge reached structuring");
      }
    }
    order();
    dominators();
    if (!reducible()) return false;
    loops();
    forward_predecessors();
    return true;
  }

  ir::Function emit() {
    ir::Function fn;
    fn.name = options_.name;
    fn.ret = options_.result;
    fn.kernel = options_.kernel;
    for (const GraphVar& v : g_.vars) {
      const ir::VarKind kind = v.param              ? ir::VarKind::Param
                               : v.shared_count > 0 ? ir::VarKind::Shared
                                                    : ir::VarKind::Local;
      fn.vars.push_back({v.name, v.type, kind, v.shared_count});
      if (v.param) ++fn.num_params;
    }
    if (size_ == 0) return fn;
    fn.body = sequence_block(0, kNoNode, false);
    return fn;
  }

 private:
  struct Loop {
    std::uint32_t header;
    std::uint32_t follow;
  };

  // ------------------------------------------------ analysis

  // Reverse postorder of a depth-first search from the entry (iterative).
  void order() {
    rpo_index_.assign(size_, kNoNode);
    BigVector<std::uint8_t> state(size_, 0);  // 0 new, 1 on the stack, 2 done
    NodeList post;
    post.reserve(size_);
    BigVector<std::pair<std::uint32_t, std::size_t>> stack{{0, 0}};
    state[0] = 1;
    while (!stack.empty()) {
      auto& [n, next] = stack.back();
      const Successors succ = successors(g_[n]);
      if (next < succ.size()) {
        const std::uint32_t s = succ[succ.size() - 1 - next++];  // true edges first
        if (state[s] == 0) {
          state[s] = 1;
          stack.emplace_back(s, 0);
        }
        continue;
      }
      state[n] = 2;
      post.push_back(n);
      stack.pop_back();
    }
    rpo_.assign(post.rbegin(), post.rend());
    for (std::uint32_t i = 0; i < rpo_.size(); ++i) rpo_index_[rpo_[i]] = i;
    preds_.build(size_, [&](auto&& add) {
      for (std::uint32_t n : rpo_) {
        for (std::uint32_t s : successors(g_[n])) add(s, n);
      }
    });
  }

  // Cooper, Harvey and Kennedy's iterative dominators.
  void dominators() {
    idom_.assign(size_, kNoNode);
    idom_[0] = 0;
    bool changed = true;
    while (changed) {
      changed = false;
      for (std::size_t i = 1; i < rpo_.size(); ++i) {
        const std::uint32_t n = rpo_[i];
        std::uint32_t best = kNoNode;
        for (std::uint32_t p : preds_[n]) {
          if (idom_[p] == kNoNode) continue;
          best = best == kNoNode ? p : intersect(p, best);
        }
        if (best != idom_[n]) {
          idom_[n] = best;
          changed = true;
        }
      }
    }
    children_.build(size_, [&](auto&& add) {
      for (std::uint32_t n : rpo_) {
        if (n != 0) add(idom_[n], n);  // in reverse postorder
      }
    });
    dominated_.assign(size_, 0);
    for (auto it = rpo_.rbegin(); it != rpo_.rend(); ++it) {
      dominated_[*it] += 1;
      if (*it != 0) dominated_[idom_[*it]] += dominated_[*it];
    }
  }

  std::uint32_t intersect(std::uint32_t a, std::uint32_t b) const {
    while (a != b) {
      while (rpo_index_[a] > rpo_index_[b]) a = idom_[a];
      while (rpo_index_[b] > rpo_index_[a]) b = idom_[b];
    }
    return a;
  }

  bool dominates(std::uint32_t a, std::uint32_t b) const {
    while (true) {
      if (a == b) return true;
      if (b == 0) return false;
      b = idom_[b];
    }
  }

  // Whether every retreating edge goes to a node that dominates its source.
  bool reducible() const {
    for (std::uint32_t u : rpo_) {
      for (std::uint32_t s : successors(g_[u])) {
        if (rpo_index_[s] <= rpo_index_[u] && !dominates(s, u)) return false;
      }
    }
    return true;
  }

  // Natural loops, innermost first; loop_of_ maps a node to its innermost loop
  // header, parent_ a header to the header of the loop around it.
  void loops() {
    loop_of_.assign(size_, kNoNode);
    parent_.assign(size_, kNoNode);
    is_header_.assign(size_, 0);
    back_.build(size_, [&](auto&& add) {
      for (std::uint32_t u : rpo_) {
        for (std::uint32_t s : successors(g_[u])) {
          if (rpo_index_[s] > rpo_index_[u]) continue;
          add(s, u);
          is_header_[s] = 1;
        }
      }
    });
    // Headers later in reverse postorder are nested deeper: build those first.
    NodeList seen(size_, kNoNode);
    for (auto it = rpo_.rbegin(); it != rpo_.rend(); ++it) {
      const std::uint32_t h = *it;
      if (!is_header_[h]) continue;
      loop_of_[h] = h;
      NodeList work(back_[h].begin(), back_[h].end());
      while (!work.empty()) {
        const std::uint32_t x = outermost(work.back());
        work.pop_back();
        if (x == h || seen[x] == h) continue;
        seen[x] = h;
        if (loop_of_[x] == kNoNode) {
          loop_of_[x] = h;
        } else {
          parent_[x] = h;  // x heads a loop nested in this one
        }
        for (std::uint32_t p : preds_[x]) work.push_back(p);
      }
    }
  }

  // The header of the outermost loop built so far around x, or x itself.
  std::uint32_t outermost(std::uint32_t x) const {
    if (loop_of_[x] == kNoNode) return x;
    std::uint32_t l = loop_of_[x];
    while (parent_[l] != kNoNode) l = parent_[l];
    return l;
  }

  // Is n inside the loop headed by h (inner loops included)?
  bool in_loop(std::uint32_t n, std::uint32_t h) const {
    for (std::uint32_t l = loop_of_[n]; l != kNoNode; l = parent_[l]) {
      if (l == h) return true;
    }
    return false;
  }

  void forward_predecessors() {
    forward_preds_.assign(size_, 0);
    for (std::uint32_t n = 0; n < size_; ++n) {
      for (std::uint32_t p : preds_[n]) {
        if (!(is_header_[n] && std::find(back_[n].begin(), back_[n].end(), p) != back_[n].end())) {
          ++forward_preds_[n];
        }
      }
    }
  }

  // Where the loop headed by h continues: the node where its exits that do
  // not return meet (docs: the "follow").
  [[gnu::noinline]] std::uint32_t follow(std::uint32_t h) {
    auto [it, inserted] = follows_.try_emplace(h, kNoNode);
    if (!inserted) return it->second;

    NodeList targets;
    bool header_exits = false;
    for (std::uint32_t n = 0; n < size_; ++n) {
      if (!in_loop(n, h)) continue;
      for (std::uint32_t s : successors(g_[n])) {
        if (in_loop(s, h)) continue;
        if (std::find(targets.begin(), targets.end(), s) == targets.end()) targets.push_back(s);
        if (n == h) header_exits = true;
      }
    }
    if (targets.empty()) return it->second;  // no exit: an endless loop
    std::sort(targets.begin(), targets.end());
    if (targets.size() == 1) return it->second = targets[0];

    // What each exit reaches outside the loop, up to returns and the headers
    // of the loops around it. Exits whose reach meets belong to one group.
    std::vector<NodeList> reach(targets.size());
    for (std::size_t i = 0; i < targets.size(); ++i) reach[i] = reachable(targets[i], h);
    std::vector<std::size_t> group(targets.size());
    std::iota(group.begin(), group.end(), 0);
    auto find = [&](std::size_t x) {
      while (group[x] != x) x = group[x] = group[group[x]];
      return x;
    };
    for (std::size_t i = 0; i < targets.size(); ++i) {
      for (std::size_t j = i + 1; j < targets.size(); ++j) {
        if (intersects(reach[i], reach[j])) group[find(j)] = find(i);
      }
    }
    // Prefer the group the header exits to (a `while (c)` loop), then the
    // biggest, then the one found first.
    std::size_t best = kNoNode;
    auto score = [&](std::size_t root) {
      std::size_t members = 0;
      bool from_header = false;
      for (std::size_t i = 0; i < targets.size(); ++i) {
        if (find(i) != root) continue;
        ++members;
        if (header_exits && is_successor(h, targets[i])) from_header = true;
      }
      return std::pair{from_header, members};
    };
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const std::size_t root = find(i);
      if (root != i) continue;
      if (best == kNoNode || score(root) > score(best)) best = root;
    }
    NodeList common;
    bool first = true;
    for (std::size_t i = 0; i < targets.size(); ++i) {
      if (find(i) != best) continue;
      if (first) {
        common = reach[i];
        first = false;
      } else {
        NodeList kept;
        std::set_intersection(common.begin(), common.end(), reach[i].begin(), reach[i].end(),
                              std::back_inserter(kept));
        common = std::move(kept);
      }
    }
    std::uint32_t chosen = kNoNode;
    for (std::uint32_t c : common) {
      if (chosen == kNoNode || rpo_index_[c] < rpo_index_[chosen]) chosen = c;
    }
    if (chosen == kNoNode) chosen = targets[best];
    return follows_[h] = chosen;
  }

  bool is_successor(std::uint32_t n, std::uint32_t s) const {
    const Successors succ = successors(g_[n]);
    return std::find(succ.begin(), succ.end(), s) != succ.end();
  }

  // The nodes reachable from `start` without entering the loop headed by h,
  // stopping at returns (left out: they never meet other paths) and at the
  // headers of the loops around h. Sorted by node.
  NodeList reachable(std::uint32_t start, std::uint32_t h) const {
    NodeList out;
    std::vector<std::uint32_t> work{start};
    std::vector<std::uint8_t> seen(size_, 0);
    seen[start] = 1;
    while (!work.empty()) {
      const std::uint32_t n = work.back();
      work.pop_back();
      if (is_terminal(g_[n].event.kind)) continue;
      out.push_back(n);
      if (is_header_[n] && in_loop(h, n) && n != h) continue;
      for (std::uint32_t s : successors(g_[n])) {
        if (seen[s] || in_loop(s, h)) continue;
        seen[s] = 1;
        work.push_back(s);
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  static bool intersects(const NodeList& a, const NodeList& b) {
    auto i = a.begin();
    auto j = b.begin();
    while (i != a.end() && j != b.end()) {
      if (*i == *j) return true;
      if (*i < *j) {
        ++i;
      } else {
        ++j;
      }
    }
    return false;
  }

  // ------------------------------------------------ emission

  bool is_sink(std::uint32_t n) const {
    for (const Loop& l : loops_) {
      if (n == l.header || n == l.follow) return true;
    }
    return false;
  }

  // The node where the arms of branch n meet, if any: its last merge child
  // in the dominator tree that is not where a loop continues.
  std::uint32_t join(std::uint32_t n) const {
    std::uint32_t j = kNoNode;
    for (std::uint32_t c : children_[n]) {
      if (forward_preds_[c] >= 2 && !is_sink(c)) j = c;
    }
    return j;
  }

  // Appends the break or continue that reaching x is, if x is the follow or
  // the header of a loop being emitted: the innermost such loop, as many
  // levels out as it is.
  [[gnu::noinline]] bool loop_exit(std::uint32_t x) {
    for (std::size_t i = loops_.size(); i-- > 0;) {
      const auto levels = static_cast<std::uint32_t>(loops_.size() - i);
      if (x == loops_[i].header) {
        pending_.push(ir::Stmt::continue_(levels));
        return true;
      }
      if (x == loops_[i].follow) {
        pending_.push(ir::Stmt::break_(levels));
        return true;
      }
    }
    return false;
  }

  // Appends the statement that leaves for x at once, if reaching x is a jump.
  [[gnu::noinline]] bool jump(std::uint32_t x, std::uint32_t stop) {
    if (x == stop) return false;
    if (loop_exit(x)) return true;
    if (is_terminal(g_[x].event.kind)) {
      pending_.push(statement(x));
      return true;
    }
    return false;
  }

  // Whether the code from x is straight-line statements ending in a return,
  // meeting neither `stop`, the join `j`, a loop's header or exit, nor a branch.
  bool returns_straight(std::uint32_t x, std::uint32_t stop, std::uint32_t j) const {
    while (true) {
      if (x == stop || x == j || is_header_[x] || is_sink(x)) return false;
      const Node& node = g_[x];
      if (node.event.kind == EventKind::Branch) return false;
      if (is_terminal(node.event.kind)) return true;
      x = node.succ[0];
    }
  }

  ir::Stmt statement(std::uint32_t n) {
    if (++emitted_ > options_.max_statements) {
      throw jit::staging_error("the extracted program has more than " +
                               std::to_string(options_.max_statements) +
                               " statements (raise extract_options::max_ir_statements)");
    }
    const Event& e = g_[n].event;
    switch (e.kind) {
      case EventKind::Decl:
        return ir::Stmt::decl(e.var, e.expr);
      case EventKind::Assign:
        return ir::Stmt::assign(e.var, e.expr);
      case EventKind::Store:
        return ir::Stmt::store(e.ptr, e.index, e.expr);
      case EventKind::Eval:
        return ir::Stmt::eval(e.expr);
      case EventKind::Return:
        return ir::Stmt::return_(e.expr);
      case EventKind::End:
        return ir::Stmt::return_();
      case EventKind::Barrier:
        return ir::Stmt::barrier();
      case EventKind::Branch:
        break;
    }
    throw jit::staging_error("internal: a branch emitted as a statement");
  }

  // One more block being emitted. The recursion is as deep as the program's
  // nesting, which the IR bounds (ir::kMaxNesting): a dyn branch that leaves
  // an unrolled loop nests all the code after it, once per iteration.
  class NestingLevel {
   public:
    explicit NestingLevel(std::size_t& nesting) : nesting_(nesting) {
      if (++nesting_ > ir::kMaxNesting) {
        --nesting_;
        too_deep();
      }
    }
    NestingLevel(const NestingLevel&) = delete;
    NestingLevel& operator=(const NestingLevel&) = delete;
    ~NestingLevel() { --nesting_; }

   private:
    // Out of line, like sequence()'s other helpers (below).
    [[noreturn, gnu::noinline, gnu::cold]] static void too_deep() {
      throw jit::staging_error(
          "the staged program nests statements more than " + std::to_string(ir::kMaxNesting) +
          " deep (the IR's limit): a dyn branch that leaves a loop unrolled on a stat counter "
          "nests the rest of the program once per iteration; make that loop a dyn loop "
          "(docs/staging.md, \"Limits\")");
    }

    std::size_t& nesting_;
  };

  // sequence() recurses once per nesting level (through emit_loop() for a
  // loop), so whatever is inlined into it costs stack at every level: 7.8 KB
  // a level under AddressSanitizer, more than a TBB worker's 4 MiB holds at
  // 1,000 levels. The statements it appends, its errors, jump(), loop_exit()
  // and the loop analysis in follow() stay out of line (2.3 KB a level).
  [[gnu::noinline]] void append_statement(std::uint32_t n) { pending_.push(statement(n)); }
  // Appends `if (cond)` with the blocks the statements from `then_mark` and
  // from `else_mark` on make (no mark: an empty block).
  [[gnu::noinline]] void append_if(const ir::ExprPtr& cond, std::size_t then_mark,
                                   std::size_t else_mark) {
    ir::Block else_block = else_mark == kNoMark ? ir::Block() : block_from(else_mark);
    ir::Block then_block = then_mark == kNoMark ? ir::Block() : block_from(then_mark);
    pending_.push(ir::Stmt::if_(cond, std::move(then_block), std::move(else_block)));
  }

  // The block of the statements appended from `mark` on.
  [[gnu::noinline]] ir::Block block_from(std::size_t mark) { return pending_.take(mark); }

  // The block sequence() emits.
  [[gnu::noinline]] ir::Block sequence_block(std::uint32_t n, std::uint32_t stop, bool at_header) {
    const std::size_t mark = pending_.size();
    sequence(n, stop, at_header);
    return block_from(mark);
  }

  // Appends the code from n until `stop` (exclusive) or a jump out of the
  // block to pending_. `at_header`: n is the header of the loop being emitted
  // (do not re-enter it).
  void sequence(std::uint32_t n, std::uint32_t stop, bool at_header) {
    const NestingLevel level(nesting_);
    while (true) {
      if (!at_header) {
        if (n == stop) return;
        if (loop_exit(n)) return;
        if (is_header_[n]) {
          const std::uint32_t after = emit_loop(n);
          if (after == kNoNode) return;
          n = after;
          continue;
        }
      }
      at_header = false;
      const Node& node = g_[n];
      if (node.event.kind != EventKind::Branch) {
        append_statement(n);
        if (is_terminal(node.event.kind)) return;
        n = node.succ[0];
        continue;
      }
      const std::uint32_t on_true = node.succ[1];
      const std::uint32_t on_false = node.succ[0];
      const ir::ExprPtr& cond = node.event.expr;
      const std::size_t mark = pending_.size();
      if (on_true == on_false) {
        append_if(cond, kNoMark, kNoMark);
        n = on_true;
        continue;
      }
      // An arm that leaves at once (break, continue, return) needs no join;
      // a return both arms reach is their join, emitted once after the if.
      const std::uint32_t j = join(n);
      if (on_true != j && jump(on_true, stop)) {
        append_if(cond, mark, kNoMark);
        n = on_false;
        continue;
      }
      if (on_false != j && jump(on_false, stop)) {
        append_if(cond, kNoMark, mark);
        n = on_true;
        continue;
      }
      // So does an arm of straight-line code ending in a return: the other arm
      // continues this sequence rather than nesting in an else, so that a chain
      // of early returns (a dispatch on a static table) is emitted in a loop,
      // not in a recursion as deep as the chain is long.
      if (returns_straight(on_true, stop, j)) {
        sequence(on_true, stop, false);
        append_if(cond, mark, kNoMark);
        n = on_false;
        continue;
      }
      if (returns_straight(on_false, stop, j)) {
        sequence(on_false, stop, false);
        append_if(cond, kNoMark, mark);
        n = on_true;
        continue;
      }
      // Where paths of the arms meet at more than one place, each place is
      // emitted once, after a block that the paths reaching it leave.
      if (const NodeList merges = merge_children(n); merges.size() > 1) {
        n = emit_blocks(n, merges);
        continue;
      }
      const std::uint32_t arm_stop = j == kNoNode ? stop : j;
      sequence(on_true, arm_stop, false);
      const std::size_t else_mark = pending_.size();
      sequence(on_false, arm_stop, false);
      append_if(cond, mark, else_mark);
      if (j == kNoNode) return;
      n = j;
    }
  }

  // The nodes where the arms of branch n meet that emit_blocks() emits once
  // each, in reverse postorder: its last merge child in the dominator tree
  // that is neither a loop's header or exit nor a return (those are jumps),
  // and each earlier one whose copies, one per path reaching it, would cost
  // more statements than its block and breaks (counting the nodes it
  // dominates: the code only it leads to). None if that is the last alone
  // (the branch is emitted with its one join), or too many to nest.
  [[gnu::noinline]] NodeList merge_children(std::uint32_t n) const {
    NodeList merges;
    for (std::uint32_t c : children_[n]) {
      if (forward_preds_[c] >= 2 && !is_sink(c) && !is_terminal(g_[c].event.kind)) {
        merges.push_back(c);
      }
    }
    NodeList out;
    for (std::size_t i = 0; i + 1 < merges.size(); ++i) {
      const std::uint64_t paths = forward_preds_[merges[i]];
      if ((paths - 1) * dominated_[merges[i]] > paths + 1) out.push_back(merges[i]);
    }
    if (out.empty() || out.size() >= kMaxBlocks || nesting_ + out.size() >= ir::kMaxNesting / 2) {
      return {};
    }
    out.push_back(merges.back());
    return out;
  }

  // Emits branch n whose arms meet at `merges` m1 ... mk: blocks (loops that
  // run once) nested k deep, the branch in the innermost, each mi's code
  // after the block that ends where it starts, reaching mi from inside that
  // block a break of it:
  //
  //   while (true) {                 // block k: its exit is mk
  //     while (true) {               // block k - 1
  //       ... while (true) { if (c) { ... break; } else { ... break 2; } }
  //       m1's code ...
  //     }
  //     m(k-1)'s code ...
  //   }
  //
  // Every path in a block ends in a jump, so no block loops. Returns mk,
  // where the code goes on after the outermost block.
  [[gnu::noinline]] std::uint32_t emit_blocks(std::uint32_t n, const NodeList& merges) {
    const std::size_t k = merges.size();
    for (std::size_t i = k; i-- > 0;) loops_.push_back({kNoNode, merges[i]});
    nesting_ += k;
    const Node& node = g_[n];
    // Block i's body: the block nested in it (the if, innermost), then the
    // code of merges[i - 1].
    const std::size_t mark = pending_.size();
    sequence(node.succ[1], kNoNode, false);
    const std::size_t else_mark = pending_.size();
    sequence(node.succ[0], kNoNode, false);
    append_if(node.event.expr, mark, else_mark);
    for (std::size_t i = 0; i < k; ++i) {
      ir::Stmt block = ir::Stmt::while_(ir::constant(true), block_from(mark));
      loops_.pop_back();
      pending_.push(std::move(block));
      if (i + 1 < k) sequence(merges[i], kNoNode, false);
    }
    nesting_ -= k;
    return merges.back();
  }

  // Emits the loop headed by h; returns where the code continues after it.
  [[gnu::noinline]] std::uint32_t emit_loop(std::uint32_t h) {
    const std::uint32_t after = follow(h);
    loops_.push_back({h, after});
    ir::Block body = sequence_block(h, h, true);
    loops_.pop_back();
    pending_.push(ir::Stmt::while_(ir::constant(true), std::move(body)));
    return after;
  }

  // Blocks emit_blocks() nests at most for one branch.
  static constexpr std::size_t kMaxBlocks = 64;
  // No block: append_if()'s empty arm.
  static constexpr std::size_t kNoMark = ~std::size_t{0};

  const Graph& g_;
  const StructureOptions& options_;
  const std::uint32_t size_;

  NodeList rpo_;
  NodeList rpo_index_;
  Adjacency preds_;
  NodeList idom_;
  Adjacency children_;
  NodeList dominated_;  // nodes of the dominator subtree, the node included
  NodeList loop_of_;
  NodeList parent_;
  BigVector<std::uint8_t> is_header_;
  Adjacency back_;
  NodeList forward_preds_;
  std::unordered_map<std::uint32_t, std::uint32_t> follows_;

  std::vector<Loop> loops_;
  StmtStack pending_;  // the statements of the blocks being emitted
  std::uint64_t emitted_ = 0;
  std::size_t nesting_ = 0;  // blocks being emitted: sequence()'s recursion
};

}  // namespace

ir::Function structure(const Graph& graph, const StructureOptions& options, ReducibleStats& stats) {
  Structurer structurer(graph, options);
  if (structurer.analyze()) return structurer.emit();
  Graph fixed = graph;
  make_reducible(fixed, options.max_split_nodes, stats);
  Structurer again(fixed, options);
  if (!again.analyze()) {
    throw jit::staging_error("internal: the first stage's graph is still irreducible");
  }
  return again.emit();
}

}  // namespace augur::stage
