// A mini einsum DSL in the style of the seed paper's (000, section 4.3): tensors
// with static shapes, statements like `C(i, j) += A(i, k) * B(k, j)` that the
// first stage turns into dyn loops, and run_on_gpu regions.
//
// Before a region, only the tensors its code reads are copied to the device,
// and after it only the ones it wrote are copied back. Which ones are read is
// only known after the region's code has been generated: each tensor has a
// prophecy `gpu_read` (flag lattice) constructed at the start of the region;
// reading the tensor in the region requires it. A second prophecy per tensor,
// `needs_gpu`, decides at the tensor's construction whether it gets a device
// buffer at all. Writes are a history variable (a jit::stat), set when a
// statement that writes the tensor starts.
//
// The copies and buffers are external calls to a simulated device (device
// buffers are host memory filled with NaN, so a missing copy shows in the
// results), and a region's statements are loops over the device buffers.
// Both can be replaced (options::device, options::gpu_statement):
// tests/gpu/einsum_gpu.h runs regions as kernels on Augur's GPU backend.
// Used by einsum_test.cpp, bench/stage_bench.cpp and the GPU tests.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "jit/jit.h"

namespace el {

// ---------------------------------------------------------------- simulated device

struct device {
  std::map<int, float*> host;                   // tensor id -> host buffer
  std::map<int, std::vector<float>> buffers;    // tensor id -> device buffer
  std::map<int, std::vector<float>> allocated;  // host buffers the program allocated
  int copies_to_device = 0;
  int copies_to_host = 0;

  static device& current() {
    static device d;
    return d;
  }
  void reset() { *this = device(); }
};

inline float* rt_alloc(std::int32_t id, std::int32_t n) {
  auto& v = device::current().allocated[id];
  v.assign(static_cast<std::size_t>(n), 0.0f);
  device::current().host[id] = v.data();
  return v.data();
}
inline void rt_bind_host(std::int32_t id, float* p) {
  device::current().host[id] = p;
}
inline float* rt_device_alloc(std::int32_t id, std::int32_t n) {
  auto& v = device::current().buffers[id];
  v.assign(static_cast<std::size_t>(n), std::numeric_limits<float>::quiet_NaN());
  return v.data();
}
inline void rt_copy_to_device(std::int32_t id, std::int32_t n) {
  device& d = device::current();
  std::memcpy(d.buffers.at(id).data(), d.host.at(id), sizeof(float) * static_cast<std::size_t>(n));
  ++d.copies_to_device;
}
inline void rt_copy_to_host(std::int32_t id, std::int32_t n) {
  device& d = device::current();
  std::memcpy(d.host.at(id), d.buffers.at(id).data(), sizeof(float) * static_cast<std::size_t>(n));
  ++d.copies_to_host;
}
inline void rt_region() {}

struct runtime_fns {
  jit::external<float*(std::int32_t, std::int32_t)> alloc;
  jit::external<void(std::int32_t, float*)> bind_host;
  jit::external<float*(std::int32_t, std::int32_t)> device_alloc;
  jit::external<void(std::int32_t, std::int32_t)> copy_to_device;
  jit::external<void(std::int32_t, std::int32_t)> copy_to_host;
  jit::external<void()> region_begin;
  jit::external<void()> region_end;
  jit::external<void()> start_time;
  jit::external<void()> end_time;
};

inline const runtime_fns& runtime() {
  static const runtime_fns fns{
      jit::register_external("el_alloc", &rt_alloc, jit::effect::effectful),
      jit::register_external("el_bind_host", &rt_bind_host, jit::effect::effectful),
      jit::register_external("el_device_alloc", &rt_device_alloc, jit::effect::effectful),
      jit::register_external("el_copy_to_device", &rt_copy_to_device, jit::effect::effectful),
      jit::register_external("el_copy_to_host", &rt_copy_to_host, jit::effect::effectful),
      jit::register_external("el_region_begin", &rt_region, jit::effect::effectful),
      jit::register_external("el_region_end", &rt_region, jit::effect::effectful),
      jit::register_external("el_start_time", &rt_region, jit::effect::effectful),
      jit::register_external("el_end_time", &rt_region, jit::effect::effectful),
  };
  return fns;
}

// ---------------------------------------------------------------- the DSL

class tensor;
struct access;
struct term_node;
using term = std::shared_ptr<const term_node>;

struct options {
  bool copy_all = false;  // the paper's baseline: every tensor to and from the device
  // The device's buffers and copies; null: the simulated device (runtime()).
  const runtime_fns* device = nullptr;
  // Emits a statement of a run_on_gpu region; empty: loops over the device
  // buffers. It gets each tensor's buffer through buffer_for_read/write.
  std::function<void(const access& lhs, const term& rhs, bool accumulate)> gpu_statement = {};
};

// A loop index; its range comes from the tensors it indexes.
struct index {
  const jit::dyn<int>* it = nullptr;
  int range = -1;
};

// The first-stage state of one program: its tensors and where code runs now.
class context {
 public:
  explicit context(options o = {}) : options_(std::move(o)) { runtime(); }
  const options& opts() const { return options_; }
  const runtime_fns& device() const { return options_.device ? *options_.device : runtime(); }
  bool on_gpu() const { return on_gpu_; }
  std::vector<tensor*>& tensors() { return tensors_; }
  int next_id() { return next_id_++; }

  // Runs `region` as device code: copies in the tensors it reads, copies
  // back the ones it wrote.
  template <class F>
  void run_on_gpu(F&& region);

 private:
  options options_;
  std::vector<tensor*> tensors_;
  int next_id_ = 0;
  jit::stat<bool> on_gpu_ = false;
};

struct access {
  tensor* t;
  std::vector<index*> idx;
};

struct term_node {
  enum class kind { access, constant, add, mul, where_greater };
  explicit term_node(kind kind_of) : k(kind_of) {}

  kind k;
  access a{};
  float value = 0;
  term x{}, y{}, then_term{}, else_term{};
};

inline term to_term(const access& a) {
  term_node n(term_node::kind::access);
  n.a = a;
  return std::make_shared<const term_node>(std::move(n));
}
inline term to_term(float v) {
  term_node n(term_node::kind::constant);
  n.value = v;
  return std::make_shared<const term_node>(std::move(n));
}
inline term to_term(const term& t) {
  return t;
}
template <class A, class B>
term operator*(const A& a, const B& b) {
  term_node n(term_node::kind::mul);
  n.x = to_term(a);
  n.y = to_term(b);
  return std::make_shared<const term_node>(std::move(n));
}
template <class A, class B>
term operator+(const A& a, const B& b) {
  term_node n(term_node::kind::add);
  n.x = to_term(a);
  n.y = to_term(b);
  return std::make_shared<const term_node>(std::move(n));
}
// where(x > y, a, b), element by element: a dyn branch per element.
template <class X, class Y, class A, class B>
term where_greater(const X& x, const Y& y, const A& a, const B& b) {
  term_node n(term_node::kind::where_greater);
  n.x = to_term(x);
  n.y = to_term(y);
  n.then_term = to_term(a);
  n.else_term = to_term(b);
  return std::make_shared<const term_node>(std::move(n));
}

class tensor {
 public:
  // A tensor the program allocates.
  tensor(context& ctx, std::vector<int> dims)
      : ctx_(ctx),
        id_(ctx.next_id()),
        dims_(std::move(dims)),
        host_(ctx.device().alloc(id_, size())) {
    init();
  }
  // A tensor over a buffer the caller passes.
  tensor(context& ctx, std::vector<int> dims, const jit::dyn<float*>& buffer)
      : ctx_(ctx), id_(ctx.next_id()), dims_(std::move(dims)), host_(buffer) {
    ctx_.device().bind_host(id_, host_);
    init();
  }
  tensor(const tensor&) = delete;
  tensor& operator=(const tensor&) = delete;

  template <class... I>
  access operator()(I&... idx) {
    return {this, {&idx...}};
  }

  int id() const { return id_; }
  context& ctx() const { return ctx_; }
  int size() const {
    int n = 1;
    for (int d : dims_) n *= d;
    return n;
  }
  const std::vector<int>& dims() const { return dims_; }

  // Called by the region code: reading or writing this tensor on the device.
  const jit::dyn<float*>& buffer_for_read() {
    if (!ctx_.on_gpu()) return host_;
    if (!ctx_.opts().copy_all) {
      needs_gpu_.require(true);
      if (gpu_read_) gpu_read_->require(true);
    }
    return device_buffer();
  }
  const jit::dyn<float*>& buffer_for_write() {
    if (!ctx_.on_gpu()) return host_;
    if (!ctx_.opts().copy_all) needs_gpu_.require(true);
    gpu_written_ = true;
    return device_buffer();
  }

  // Region boundaries (context::run_on_gpu).
  void enter_region() {
    gpu_written_ = false;
    if (ctx_.opts().copy_all) {
      if (device_) ctx_.device().copy_to_device(id_, size());
      return;
    }
    gpu_read_.emplace();
    if (gpu_read_->value() && device_) ctx_.device().copy_to_device(id_, size());
  }
  void leave_region() {
    if ((gpu_written_ || ctx_.opts().copy_all) && device_) {
      ctx_.device().copy_to_host(id_, size());
    }
    gpu_read_.reset();
    gpu_written_ = false;
  }

 private:
  void init() {
    ctx_.tensors().push_back(this);
    if (ctx_.opts().copy_all || needs_gpu_.value()) {
      device_.emplace(ctx_.device().device_alloc(id_, size()));
    }
  }
  const jit::dyn<float*>& device_buffer() {
    // Only mispredicted explorations use a tensor without a device buffer;
    // their code is discarded.
    return device_ ? *device_ : host_;
  }

  context& ctx_;
  int id_;
  std::vector<int> dims_;
  jit::dyn<float*> host_;
  std::optional<jit::dyn<float*>> device_;
  jit::prophecy<jit::flag_lattice> needs_gpu_;
  std::optional<jit::prophecy<jit::flag_lattice>> gpu_read_;
  jit::stat<bool> gpu_written_ = false;
};

template <class F>
void context::run_on_gpu(F&& region) {
  device().region_begin();
  for (jit::stat<int> i = 0; i < static_cast<int>(tensors_.size()); ++i)
    tensors_[i]->enter_region();
  on_gpu_ = true;
  region();
  on_gpu_ = false;
  for (jit::stat<int> i = 0; i < static_cast<int>(tensors_.size()); ++i)
    tensors_[i]->leave_region();
  device().region_end();
}

// ---------------------------------------------------------------- statements

namespace detail {

inline void add_index(std::vector<index*>& out, index* i) {
  for (index* j : out) {
    if (j == i) return;
  }
  out.push_back(i);
}

inline void collect(const term& t, std::vector<index*>& out) {
  switch (t->k) {
    case term_node::kind::access:
      for (std::size_t d = 0; d < t->a.idx.size(); ++d) {
        t->a.idx[d]->range = t->a.t->dims()[d];
        add_index(out, t->a.idx[d]);
      }
      break;
    case term_node::kind::constant:
      break;
    default:
      for (const term* sub : {&t->x, &t->y, &t->then_term, &t->else_term}) {
        if (*sub) collect(*sub, out);
      }
  }
}

inline jit::dyn_expr<int> flat_index(const access& a) {
  jit::dyn_expr<int> flat(*a.idx.back()->it);
  int stride = 1;
  for (std::size_t d = a.idx.size() - 1; d-- > 0;) {
    stride *= a.t->dims()[d + 1];
    flat = flat + *a.idx[d]->it * stride;
  }
  return flat;
}

// The value of `t` at the current indices; `temps` keeps the variables that
// elementwise branches assign.
inline jit::dyn_expr<float> eval(const term& t, std::deque<jit::dyn<float>>& temps) {
  switch (t->k) {
    case term_node::kind::access: {
      return jit::dyn_expr<float>(t->a.t->buffer_for_read()[flat_index(t->a)]);
    }
    case term_node::kind::constant:
      return jit::cast<float>(t->value);
    case term_node::kind::add:
      return eval(t->x, temps) + eval(t->y, temps);
    case term_node::kind::mul:
      return eval(t->x, temps) * eval(t->y, temps);
    case term_node::kind::where_greater: {
      jit::dyn<float>& v = temps.emplace_back();
      if (eval(t->x, temps) > eval(t->y, temps)) {
        v = eval(t->then_term, temps);
      } else {
        v = eval(t->else_term, temps);
      }
      return jit::dyn_expr<float>(v);
    }
  }
  return jit::cast<float>(0.0f);
}

// The loops of one statement: the left side's indices, then the reductions.
template <class Body>
void loops(const std::vector<index*>& idx, std::size_t level, Body&& body) {
  if (level == idx.size()) {
    body();
    return;
  }
  for (jit::dyn<int> v = 0; v < idx[level]->range; ++v) {
    idx[level]->it = &v;
    loops(idx, level + 1, body);
  }
  idx[level]->it = nullptr;
}

inline void statement(const access& lhs, const term& rhs, bool accumulate) {
  const context& ctx = lhs.t->ctx();
  if (ctx.on_gpu() && ctx.opts().gpu_statement) {
    ctx.opts().gpu_statement(lhs, rhs, accumulate);
    return;
  }
  std::vector<index*> outer;
  for (std::size_t d = 0; d < lhs.idx.size(); ++d) {
    lhs.idx[d]->range = lhs.t->dims()[d];
    add_index(outer, lhs.idx[d]);
  }
  std::vector<index*> all = outer;
  collect(rhs, all);
  const std::vector<index*> reduction(all.begin() + static_cast<std::ptrdiff_t>(outer.size()),
                                      all.end());
  const jit::dyn<float*>& out = lhs.t->buffer_for_write();
  loops(outer, 0, [&] {
    std::deque<jit::dyn<float>> temps;
    jit::dyn<float> acc = 0.0f;
    if (accumulate) acc = lhs.t->buffer_for_read()[flat_index(lhs)];
    loops(reduction, 0, [&] { acc = acc + eval(rhs, temps); });
    out[flat_index(lhs)] = acc;
  });
}

}  // namespace detail

// C(i, j) = term and C(i, j) += term.
template <class T>
void assign(const access& lhs, const T& rhs) {
  detail::statement(lhs, to_term(rhs), false);
}
template <class T>
void accumulate(const access& lhs, const T& rhs) {
  detail::statement(lhs, to_term(rhs), true);
}

}  // namespace el
