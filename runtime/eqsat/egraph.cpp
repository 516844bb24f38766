#include "runtime/eqsat/egraph.h"

#include <algorithm>
#include <array>
#include <atomic>

#include "jit/error.h"
#include "runtime/eqsat/explain.h"

namespace augur::eqsat {

namespace {
std::atomic<std::uint64_t> egraphs_made{0};
}  // namespace

EGraph::EGraph(EGraphOptions options)
    : serial_(++egraphs_made),
      reason_names_{"given", "congruence"},
      reason_index_{{"given", 0}, {"congruence", 1}} {
  if (options.explanations && options.commutative)
    throw jit::error("e-graph: explanations cannot be combined with commutative operators");
  if (options.explanations) explain_ = std::make_unique<Explain>();
  commutative_ = options.commutative;
}

EGraph::~EGraph() = default;

void EGraph::throw_analysis_too_late(std::string_view name) {
  throw jit::error("e-graph: analysis '" + std::string(name) +
                   "' must be added before the first e-node");
}

void EGraph::throw_no_analysis() {
  throw jit::error("e-graph: a guard or cost needs an analysis this e-graph does not have");
}

Reason EGraph::reason(std::string_view name) {
  // Interned by map: the runner interns every rule's name on every run.
  const auto [it, added] = reason_index_.try_emplace(
      std::string(name), static_cast<std::uint32_t>(reason_names_.size()));
  if (added) reason_names_.emplace_back(name);
  return Reason{it->second};
}

Id EGraph::find_mut(Id id) {
  // Path halving: every other node on the path points to its grandparent.
  std::uint32_t i = index(id);
  while (index(parent_[i]) != i) {
    parent_[i] = parent_[index(parent_[i])];
    i = index(parent_[i]);
  }
  return make_id(i);
}

std::uint64_t EGraph::memo_hash(Label label, std::span<const Id> children) const {
  if (children.size() == 2 && children[1] < children[0] && commutative(label.op)) {
    const Id sorted[] = {children[1], children[0]};
    return hash_node(label, sorted);
  }
  return hash_node(label, children);
}

std::optional<Id> EGraph::memo_find(Label label, std::span<const Id> children,
                                    std::uint64_t hash) const {
  const bool mirrors = children.size() == 2 && commutative(label.op);
  return memo_.find(hash, [&](Id candidate) {
    const NodeRecord& r = nodes_[index(candidate)];
    if (r.label != label || r.arity != children.size()) return false;
    const auto stored = child_pool_.begin() + r.first;
    return std::equal(children.begin(), children.end(), stored) ||
           (mirrors && children[0] == stored[1] && children[1] == stored[0]);
  });
}

Id EGraph::new_id(Label label, std::span<const Id> children, bool dead) {
  const auto id = make_id(static_cast<std::uint32_t>(nodes_.size()));
  if (nodes_.size() >= 0xffffffffu || children.size() >= (1u << 24))
    throw jit::error("e-graph: too many e-nodes or children");
  NodeRecord r;
  r.label = label;
  r.first = static_cast<std::uint32_t>(child_pool_.size());
  r.arity = static_cast<std::uint32_t>(children.size());
  r.dead = dead ? 1 : 0;
  nodes_.push_back(r);
  if (commutative_ && children.size() == 2 &&
      (label.op >= commutes_.size() || commutes_[label.op] == kUnknown)) {
    if (label.op >= commutes_.size()) commutes_.resize(label.op + 1, kUnknown);
    commutes_[label.op] = commutative_(label.op) ? 1 : 0;
  }
  node_epoch_.push_back(epoch_ + 1);
  child_pool_.insert(child_pool_.end(), children.begin(), children.end());
  parent_.push_back(id);
  classes_.emplace_back();
  return id;
}

namespace {

// An e-node's children mapped to their classes, on the stack for the usual
// few: adding and looking up allocate nothing.
class CanonicalChildren {
 public:
  template <class Find>
  CanonicalChildren(std::span<const Id> children, Find find) : size_(children.size()) {
    if (size_ > small_.size()) large_.resize(size_);
    Id* out = data();
    for (std::size_t i = 0; i < size_; ++i) out[i] = find(children[i]);
  }
  std::span<Id> span() { return {data(), size_}; }

 private:
  Id* data() { return size_ > small_.size() ? large_.data() : small_.data(); }

  std::array<Id, 8> small_;
  std::vector<Id> large_;
  std::size_t size_;
};

}  // namespace

Id EGraph::add(Label label, std::span<const Id> children) {
  return find_mut(add_uncanonical(label, children));
}

Id EGraph::add_uncanonical(Label label, std::span<const Id> children) {
  if (explain_) {
    if (auto exact = explain_->find_exact(label, children)) return *exact;
  }
  // Copies: `children` may point into child_pool_, which new_id() grows.
  CanonicalChildren buffer(children, [this](Id c) { return find_mut(c); });
  const std::span<Id> canonical = buffer.span();
  const std::uint64_t hash = memo_hash(label, canonical);
  const std::optional<Id> existing = memo_find(label, canonical, hash);
  if (existing && !explain_) return *existing;
  std::vector<Id> original;
  if (explain_) original.assign(children.begin(), children.end());

  const Id id = new_id(label, canonical, /*dead=*/existing.has_value());
  if (existing) {
    // A shadow: the same e-node built from other (equal) ids. It joins the
    // existing class at once; only the explanation forest sees it.
    for (auto& a : analyses_) a->on_add(*this, id, nullptr);
    parent_[index(id)] = find_mut(*existing);
    explain_->add_node(id, label, original);
    explain_->record_merge(id, *existing, kCongruenceReason);
    return id;
  }
  memo_.insert(hash, id);
  classes_[index(id)].nodes.push_back(id);
  for (std::size_t i = 0; i < canonical.size(); ++i) {
    const Id c = canonical[i];
    if (std::find(canonical.begin(), canonical.begin() + i, c) == canonical.begin() + i)
      classes_[index(c)].parents.push_back(id);
  }
  if (explain_) explain_->add_node(id, label, original);
  ++class_count_;
  changing_.push_back(id);
  clean_ = false;
  const ENodeView view = node(id);
  for (auto& a : analyses_) a->on_add(*this, id, &view);
  for (auto& a : analyses_) a->on_modify(*this, id);
  return id;
}

Id EGraph::add_placeholder() {
  Id id = new_id(Label{}, {}, /*dead=*/true);
  for (auto& a : analyses_) a->on_add(*this, id, nullptr);
  if (explain_) explain_->add_placeholder(id);
  ++class_count_;
  changing_.push_back(id);
  clean_ = false;
  return id;
}

bool EGraph::merge(Id a, Id b, Reason why) {
  Id root = find_mut(a);
  Id absorbed = find_mut(b);
  if (root == absorbed) return false;
  if (explain_) explain_->record_merge(a, b, why);
  // The bigger class survives, so fewer ids move; ties keep the smaller id.
  const auto size = [&](Id c) {
    return classes_[index(c)].nodes.size() + classes_[index(c)].parents.size();
  };
  if (size(root) < size(absorbed) || (size(root) == size(absorbed) && absorbed < root))
    std::swap(root, absorbed);
  parent_[index(absorbed)] = root;

  EClass& from = classes_[index(absorbed)];
  pending_.insert(pending_.end(), from.parents.begin(), from.parents.end());
  // The absorbed class's e-nodes belong to another class now.
  for (Id n : from.nodes) node_epoch_[index(n)] = epoch_ + 1;
  for (auto& an : analyses_) {
    const Analysis::MergeResult r = an->on_merge(root, absorbed);
    const EClass& into = classes_[index(root)];
    if (r.root_changed) {
      data_changing_.push_back(root);
      analysis_pending_.insert(analysis_pending_.end(), into.parents.begin(), into.parents.end());
    }
    if (r.absorbed_differs)
      analysis_pending_.insert(analysis_pending_.end(), from.parents.begin(), from.parents.end());
  }
  EClass& into = classes_[index(root)];
  into.nodes.append(from.nodes);
  into.parents.append(from.parents);
  from = EClass{};
  touched_.push_back(root);
  changing_.push_back(root);
  --class_count_;
  clean_ = false;
  for (auto& an : analyses_) an->on_modify(*this, root);
  return true;
}

void EGraph::canonicalize(Id n, std::size_t& merges) {
  NodeRecord& r = nodes_[index(n)];
  if (r.dead) return;
  Id* first = child_pool_.data() + r.first;
  const std::span<Id> children(first, r.arity);
  if (std::all_of(children.begin(), children.end(), [&](Id c) { return find(c) == c; })) return;
  memo_.erase(memo_hash(r.label, children), n);
  node_epoch_[index(n)] = epoch_ + 1;
  for (Id& c : children) c = find_mut(c);
  const std::uint64_t hash = memo_hash(r.label, children);
  if (std::optional<Id> other = memo_find(r.label, children, hash)) {
    nodes_[index(n)].dead = 1;
    touched_.push_back(find_mut(n));
    if (merge(*other, n, kCongruenceReason)) ++merges;
  } else {
    memo_.insert(hash, n);
  }
}

std::size_t EGraph::rebuild() {
  // Nothing added, merged or pruned since the last rebuild: the index and
  // the analyses are what they were.
  if (clean_ && pending_.empty() && analysis_pending_.empty()) {
    changed_.clear();
    data_changed_.clear();
    ++epoch_;
    return 0;
  }
  std::size_t merges = 0;
  while (!pending_.empty() || !analysis_pending_.empty()) {
    while (!pending_.empty()) {
      const Id n = pending_.back();
      pending_.pop_back();
      canonicalize(n, merges);
    }
    while (!analysis_pending_.empty()) {
      const Id n = analysis_pending_.back();
      analysis_pending_.pop_back();
      if (nodes_[index(n)].dead) continue;
      for (std::size_t i = 0; i < analyses_.size(); ++i) {
        const Id cls = find_mut(n);
        if (!analyses_[i]->on_update(*this, cls, node(n))) continue;
        data_changing_.push_back(cls);
        const IdList& parents = classes_[index(cls)].parents;
        analysis_pending_.insert(analysis_pending_.end(), parents.begin(), parents.end());
        analyses_[i]->on_modify(*this, cls);
      }
    }
  }
  // A class merged into many times is listed as often; normalize it once.
  for (Id& c : touched_) c = find_mut(c);
  std::sort(touched_.begin(), touched_.end());
  touched_.erase(std::unique(touched_.begin(), touched_.end()), touched_.end());
  for (Id c : touched_) normalize(c);
  touched_.clear();
  index_classes();
  clean_ = true;
  for (auto& a : analyses_) a->on_rebuilt(*this);
  // What changed since the last rebuild, as classes of now.
  for (const auto& a : analyses_) {
    const std::span<const Id> data = a->changed();
    data_changing_.insert(data_changing_.end(), data.begin(), data.end());
  }
  const auto settle = [&](std::vector<Id>& changing, std::vector<Id>& changed) {
    changed.swap(changing);
    changing.clear();
    for (Id& c : changed) c = find_mut(c);
    std::sort(changed.begin(), changed.end());
    changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
  };
  settle(data_changing_, data_changed_);
  changing_.insert(changing_.end(), data_changed_.begin(), data_changed_.end());
  settle(changing_, changed_);
  ++epoch_;
  return merges;
}

void EGraph::normalize(Id cls) {
  EClass& c = classes_[index(cls)];
  c.nodes.erase_if([&](Id n) { return nodes_[index(n)].dead || nodes_[index(n)].pruned; });
  std::sort(c.nodes.begin(), c.nodes.end(), [&](Id x, Id y) {
    const Label lx = nodes_[index(x)].label, ly = nodes_[index(y)].label;
    return lx != ly ? lx < ly : x < y;
  });
  c.parents.erase_if([&](Id n) { return nodes_[index(n)].dead != 0; });
  std::sort(c.parents.begin(), c.parents.end());
  c.parents.erase_from(std::unique(c.parents.begin(), c.parents.end()));
}

void EGraph::index_classes() {
  roots_.clear();
  for (auto& list : by_op_) list.clear();
  index_begin_.assign(parent_.size() + 1, 0);
  index_.clear();
  index_children_.clear();
  for (std::uint32_t i = 0; i < parent_.size(); ++i) {
    index_begin_[i] = static_cast<std::uint32_t>(index_.size());
    if (index(parent_[i]) != i) continue;
    const Id cls = make_id(i);
    roots_.push_back(cls);
    for (Id n : classes_[i].nodes) {
      const ENodeView v = node(n);
      if (index_.size() == index_begin_[i] || index_.back().label.op != v.label.op) {
        if (v.label.op >= by_op_.size()) by_op_.resize(v.label.op + 1);
        by_op_[v.label.op].push_back(cls);
      }
      index_.push_back({v.label, n, static_cast<std::uint32_t>(index_children_.size())});
      index_children_.insert(index_children_.end(), v.children.begin(), v.children.end());
    }
  }
  index_begin_[parent_.size()] = static_cast<std::uint32_t>(index_.size());
  index_.push_back({Label{}, Id{}, static_cast<std::uint32_t>(index_children_.size())});
}

std::span<const EGraph::IndexedNode> EGraph::indexed(Id root) const {
#if AUGUR_CHECKED
  if (!clean_ || find(root) != root)
    throw jit::error("e-graph: the matching index needs a clean e-graph and a canonical id");
#endif
  const std::uint32_t begin = index_begin_[index(root)];
  return {index_.data() + begin, index_begin_[index(root) + 1] - begin};
}

namespace {
// The sub-range of `all` (sorted by `key`) whose key equals `want`; a linear
// scan for the short ranges most classes have.
template <class T, class Want, class KeyOf>
std::span<const T> equal_range(std::span<const T> all, const Want& want, KeyOf key) {
  std::size_t first = 0;
  if (all.size() <= 8) {
    while (first < all.size() && key(all[first]) < want) ++first;
  } else {
    first = static_cast<std::size_t>(
        std::partition_point(all.begin(), all.end(), [&](const T& x) { return key(x) < want; }) -
        all.begin());
  }
  std::size_t last = first;
  while (last < all.size() && key(all[last]) == want) ++last;
  return all.subspan(first, last - first);
}
}  // namespace

std::span<const EGraph::IndexedNode> EGraph::indexed(Id root, Op op) const {
  return equal_range(indexed(root), op, [](const IndexedNode& n) { return n.label.op; });
}

std::span<const EGraph::IndexedNode> EGraph::indexed(Id root, Label label) const {
  return equal_range(indexed(root), label, [](const IndexedNode& n) { return n.label; });
}

std::optional<Id> EGraph::lookup(Label label, std::span<const Id> children) const {
  // Called for every match of some guarded rules (rewrite.cpp).
  CanonicalChildren buffer(children, [this](Id c) { return find(c); });
  const std::span<const Id> canonical = buffer.span();
  if (auto hit = memo_find(label, canonical, memo_hash(label, canonical))) return find(*hit);
  return std::nullopt;
}

std::size_t EGraph::memory_bytes() const {
  std::size_t bytes = nodes_.capacity() * sizeof(NodeRecord) + child_pool_.capacity() * sizeof(Id) +
                      parent_.capacity() * sizeof(Id) + classes_.capacity() * sizeof(EClass) +
                      memo_.memory_bytes() + roots_.capacity() * sizeof(Id) + commutes_.capacity();
  for (const EClass& c : classes_) bytes += c.nodes.heap_bytes() + c.parents.heap_bytes();
  for (const auto& list : by_op_) bytes += list.capacity() * sizeof(Id);
  if (explain_) bytes += explain_->memory_bytes();
  bytes += index_begin_.capacity() * sizeof(std::uint32_t) +
           index_.capacity() * sizeof(IndexedNode) + index_children_.capacity() * sizeof(Id);
  return bytes;
}

}  // namespace augur::eqsat
