#include "runtime/eqsat/query.h"

#include <algorithm>
#include <array>

#include "jit/error.h"

namespace augur::eqsat {

void Matches::push(Id root, std::span<const Id> classes, std::span<const std::uint64_t> payloads) {
  roots_.push_back(root);
  classes_.insert(classes_.end(), classes.begin(), classes.end());
  payloads_.insert(payloads_.end(), payloads.begin(), payloads.end());
}

Query::Query(Pattern pattern, VarTable vars) : vars_(std::move(vars)) {
  bindings_.push_back(Binding{0, std::move(pattern)});
  compile();
}

Query::Query(std::vector<Binding> bindings, VarTable vars)
    : bindings_(std::move(bindings)), vars_(std::move(vars)), multi_(true) {
  if (bindings_.empty()) throw jit::error("multi-pattern: no patterns");
  if (bindings_.front().pattern.is_var())
    throw jit::error("multi-pattern: the first pattern must not be a bare variable");
  compile();
}

Query Query::parse(TokenCursor& cursor, Language& language) {
  VarTable vars;
  const bool multi = !cursor.done() && cursor.peek().kind == Token::Kind::Atom &&
                     cursor.peek().text.starts_with('?');
  // `?x` alone is a pattern; `?x = ...` starts a multi-pattern.
  std::vector<Binding> bindings;
  if (multi) {
    Pattern first = parse_pattern(cursor, language, vars, NewVars::Allowed);
    if (!cursor.at_atom("=")) return Query(std::move(first), std::move(vars));
    std::uint32_t var = first.nodes.back().var;
    for (;;) {
      cursor.next();  // '='
      bindings.push_back(Binding{var, parse_pattern(cursor, language, vars, NewVars::Allowed)});
      if (cursor.at_atom("=")) continue;  // ?x = p1 = p2
      if (cursor.done() || cursor.peek().kind != Token::Kind::Comma) break;
      cursor.next();
      const Token& v = cursor.next();
      if (v.kind != Token::Kind::Atom || !v.text.starts_with('?'))
        cursor.fail_at(v, "expected '?var = pattern'");
      const std::optional<std::uint32_t> known = vars.find_class(v.text);
      var = known ? *known : vars.add_class(v.text);
      if (!cursor.at_atom("=")) cursor.fail("expected '=' after " + std::string(v.text));
    }
    return Query(std::move(bindings), std::move(vars));
  }
  Pattern pattern = parse_pattern(cursor, language, vars, NewVars::Allowed);
  return Query(std::move(pattern), std::move(vars));
}

Query Query::parse(std::string_view text, Language& language) {
  const std::vector<Token> tokens = tokenize(text);
  TokenCursor cursor(tokens);
  Query q = parse(cursor, language);
  if (!cursor.done()) cursor.fail("unexpected text after the pattern");
  return q;
}

void Query::compile_pattern(const Pattern& pattern, std::uint32_t node, std::uint32_t reg,
                            std::vector<std::int64_t>& var_reg, std::vector<bool>& payload_bound) {
  const PatternNode& n = pattern.nodes[node];
  if (n.kind == PatternNode::Kind::Var) {
    if (var_reg[n.var] < 0) {
      var_reg[n.var] = reg;
    } else {
      Instruction c;
      c.kind = Instruction::Kind::Compare;
      c.in = static_cast<std::uint32_t>(var_reg[n.var]);
      c.out = reg;
      program_.push_back(c);
    }
    return;
  }
  Instruction b;
  b.in = reg;
  b.out = registers_;
  b.label = n.label;
  b.arity = static_cast<std::uint32_t>(n.children.size());
  if (n.payload) {
    b.payload = static_cast<std::int32_t>(*n.payload);
    b.binds_payload = !payload_bound[*n.payload];
    payload_bound[*n.payload] = true;
  }
  registers_ += b.arity;
  program_.push_back(b);
  for (std::uint32_t i = 0; i < n.children.size(); ++i)
    compile_pattern(pattern, n.children[i], b.out + i, var_reg, payload_bound);
}

void Query::compile() {
  std::vector<std::int64_t> var_reg(vars_.class_names().size(), -1);
  std::vector<bool> payload_bound(vars_.payload_names().size(), false);
  registers_ = 1;
  // At most one instruction per pattern node and one scan per binding.
  std::size_t instructions = 0;
  for (const Binding& b : bindings_) instructions += b.pattern.nodes.size() + 1;
  program_.reserve(instructions);
  for (std::size_t k = 0; k < bindings_.size(); ++k) {
    const Binding& b = bindings_[k];
    std::uint32_t reg = 0;
    if (k > 0) {
      if (var_reg[b.var] >= 0) {
        reg = static_cast<std::uint32_t>(var_reg[b.var]);
      } else {
        reg = registers_++;
        Instruction scan;
        scan.kind = Instruction::Kind::Scan;
        scan.out = reg;
        const PatternNode& root = b.pattern.nodes.back();
        scan.scan_op = root.kind == PatternNode::Kind::Node;
        scan.label = root.label;
        program_.push_back(scan);
      }
    }
    if (multi_ && var_reg[b.var] < 0) var_reg[b.var] = reg;
    compile_pattern(b.pattern, b.pattern.root(), reg, var_reg, payload_bound);
  }
  required_ops_.clear();
  required_ops_.reserve(instructions);
  for (const Binding& b : bindings_)
    for (const PatternNode& n : b.pattern.nodes)
      if (n.kind == PatternNode::Kind::Node &&
          std::find(required_ops_.begin(), required_ops_.end(), n.label.op) == required_ops_.end())
        required_ops_.push_back(n.label.op);
  // Nodes are stored children first, so a parent's depth is known before
  // its children's.
  const std::vector<PatternNode>& nodes = bindings_.front().pattern.nodes;
  std::vector<std::uint32_t> depth(nodes.size(), 0);
  depth_ = 0;
  for (std::size_t i = nodes.size(); i-- > 0;) {
    depth_ = std::max(depth_, depth[i]);
    for (std::uint32_t c : nodes[i].children) depth[c] = std::max(depth[c], depth[i] + 1);
  }
  var_register_.clear();
  var_register_.reserve(var_reg.size());
  for (std::int64_t r : var_reg) {
    if (r < 0) throw jit::error("pattern: a variable is never bound");
    var_register_.push_back(static_cast<std::uint32_t>(r));
  }
}

std::optional<Op> Query::root_op() const {
  const PatternNode& root = bindings_.front().pattern.nodes.back();
  if (root.kind == PatternNode::Kind::Var) return std::nullopt;
  return root.label.op;
}

std::span<const Id> Query::candidates(const EGraph& egraph) const {
  const PatternNode& root = bindings_.front().pattern.nodes.back();
  if (root.kind == PatternNode::Kind::Var) return egraph.classes();
  return egraph.classes_with(root.label.op);
}

bool Query::may_match(const EGraph& egraph) const {
  return std::all_of(required_ops_.begin(), required_ops_.end(),
                     [&](Op op) { return !egraph.classes_with(op).empty(); });
}

namespace {

// A machine's registers, bindings and match row: on the stack when the
// query is small (every built-in rule is), so that a search task does not
// allocate.
template <class T, std::size_t N>
class SmallBuffer {
 public:
  explicit SmallBuffer(std::size_t size) : size_(size) {
    if (size > N) heap_.resize(size);
  }
  T* data() { return size_ > N ? heap_.data() : inline_.data(); }
  T& operator[](std::size_t i) { return data()[i]; }
  std::size_t size() const { return size_; }
  std::span<const T> span() { return {data(), size_}; }

 private:
  std::array<T, N> inline_{};
  std::vector<T> heap_;
  std::size_t size_;
};

}  // namespace

class Query::Machine {
 public:
  Machine(const Query& q, const EGraph& g, Matches& out, std::size_t limit, const Filter& accept,
          const StampedSet* only_new)
      : q_(q),
        g_(g),
        out_(out),
        limit_(limit),
        accept_(accept),
        only_new_(only_new),
        regs_(q.registers_),
        payloads_(q.vars_.payload_names().size()),
        row_(q.var_register_.size()) {}

  // Appends the matches rooted at `root`.
  bool run(Id root) {
    regs_[0] = root;
    root_ = root;
    step(0);
    return stopped_;
  }

 private:
  void step(std::size_t pc) {
    for (; pc < q_.program_.size(); ++pc) {
      const Instruction& in = q_.program_[pc];
      switch (in.kind) {
        case Instruction::Kind::Compare:
          if (regs_[in.in] != regs_[in.out]) return;
          break;
        case Instruction::Kind::Bind: {
          // The e-nodes with the wanted label, or operator when the payload
          // is a variable.
          const std::span<const EGraph::IndexedNode> nodes =
              in.payload >= 0 ? g_.indexed(regs_[in.in], in.label.op)
                              : g_.indexed(regs_[in.in], in.label);
          if (nodes.empty()) return;
          // A commutative e-node is also its mirror.
          const bool mirrors = in.arity == 2 && g_.commutative(in.label.op);
          for (const EGraph::IndexedNode& node : nodes) {
            const std::span<const Id> children = g_.children_of(node);
            if (children.size() != in.arity) continue;
            if (in.payload >= 0) {
              std::uint64_t& p = payloads_[static_cast<std::size_t>(in.payload)];
              if (in.binds_payload)
                p = node.label.payload;
              else if (p != node.label.payload)
                continue;
            }
            std::copy(children.begin(), children.end(), regs_.data() + in.out);
            const bool fresh = only_new_ && g_.is_new(node.id);
            new_on_path_ += fresh;
            step(pc + 1);
            if (!stopped_ && mirrors && children[0] != children[1]) {
              regs_[in.out] = children[1];
              regs_[in.out + 1] = children[0];
              step(pc + 1);
            }
            new_on_path_ -= fresh;
            if (stopped_) return;
          }
          return;
        }
        case Instruction::Kind::Scan: {
          const std::span<const Id> classes =
              in.scan_op ? g_.classes_with(in.label.op) : g_.classes();
          for (Id c : classes) {
            regs_[in.out] = c;
            step(pc + 1);
            if (stopped_) return;
          }
          return;
        }
      }
    }
    for (std::size_t v = 0; v < row_.size(); ++v) row_[v] = regs_[q_.var_register_[v]];
    // Every class the match binds is in a register (the root's, each
    // subpattern's, each variable's).
    if (only_new_ && new_on_path_ == 0 &&
        std::none_of(regs_.data(), regs_.data() + regs_.size(),
                     [&](Id c) { return only_new_->contains(index(c)); }))
      return;
    if (accept_ && !accept_(root_, Subst{row_.span(), payloads_.span()})) return;
    out_.push(root_, row_.span(), payloads_.span());
    if (out_.size() >= limit_) stopped_ = true;
  }

  const Query& q_;
  const EGraph& g_;
  Matches& out_;
  std::size_t limit_;
  const Filter& accept_;
  const StampedSet* only_new_;
  std::uint32_t new_on_path_ = 0;  // new e-nodes among those bound
  SmallBuffer<Id, 32> regs_;
  SmallBuffer<std::uint64_t, 8> payloads_;
  SmallBuffer<Id, 16> row_;
  Id root_{};
  bool stopped_ = false;
};

bool Query::search_classes(const EGraph& egraph, std::span<const Id> classes, Matches& out,
                           std::size_t limit, const Filter& accept,
                           const StampedSet* only_new) const {
  if (out.size() >= limit) return true;
  Machine machine(*this, egraph, out, limit, accept, only_new);
  for (Id cls : classes)
    if (machine.run(cls)) return true;
  return false;
}

bool Query::matches_class(const EGraph& egraph, Id cls) const {
  Matches out = make_matches();
  const Id c = egraph.find(cls);
  return search_classes(egraph, std::span<const Id>(&c, 1), out, 1);
}

Matches Query::search(const EGraph& egraph) const {
  Matches out = make_matches();
  search_classes(egraph, candidates(egraph), out);
  return out;
}

}  // namespace augur::eqsat
