#include "einsum_gpu.h"

#include <cstring>
#include <deque>
#include <limits>
#include <stdexcept>

namespace el_gpu {

namespace {

// ---------------------------------------------------------------- kernels

struct compiled_statement {
  std::string key;
  jit::gpu::kernel<float*, float*, float*, float*> kernel;
  int threads = 0;
};

std::vector<compiled_statement>& registry() {
  static auto* kernels = new std::vector<compiled_statement>;
  return *kernels;
}

constexpr std::uint32_t kBlock = 64;

jit::dyn_expr<int> flat_index(const plan_access& a, const statement_plan& plan,
                              const std::vector<el::index>& indices) {
  jit::dyn_expr<int> flat(*indices[static_cast<std::size_t>(a.indices.back())].it);
  int stride = 1;
  const std::vector<int>& dims = plan.dims[static_cast<std::size_t>(a.slot)];
  for (std::size_t d = a.indices.size() - 1; d-- > 0;) {
    stride *= dims[d + 1];
    flat = flat + *indices[static_cast<std::size_t>(a.indices[d])].it * stride;
  }
  return flat;
}

jit::dyn_expr<float> evaluate(const plan_term& t, const statement_plan& plan,
                              const std::vector<el::index>& indices,
                              const std::array<const jit::dyn<float*>*, 4>& slots,
                              std::deque<jit::dyn<float>>& temps) {
  using kind = el::term_node::kind;
  switch (t.kind) {
    case kind::access:
      return jit::dyn_expr<float>(
          (*slots[static_cast<std::size_t>(t.access.slot)])[flat_index(t.access, plan, indices)]);
    case kind::constant:
      return jit::cast<float>(t.value);
    case kind::add:
      return evaluate(*t.x, plan, indices, slots, temps) +
             evaluate(*t.y, plan, indices, slots, temps);
    case kind::mul:
      return evaluate(*t.x, plan, indices, slots, temps) *
             evaluate(*t.y, plan, indices, slots, temps);
    case kind::where_greater: {
      jit::dyn<float>& v = temps.emplace_back();
      if (evaluate(*t.x, plan, indices, slots, temps) >
          evaluate(*t.y, plan, indices, slots, temps)) {
        v = evaluate(*t.then_term, plan, indices, slots, temps);
      } else {
        v = evaluate(*t.else_term, plan, indices, slots, temps);
      }
      return jit::dyn_expr<float>(v);
    }
  }
  return jit::cast<float>(0.0f);
}

// One thread per element of the output: its indices come from the thread's
// id, the reductions are loops, as in el::detail::statement.
void statement_kernel(jit::dyn<float*> p0, jit::dyn<float*> p1, jit::dyn<float*> p2,
                      jit::dyn<float*> p3, const statement_plan& plan) {
  const std::array<const jit::dyn<float*>*, 4> slots = {&p0, &p1, &p2, &p3};
  jit::dyn<int> id = jit::gpu::global_id_x();
  if (id < plan.threads()) {
    std::vector<el::index> indices(plan.ranges.size());
    std::deque<jit::dyn<int>> outer;
    int stride = plan.threads();
    for (std::size_t k = 0; k < indices.size(); ++k) {
      indices[k].range = plan.ranges[k];
      if (k < plan.outer) {
        stride /= plan.ranges[k];
        indices[k].it = &outer.emplace_back(id / stride % plan.ranges[k]);
      }
    }
    std::vector<el::index*> reductions;
    for (std::size_t k = plan.outer; k < indices.size(); ++k) reductions.push_back(&indices[k]);
    const jit::dyn<float*>& out = *slots[static_cast<std::size_t>(plan.lhs.slot)];
    jit::dyn<float> acc = 0.0f;
    if (plan.accumulate) acc = out[flat_index(plan.lhs, plan, indices)];
    std::deque<jit::dyn<float>> temps;
    el::detail::loops(reductions, 0,
                      [&] { acc = acc + evaluate(*plan.rhs, plan, indices, slots, temps); });
    out[flat_index(plan.lhs, plan, indices)] = acc;
  }
}

int compile_statement(const statement_plan& plan, const jit::gpu::options& options) {
  const std::string key = plan.describe();
  std::vector<compiled_statement>& kernels = registry();
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    if (kernels[i].key == key) return static_cast<int>(i);
  }
  jit::gpu::options named = options;
  named.name = "einsum_" + std::to_string(kernels.size());
  kernels.push_back({key, jit::gpu::compile(named, statement_kernel, plan), plan.threads()});
  return static_cast<int>(kernels.size() - 1);
}

// ---------------------------------------------------------------- the device's externs

float* rt_alloc(std::int32_t id, std::int32_t n) {
  device_state& d = device_state::current();
  std::vector<float>& v = d.allocated[id];
  v.assign(static_cast<std::size_t>(n), 0.0f);
  d.host[id] = v.data();
  return v.data();
}
void rt_bind_host(std::int32_t id, float* p) {
  device_state::current().host[id] = p;
}
// Device buffers start as NaN, so a missing copy shows in the results.
float* rt_device_alloc(std::int32_t id, std::int32_t n) {
  device_state& d = device_state::current();
  jit::gpu::buffer<float> b(static_cast<std::size_t>(n), d.where);
  b.copy_from(
      std::vector<float>(static_cast<std::size_t>(n), std::numeric_limits<float>::quiet_NaN()));
  float* address = b.data();
  d.buffers.insert_or_assign(id, std::move(b));
  return address;
}
void rt_copy_to_device(std::int32_t id, std::int32_t n) {
  device_state& d = device_state::current();
  d.buffers.at(id).copy_from(std::span<const float>(d.host.at(id), static_cast<std::size_t>(n)));
  d.copied_in.push_back(id);
}
void rt_copy_to_host(std::int32_t id, std::int32_t n) {
  device_state& d = device_state::current();
  d.buffers.at(id).copy_to(std::span<float>(d.host.at(id), static_cast<std::size_t>(n)));
  d.copied_out.push_back(id);
}
void rt_nothing() {}
void rt_launch(std::int32_t kernel, float* p0, float* p1, float* p2, float* p3) {
  const compiled_statement& s = registry().at(static_cast<std::size_t>(kernel));
  const auto blocks = static_cast<std::uint32_t>((s.threads + kBlock - 1) / kBlock);
  s.kernel.launch({blocks}, {kBlock}, p0, p1, p2, p3);
  jit::gpu::synchronize();
  ++device_state::current().launches;
}

const jit::external<void(std::int32_t, float*, float*, float*, float*)>& launch_function() {
  static const auto* fn = new jit::external<void(std::int32_t, float*, float*, float*, float*)>(
      jit::register_external("elg_launch", &rt_launch, jit::effect::effectful));
  return *fn;
}

// ---------------------------------------------------------------- plans

struct planner {
  std::vector<el::tensor*> tensors;  // by slot
  std::vector<el::index*> indices;   // by number

  int slot_of(el::tensor* t) {
    for (std::size_t s = 0; s < tensors.size(); ++s) {
      if (tensors[s] == t) return static_cast<int>(s);
    }
    if (tensors.size() == statement_plan::kSlots) {
      throw std::runtime_error("an einsum statement on the GPU uses at most 4 tensors");
    }
    tensors.push_back(t);
    return static_cast<int>(tensors.size() - 1);
  }
  plan_access access_of(const el::access& a) {
    plan_access out{slot_of(a.t), {}};
    for (el::index* i : a.idx) {
      for (std::size_t k = 0; k < indices.size(); ++k) {
        if (indices[k] == i) out.indices.push_back(static_cast<int>(k));
      }
    }
    return out;
  }
  std::shared_ptr<const plan_term> term_of(const el::term& t, std::vector<bool>& read) {
    auto out = std::make_shared<plan_term>();
    out->kind = t->k;
    out->value = t->value;
    if (t->k == el::term_node::kind::access) {
      out->access = access_of(t->a);
      read[static_cast<std::size_t>(out->access.slot)] = true;
    }
    if (t->x) out->x = term_of(t->x, read);
    if (t->y) out->y = term_of(t->y, read);
    if (t->then_term) out->then_term = term_of(t->then_term, read);
    if (t->else_term) out->else_term = term_of(t->else_term, read);
    return out;
  }
};

void describe_term(const plan_term& t, std::string& out) {
  out += "(" + std::to_string(static_cast<int>(t.kind));
  if (t.kind == el::term_node::kind::access) {
    out += " t" + std::to_string(t.access.slot);
    for (int i : t.access.indices) out += " i" + std::to_string(i);
  }
  if (t.kind == el::term_node::kind::constant) {
    std::uint32_t bits;
    std::memcpy(&bits, &t.value, sizeof bits);
    out += " " + std::to_string(bits);
  }
  for (const auto* sub : {&t.x, &t.y, &t.then_term, &t.else_term}) {
    if (*sub) describe_term(**sub, out);
  }
  out += ")";
}

}  // namespace

device_state& device_state::current() {
  static auto* state = new device_state;
  return *state;
}

void device_state::reset(jit::gpu::backend backend) {
  *this = device_state();
  where = backend;
}

const el::runtime_fns& device_functions() {
  static const auto* fns = new el::runtime_fns{
      jit::register_external("elg_alloc", &rt_alloc, jit::effect::effectful),
      jit::register_external("elg_bind_host", &rt_bind_host, jit::effect::effectful),
      jit::register_external("elg_device_alloc", &rt_device_alloc, jit::effect::effectful),
      jit::register_external("elg_copy_to_device", &rt_copy_to_device, jit::effect::effectful),
      jit::register_external("elg_copy_to_host", &rt_copy_to_host, jit::effect::effectful),
      jit::register_external("elg_region_begin", &rt_nothing, jit::effect::effectful),
      jit::register_external("elg_region_end", &rt_nothing, jit::effect::effectful),
      jit::register_external("elg_start_time", &rt_nothing, jit::effect::effectful),
      jit::register_external("elg_end_time", &rt_nothing, jit::effect::effectful),
  };
  return *fns;
}

int statement_plan::threads() const {
  int n = 1;
  for (std::size_t k = 0; k < outer; ++k) n *= ranges[k];
  return n;
}

std::string statement_plan::describe() const {
  std::string out = "dims";
  for (const std::vector<int>& d : dims) {
    out += " [";
    for (int x : d) out += std::to_string(x) + ",";
    out += "]";
  }
  out += " ranges";
  for (int r : ranges) out += " " + std::to_string(r);
  out += " outer " + std::to_string(outer) + " lhs t" + std::to_string(lhs.slot);
  for (int i : lhs.indices) out += " i" + std::to_string(i);
  out += accumulate ? " += " : " = ";
  describe_term(*rhs, out);
  return out;
}

std::function<void(const el::access&, const el::term&, bool)> statement_launcher(
    jit::gpu::options options) {
  launch_function();
  return [options](const el::access& lhs, const el::term& rhs, bool accumulate) {
    planner p;
    for (std::size_t d = 0; d < lhs.idx.size(); ++d) {
      lhs.idx[d]->range = lhs.t->dims()[d];
      el::detail::add_index(p.indices, lhs.idx[d]);
    }
    const std::size_t outer = p.indices.size();
    el::detail::collect(rhs, p.indices);

    statement_plan plan;
    plan.accumulate = accumulate;
    plan.outer = outer;
    for (el::index* i : p.indices) plan.ranges.push_back(i->range);
    plan.lhs = p.access_of(lhs);
    std::vector<bool> read(statement_plan::kSlots, false);  // by slot
    read[0] = accumulate;
    plan.rhs = p.term_of(rhs, read);
    for (el::tensor* t : p.tensors) plan.dims.push_back(t->dims());

    // The buffers, through the DSL: its prophecies learn what the region
    // reads and writes.
    std::array<const jit::dyn<float*>*, statement_plan::kSlots> buffers{};
    buffers[0] = &p.tensors[0]->buffer_for_write();
    for (std::size_t s = 0; s < p.tensors.size(); ++s) {
      if (read[s]) buffers[s] = &p.tensors[s]->buffer_for_read();
    }
    const int id = compile_statement(plan, options);
    auto argument = [&](std::size_t s) {
      return buffers[s] ? jit::dyn_expr<float*>(*buffers[s]) : jit::cast<float*>(nullptr);
    };
    launch_function()(id, argument(0), argument(1), argument(2), argument(3));
  };
}

std::size_t compiled_statements() {
  return registry().size();
}

}  // namespace el_gpu
