// Constant folding as an e-class analysis, with the client's semantics.
//
// The client's fold function says which constant an e-node denotes given the
// constants of its children: it decides wrapping integer or IEEE arithmetic,
// and when not to fold (division by zero, a trap). The engine assumes nothing
// about numbers. A class's data is the constant it equals, if known; when a
// class gets one, modify adds the constant leaf to it and, optionally, prunes
// the class to its leaves (egg's math example does; the other e-nodes stay
// equal but stop matching and being extracted).
//
// Two different constants meeting in one class mean the rules or the fold are
// unsound: that throws jit::error, and the e-graph must then be discarded.
// Two spellings of one value (Options::same) are no conflict: the class keeps
// the one it had.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string_view>

#include "runtime/eqsat/analysis.h"
#include "runtime/eqsat/egraph.h"

namespace augur::eqsat {

class ConstantFolding : public ClassAnalysis<std::optional<Label>> {
 public:
  // The constant label an e-node with label `node` denotes when its children
  // are the constants `children` (empty for a leaf: a literal folds to itself,
  // a symbol to nullopt). Called only when every child is a known constant.
  using Fold = std::function<std::optional<Label>(Label node, std::span<const Label> children)>;

  // Whether two constant labels denote one value, when a value has several
  // spellings (every NaN, for IEEE floats); null: only equal labels.
  using Same = std::function<bool(Label a, Label b)>;

  struct Options {
    bool prune = true;  // keep only leaves in a class once it is constant
    Same same = nullptr;
  };

  explicit ConstantFolding(Fold fold) : ConstantFolding(std::move(fold), Options{}) {}
  ConstantFolding(Fold fold, Options options) : fold_(std::move(fold)), options_(options) {}

  std::string_view name() const override { return "constant-fold"; }
  std::optional<Label> constant(Id cls) const { return (*this)[cls]; }

 protected:
  std::optional<Label> make(const EGraph& g, const ENodeView& node) const override;
  bool join(std::optional<Label>& into, const std::optional<Label>& from) const override;
  void modify(EGraph& g, Id cls) override;

 private:
  std::optional<Label> fold_node(const EGraph& g, const ENodeView& node) const;

  Fold fold_;
  Options options_;
  std::optional<Reason> reason_;  // "constant-fold", interned in the owning e-graph
};

}  // namespace augur::eqsat
