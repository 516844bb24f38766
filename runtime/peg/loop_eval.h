// Evaluating a loop whose inputs are all constants, inside the e-graph: the
// value eval_ℓ(x, pass_ℓ(c)) of a loop that reads no parameter and no memory
// is computed by running the loop (the θs' initial values, then their next
// values until c holds) with the IR's semantics (peg_fold.h). Inner loops are
// run the same way for each outer iteration. Bounded: it gives up past a few
// thousand iterations or node evaluations, or on anything it cannot fold.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "runtime/eqsat/analysis.h"
#include "runtime/eqsat/egraph.h"

namespace augur::peg {

// What evaluate_loop learned about the loops of one e-graph, so that the
// rule, which runs on every eval at every saturation iteration, does not
// simulate the same loop again to the same end. No data per class: an
// e-graph owns it as an analysis (make_peg_egraph), and only rules'
// actions, which run one at a time, use it.
class LoopEvalMemo final : public eqsat::Analysis {
 public:
  using Key = std::pair<std::uint32_t, std::uint32_t>;  // value's and pass's class indices

  std::string_view name() const override { return "loop-eval-memo"; }
  // The loops given up on because a run ran past the budget (iterations or
  // class evaluations), by their pass's class then. The budget is the
  // loop's, not each value's: every value of a loop runs its iterations
  // (only the θs one value alone reaches add work), and merging classes
  // changes neither a loop's trip count nor its work. So a loop is
  // simulated to its budget once, not again for each of its values at every
  // saturation iteration (on the register VM, 186 of 32,796 attempts did
  // 90% of the rule's work; keyed by value and pass, the values of a few
  // long loops, which distributing rules keep making, still took a seventh
  // of the optimizer's time on vm_1000).
  bool gave_up(std::uint32_t pass) const { return gave_up_.contains(pass); }
  void give_up(std::uint32_t pass) const { gave_up_.insert(pass); }

  // A class that kept a loop from starting: the initial value of one of its
  // θs that is not a known constant, or (`opaque`) a class the loop varies
  // that no e-node can fold. While that class stays so, the loop cannot
  // start again (unless a class between it and the eval becomes invariant
  // in the loop, which hides it from the walk: that fold is then missed, the
  // same way on every machine), so the rule looks at the class instead of
  // walking the loop (on the register VM, 32,400 of the rule's 32,800
  // attempts stopped there, each after a walk of the loop: 25 of its 44 ms).
  struct Blocker {
    std::uint32_t cls = 0;  // class index
    bool opaque = false;
  };
  const Blocker* blocker(Key key) const {
    const auto it = blocked_.find(key);
    return it == blocked_.end() ? nullptr : &it->second;
  }
  void block(Key key, Blocker blocker) const { blocked_.insert_or_assign(key, blocker); }
  // The same for a class the loop's exit condition reaches, which keeps
  // every value of the loop from starting, by the pass's class (the
  // register VM's loops are asked for about 15 values each, at first each
  // walked).
  const Blocker* loop_blocker(std::uint32_t pass) const {
    const auto it = loop_blocked_.find(pass);
    return it == loop_blocked_.end() ? nullptr : &it->second;
  }
  void block_loop(std::uint32_t pass, Blocker blocker) const {
    loop_blocked_.insert_or_assign(pass, blocker);
  }

 private:
  void on_add(const eqsat::EGraph&, eqsat::Id, const eqsat::ENodeView*) override {}
  MergeResult on_merge(eqsat::Id, eqsat::Id) override { return {}; }
  bool on_update(const eqsat::EGraph&, eqsat::Id, const eqsat::ENodeView&) override {
    return false;
  }

  mutable std::set<std::uint32_t> gave_up_;
  mutable std::map<Key, Blocker> blocked_;
  mutable std::map<std::uint32_t, Blocker> loop_blocked_;
};

// The constant eval_ℓ(x, pass) denotes, if it can be computed; `pass` is a
// class holding a pass_ℓ e-node.
std::optional<eqsat::Label> evaluate_loop(const eqsat::EGraph& egraph, eqsat::Id x, eqsat::Id pass,
                                          unsigned loop);

}  // namespace augur::peg
