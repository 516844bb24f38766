#include "runtime/stage/reducible.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "jit/error.h"
#include "runtime/ir/builder.h"

namespace augur::stage {

namespace {

using NodeList = std::vector<std::uint32_t>;

// How many successors a node has: succ[0], and succ[1] for a branch.
unsigned successor_count(const Node& node) {
  switch (node.event.kind) {
    case EventKind::Branch:
      return 2;
    case EventKind::Return:
    case EventKind::End:
      return 0;
    default:
      return 1;
  }
}

// A strongly connected region with more than one entry.
struct Region {
  NodeList nodes;    // sorted
  NodeList entries;  // in the order the search from the graph's entry found them
};

class Reducer {
 public:
  Reducer(Graph& g, std::uint64_t max_copies, ReducibleStats& stats)
      : g_(g), max_copies_(max_copies), stats_(stats) {}

  void run() {
    while (true) {
      analyze();
      Region region;
      if (!find_region(region)) return;
      if (!split(region)) dispatch(region);
    }
  }

 private:
  // The nodes reachable from the entry, the order a search from it finds
  // them in, and the predecessors of each among them.
  void analyze() {
    const std::uint32_t size = g_.size();
    order_.assign(size, kNoNode);
    preds_.assign(size, {});
    reachable_.clear();
    std::vector<std::uint32_t> stack{0};
    std::uint32_t discovered = 0;
    order_[0] = discovered++;
    while (!stack.empty()) {
      const std::uint32_t n = stack.back();
      stack.pop_back();
      reachable_.push_back(n);
      const Node& node = g_[n];
      for (unsigned i = successor_count(node); i-- > 0;) {
        const std::uint32_t s = node.succ[i];
        preds_[s].push_back(n);
        if (order_[s] != kNoNode) continue;
        order_[s] = discovered++;
        stack.push_back(s);
      }
    }
  }

  // The outermost region with several entries: the strongly connected
  // components of the reachable graph, then of each single-entry component
  // less its entry, and so on down.
  bool find_region(Region& out) {
    const std::uint32_t size = g_.size();
    region_of_.assign(size, kNoNode);
    std::vector<NodeList> work{reachable_};
    std::uint32_t next_region = 0;
    while (!work.empty()) {
      NodeList nodes = std::move(work.back());
      work.pop_back();
      const std::uint32_t region = next_region++;
      for (std::uint32_t n : nodes) region_of_[n] = region;
      for (NodeList& scc : components(nodes, region)) {
        const std::uint32_t inner = next_region++;
        for (std::uint32_t n : scc) region_of_[n] = inner;
        NodeList entries;
        for (std::uint32_t n : scc) {
          const bool entered =
              n == 0 || std::any_of(preds_[n].begin(), preds_[n].end(),
                                    [&](std::uint32_t p) { return region_of_[p] != inner; });
          if (entered) entries.push_back(n);
        }
        std::sort(entries.begin(), entries.end(),
                  [&](std::uint32_t a, std::uint32_t b) { return order_[a] < order_[b]; });
        if (entries.size() > 1) {
          std::sort(scc.begin(), scc.end());
          out.nodes = std::move(scc);
          out.entries = std::move(entries);
          return true;
        }
        std::erase(scc, entries.front());
        if (!scc.empty()) work.push_back(std::move(scc));
      }
    }
    return false;
  }

  // The strongly connected components of the nodes marked `region` that hold
  // a cycle (Tarjan's algorithm on a stack of our own).
  std::vector<NodeList> components(const NodeList& nodes, std::uint32_t region) {
    // Reset for these nodes only: a region is visited once per level it nests.
    index_.resize(g_.size(), kNoNode);
    low_.resize(g_.size(), 0);
    on_stack_.resize(g_.size(), 0);
    for (std::uint32_t n : nodes) index_[n] = kNoNode;
    std::vector<NodeList> out;
    NodeList scc_stack;
    std::vector<std::pair<std::uint32_t, unsigned>> calls;
    std::uint32_t next_index = 0;
    const auto inside = [&](std::uint32_t n) { return region_of_[n] == region; };
    for (std::uint32_t root : nodes) {
      if (index_[root] != kNoNode) continue;
      calls.emplace_back(root, 0);
      index_[root] = low_[root] = next_index++;
      scc_stack.push_back(root);
      on_stack_[root] = 1;
      while (!calls.empty()) {
        auto& [n, next] = calls.back();
        const Node& node = g_[n];
        if (next < successor_count(node)) {
          const std::uint32_t s = node.succ[next++];
          if (!inside(s)) continue;
          if (index_[s] == kNoNode) {
            index_[s] = low_[s] = next_index++;
            scc_stack.push_back(s);
            on_stack_[s] = 1;
            calls.emplace_back(s, 0);
          } else if (on_stack_[s]) {
            low_[n] = std::min(low_[n], index_[s]);
          }
          continue;
        }
        const std::uint32_t done = n;
        calls.pop_back();
        if (!calls.empty()) {
          const std::uint32_t parent = calls.back().first;
          low_[parent] = std::min(low_[parent], low_[done]);
        }
        if (low_[done] != index_[done]) continue;
        NodeList scc;
        std::uint32_t x;
        do {
          x = scc_stack.back();
          scc_stack.pop_back();
          on_stack_[x] = 0;
          scc.push_back(x);
        } while (x != done);
        const Node& d = g_[done];
        const bool self_loop = (successor_count(d) > 0 && d.succ[0] == done) ||
                               (successor_count(d) > 1 && d.succ[1] == done);
        if (scc.size() > 1 || self_loop) out.push_back(std::move(scc));
      }
    }
    return out;
  }

  bool in(const NodeList& sorted, std::uint32_t n) const {
    return std::binary_search(sorted.begin(), sorted.end(), n);
  }

  // Node splitting: the first entry stays the header; each other entry gets
  // a copy of what it reaches in the region short of the header, and the
  // edges from outside go to the copy. False if that would pass the bound.
  bool split(const Region& region) {
    const std::uint32_t header = region.entries.front();
    std::vector<NodeList> reach;
    std::uint64_t copies = 0;
    for (std::size_t i = 1; i < region.entries.size(); ++i) {
      reach.push_back(reached_short_of(region, region.entries[i], header));
      copies += reach.back().size();
      if (stats_.copied + copies > max_copies_) return false;
    }
    for (std::size_t i = 1; i < region.entries.size(); ++i) {
      const NodeList& nodes = reach[i - 1];  // sorted
      NodeList copy_of(nodes.size());
      for (std::size_t k = 0; k < nodes.size(); ++k) copy_of[k] = g_.add(g_[nodes[k]].event);
      const auto copy = [&](std::uint32_t s) {
        const auto it = std::lower_bound(nodes.begin(), nodes.end(), s);
        return it != nodes.end() && *it == s ? copy_of[static_cast<std::size_t>(it - nodes.begin())]
                                             : s;
      };
      for (std::size_t k = 0; k < nodes.size(); ++k) {
        const Node original = g_[nodes[k]];
        for (unsigned j = 0; j < successor_count(original); ++j) {
          g_[copy_of[k]].succ[j] = copy(original.succ[j]);
        }
      }
      const std::uint32_t entry = region.entries[i];
      redirect_from_outside(region, entry, copy(entry));
    }
    stats_.copied += copies;
    ++stats_.split;
    return true;
  }

  // The nodes of the region reachable from `from` without passing `header`.
  NodeList reached_short_of(const Region& region, std::uint32_t from, std::uint32_t header) {
    NodeList out;
    std::vector<std::uint32_t> work{from};
    seen_.resize(g_.size(), 0);
    seen_[from] = 1;
    while (!work.empty()) {
      const std::uint32_t n = work.back();
      work.pop_back();
      out.push_back(n);
      const Node& node = g_[n];
      for (unsigned j = 0; j < successor_count(node); ++j) {
        const std::uint32_t s = node.succ[j];
        if (s == header || seen_[s] || !in(region.nodes, s)) continue;
        seen_[s] = 1;
        work.push_back(s);
      }
    }
    for (std::uint32_t n : out) seen_[n] = 0;
    std::sort(out.begin(), out.end());
    return out;
  }

  // Points the edges into `entry` from reachable nodes outside the region at `to`.
  void redirect_from_outside(const Region& region, std::uint32_t entry, std::uint32_t to) {
    for (std::uint32_t p : preds_[entry]) {
      if (in(region.nodes, p)) continue;
      Node& node = g_[p];
      for (unsigned j = 0; j < successor_count(node); ++j) {
        if (node.succ[j] == entry) node.succ[j] = to;
      }
    }
  }

  // A dispatch loop: `state = k` on every edge into entry k, then a chain of
  // branches on `state` that is the region's one header. (The graph's entry,
  // node 0, is never one of several entries: a node that reaches a region
  // holding it is reachable from it, so inside the region.)
  void dispatch(const Region& region) {
    const ir::VarId state{static_cast<std::uint32_t>(g_.vars.size())};
    g_.vars.push_back({"state", ir::Type::i32(), false, 0});
    const std::uint32_t id = stats_.dispatched++;
    std::uint64_t serial = 0;
    const auto event = [&](EventKind kind) {
      Event e;
      e.kind = kind;
      // Tags no first-stage operation has: these nodes are not found again.
      e.tag = Tag{~std::uint64_t{0} - id, serial++};
      return e;
    };
    const auto setter = [&](std::size_t i) {
      Event set = event(EventKind::Assign);
      set.var = state;
      set.expr = ir::constant(ir::Type::i32(), i);
      return set;
    };
    const ir::ExprPtr read = ir::read(state, ir::Type::i32());
    const std::size_t k = region.entries.size();
    // The chain: branch i goes to entry i when state == i, else on.
    NodeList chain(k - 1);
    for (std::size_t i = 0; i + 1 < k; ++i) {
      Event test = event(EventKind::Branch);
      test.expr = ir::binary(ir::BinaryOp::Eq, read, ir::constant(ir::Type::i32(), i));
      chain[i] = g_.add(std::move(test));
    }
    for (std::size_t i = 0; i + 1 < k; ++i) {
      g_[chain[i]].succ[1] = region.entries[i];
      g_[chain[i]].succ[0] = i + 2 < k ? chain[i + 1] : region.entries[k - 1];
    }
    for (std::size_t i = 0; i < k; ++i) {
      const std::uint32_t entry = region.entries[i];
      // One setter for the edges from outside, another for those from inside
      // (back edges to the new header): the region keeps one entry.
      std::uint32_t outside = kNoNode;
      std::uint32_t inside = kNoNode;
      for (std::uint32_t p : preds_[entry]) {
        std::uint32_t& to = in(region.nodes, p) ? inside : outside;
        if (to == kNoNode) {
          to = g_.add(setter(i));
          g_[to].succ[0] = chain.front();
        }
        Node& node = g_[p];
        for (unsigned j = 0; j < successor_count(node); ++j) {
          if (node.succ[j] == entry) node.succ[j] = to;
        }
      }
    }
  }

  Graph& g_;
  const std::uint64_t max_copies_;
  ReducibleStats& stats_;
  NodeList order_;
  std::vector<NodeList> preds_;
  NodeList reachable_;
  NodeList region_of_;
  NodeList index_;
  NodeList low_;
  std::vector<std::uint8_t> on_stack_;
  std::vector<std::uint8_t> seen_;
};

}  // namespace

void make_reducible(Graph& graph, std::uint64_t max_copies, ReducibleStats& stats) {
  if (graph.empty()) return;
  Reducer(graph, std::min<std::uint64_t>(max_copies, graph.size()), stats).run();
}

}  // namespace augur::stage
