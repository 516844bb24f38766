// The einsum mini-DSL of tests/stage/einsum.h with its run_on_gpu regions on
// Augur's GPU backend: every statement of a region becomes a kernel, staged
// and compiled (jit::gpu::compile) while the host program's first stage runs,
// with one thread per output element; the host program launches it through
// an external call. Device buffers are jit::gpu::buffers and the copies real
// buffer copies (host copies on the CPU fallback); which tensors are copied
// is still decided by the DSL's prophecies.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../stage/einsum.h"
#include "jit/gpu.h"

namespace el_gpu {

// ---------------------------------------------------------------- the device

struct device_state {
  jit::gpu::backend where = jit::gpu::backend::cpu;
  std::map<int, float*> host;
  std::map<int, std::vector<float>> allocated;  // host tensors the program allocates
  std::map<int, jit::gpu::buffer<float>> buffers;
  std::vector<int> copied_in;   // tensor ids, in order
  std::vector<int> copied_out;  // tensor ids, in order
  int launches = 0;

  static device_state& current();
  void reset(jit::gpu::backend backend);
};

// The device's external functions, for el::options::device.
const el::runtime_fns& device_functions();

// ---------------------------------------------------------------- statements as kernels

// One statement, for its kernel: tensors by parameter slot, indices by number
// (the output's first, then the reductions').
struct plan_access {
  int slot = 0;
  std::vector<int> indices;
};
struct plan_term {
  el::term_node::kind kind = el::term_node::kind::constant;
  plan_access access;
  float value = 0;
  std::shared_ptr<const plan_term> x, y, then_term, else_term;
};
struct statement_plan {
  static constexpr int kSlots = 4;
  std::vector<std::vector<int>> dims;  // per slot
  std::vector<int> ranges;             // per index
  std::size_t outer = 0;               // indices [0, outer) are the output's
  plan_access lhs;
  std::shared_ptr<const plan_term> rhs;
  bool accumulate = false;

  int threads() const;
  std::string describe() const;  // identifies the kernel
};

}  // namespace el_gpu

// A plan is a static argument of its kernel: describe() identifies it in full.
template <>
struct jit::key<el_gpu::statement_plan> {
  static void encode(key_writer& out, const el_gpu::statement_plan& plan) {
    out.write_string(plan.describe());
  }
};

namespace el_gpu {

// el::options::gpu_statement for this backend: `options` say where kernels
// run and how they are compiled.
std::function<void(const el::access&, const el::term&, bool)> statement_launcher(
    jit::gpu::options options);

// The statement kernels compiled so far.
std::size_t compiled_statements();

}  // namespace el_gpu
