// E-class analyses: facts attached to every e-class and kept right across
// merges (egg's Analysis). An EGraph owns its analyses and calls these hooks:
//
//  - on_add when an id is created (node is null for a placeholder class and for
//    the shadow e-nodes explanations record), then on_modify for a new class;
//  - on_merge when two classes merge, before their e-nodes are combined;
//  - during rebuild(), on_update for every parent e-node of a class whose data
//    changed, then on_modify where it changed; on_rebuilt once at the end.
//
// on_modify may add e-nodes and merge classes (constant folding adds the
// constant and merges it in). Everything else must only read the e-graph.
// Guards read analysis data from several threads at once during the search
// phase, so reading must not mutate.
#pragma once

#include <concepts>
#include <span>
#include <string_view>
#include <vector>

#include "runtime/eqsat/id.h"

namespace augur::eqsat {

class EGraph;

class Analysis {
 public:
  Analysis() = default;
  Analysis(const Analysis&) = delete;
  Analysis& operator=(const Analysis&) = delete;
  virtual ~Analysis() = default;

  virtual std::string_view name() const = 0;

  // The classes whose data the last rebuild changed other than by adding,
  // merging or pruning their e-nodes (which the e-graph sees itself): an
  // analysis recomputed in on_rebuilt lists them there. EGraph::changed()
  // includes them.
  virtual std::span<const Id> changed() const { return {}; }

 protected:
  // The e-graph that owns this analysis.
  const EGraph& graph() const { return *graph_; }

  struct MergeResult {
    bool root_changed = false;      // the surviving class's data changed
    bool absorbed_differs = false;  // the merged data differs from the absorbed class's
  };

 private:
  friend class EGraph;

  virtual void on_add(const EGraph& g, Id id, const ENodeView* node) = 0;
  virtual MergeResult on_merge(Id root, Id absorbed) = 0;
  virtual bool on_update(const EGraph& g, Id cls, const ENodeView& node) = 0;
  virtual void on_modify(EGraph&, Id) {}
  virtual void on_rebuilt(const EGraph&) {}

  const EGraph* graph_ = nullptr;
};

// An analysis whose data forms a join-semilattice, computed bottom-up from
// each e-node (make) and joined when classes merge (join). Data{} is the
// bottom: the data of a placeholder class, and what join must treat as "no
// information".
template <class Data>
requires std::default_initializable<Data> && std::equality_comparable<Data>
class ClassAnalysis : public Analysis {
 public:
  // The data of the class that contains `id`.
  const Data& operator[](Id id) const;

 protected:
  // The data `node` alone implies; children are canonical, so (*this)[child]
  // reads their data.
  virtual Data make(const EGraph& g, const ENodeView& node) const = 0;
  // Joins `from` into `into`; returns whether `into` changed.
  virtual bool join(Data& into, const Data& from) const = 0;
  // Called after a class's data changed (egg's modify).
  virtual void modify(EGraph&, Id) {}

 private:
  void on_add(const EGraph& g, Id id, const ENodeView* node) final {
    data_.resize(index(id) + 1);
    if (node) data_[index(id)] = make(g, *node);
  }
  MergeResult on_merge(Id root, Id absorbed) final {
    Data& into = data_[index(root)];
    const Data& from = data_[index(absorbed)];
    MergeResult r;
    r.root_changed = join(into, from);
    r.absorbed_differs = !(into == from);
    return r;
  }
  bool on_update(const EGraph& g, Id cls, const ENodeView& node) final {
    return join(data_[index(cls)], make(g, node));
  }
  void on_modify(EGraph& g, Id cls) final { modify(g, cls); }

  std::vector<Data> data_;
};

}  // namespace augur::eqsat
