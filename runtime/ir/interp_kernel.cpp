#include "runtime/ir/interp_kernel.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "runtime/ir/interp_run.h"

namespace augur::ir::interp {

namespace {

Dim3 coordinates_of(std::size_t linear, Dim3 extent) {
  return {static_cast<std::uint32_t>(linear % extent.x),
          static_cast<std::uint32_t>(linear / extent.x % extent.y),
          static_cast<std::uint32_t>(linear / (std::size_t{extent.x} * extent.y))};
}

// What every thread of a block shares, and how to set up one thread's frame.
class Block {
 public:
  Block(const Program& program, Dim3 grid, Dim3 block, std::span<const Value> args)
      : program_(program),
        grid_(grid),
        block_(block),
        args_(args),
        storage_((program.shared_bytes + sizeof(std::uint64_t) - 1) / sizeof(std::uint64_t)) {
    for (const SharedArray& array : program.shared) {
      const auto base = reinterpret_cast<std::uintptr_t>(storage_.data()) + array.offset;
      regions_.push_back({base, std::uint64_t{array.element_size} * array.count, array.name, true});
    }
  }

  std::span<const Region> shared() const { return regions_; }
  std::size_t threads() const { return std::size_t{block_.x} * block_.y * block_.z; }
  Dim3 extent() const { return block_; }

  // Zeroes the shared memory for the next block.
  void start(Dim3 block_index) {
    block_index_ = block_index;
    std::fill(storage_.begin(), storage_.end(), 0);
  }

  void init_frame(Value* frame, Dim3 thread) const {
    std::copy(program_.frame_template.begin(), program_.frame_template.end(), frame);
    for (std::size_t i = 0; i < args_.size(); ++i) {
      frame[i].bits = canonical_bits(program_.param_types[i], args_[i].bits);
    }
    for (std::size_t k = 0; k < program_.shared.size(); ++k) {
      frame[program_.shared[k].slot].bits = regions_[k].base;
    }
    Value* index = frame + program_.gpu_index_base;
    for (Dim3 d : {thread, block_index_, block_, grid_}) {
      *index++ = Value::of(static_cast<std::int32_t>(d.x));
      *index++ = Value::of(static_cast<std::int32_t>(d.y));
      *index++ = Value::of(static_cast<std::int32_t>(d.z));
    }
  }

 private:
  const Program& program_;
  Dim3 grid_, block_, block_index_;
  std::span<const Value> args_;
  std::vector<std::uint64_t> storage_;  // 8-byte aligned; arrays at 16-byte offsets
  std::vector<Region> regions_;
};

// Without barriers each thread runs to completion in turn, in one frame.
void run_straight(RunContext& ctx, const Block& block) {
  std::vector<Value> frame(ctx.program.frame_template.size());
  for (std::size_t t = 0; t < block.threads(); ++t) {
    block.init_frame(frame.data(), coordinates_of(t, block.extent()));
    Thread thread;
    thread.regs = frame.data();
    execute(ctx, thread);
  }
}

// With barriers every thread keeps its frame; each round runs all waiting
// threads up to their next barrier or their end.
void run_in_rounds(RunContext& ctx, const Block& block) {
  const std::size_t size = ctx.program.frame_template.size();
  std::vector<Value> frames(block.threads() * size);
  std::vector<Thread> threads(block.threads());
  for (std::size_t t = 0; t < threads.size(); ++t) {
    threads[t].regs = frames.data() + t * size;
    block.init_frame(threads[t].regs, coordinates_of(t, block.extent()));
  }
  std::vector<std::size_t> pending(threads.size());
  std::iota(pending.begin(), pending.end(), std::size_t{0});
  std::vector<std::size_t> waiting;
  while (!pending.empty()) {
    waiting.clear();
    std::optional<std::size_t> finished;
    for (std::size_t t : pending) {
      if (execute(ctx, threads[t]) == Stop::AtBarrier) {
        waiting.push_back(t);
      } else if (!finished) {
        finished = t;
      }
    }
    if (waiting.empty()) return;
    const Thread& first = threads[waiting.front()];
    const std::uint32_t barrier = first.pc - 1;
    if (finished) {
      raise_trap(ctx.program, barrier, first.regs,
                 "barrier divergence: thread " +
                     coordinates(coordinates_of(*finished, block.extent())) +
                     " finished without reaching this barrier");
    }
    for (std::size_t t : waiting) {
      if (threads[t].pc != first.pc) {
        const std::uint32_t other = ctx.program.instr_path[threads[t].pc - 1];
        raise_trap(ctx.program, barrier, first.regs,
                   "barrier divergence: thread " + coordinates(coordinates_of(t, block.extent())) +
                       " waits at another barrier, " + ctx.program.paths[other]);
      }
    }
    pending.swap(waiting);
  }
}

}  // namespace

void run_grid(const Program& program, Dim3 grid, Dim3 block_dim, std::span<const Value> args) {
  Block block(program, grid, block_dim, args);
  RunContext ctx{program, block.shared(), program.step_limit};
  const std::size_t blocks = std::size_t{grid.x} * grid.y * grid.z;
  for (std::size_t b = 0; b < blocks; ++b) {
    block.start(coordinates_of(b, grid));
    if (program.has_barrier) {
      run_in_rounds(ctx, block);
    } else {
      run_straight(ctx, block);
    }
  }
}

}  // namespace augur::ir::interp
