// The BF family: a staged Brainfuck interpreter specialized to a generated BF
// program (the first Futamura projection), so the IR is the program's own
// tape operations with one `while` per bracket pair.
//
// The generated programs terminate on every tape and input: a loop's body
// first decrements the loop's cell and touches only cells to its right, so
// the cell falls by exactly one per iteration (at most 255 iterations); an
// inner loop's cell is cleared and set to 1-3 just before it. '.' and ','
// happen outside loops only, so the I/O buffers have static lengths, and the
// pointer's position is static everywhere, so the tape is a fixed 64 cells.
//
// Staging re-executes the generator from the start once per dyn branch (two
// per bracket pair), which costs about brackets × instructions / 2 operations
// (docs/staging.md): the larger programs have fewer loops per instruction,
// from one per 15 instructions up to 10k instructions to one per 500 at 100k.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/corpus/families.h"
#include "bench/corpus/rng.h"

namespace augur::bench::corpus {
namespace {

constexpr int kTape = 64;
constexpr int kMaxDepth = 3;
constexpr int kInnerOffset = 4;  // an inner loop's cell is at most this far right of its parent's
constexpr int kBodyOffset = 6;   // a loop body's operations at most this far right of its cell

struct BfProgram {
  std::string code;
  std::vector<int> match;  // the matching bracket of each bracket
  int inputs = 0;          // ',' executed (each once)
  int outputs = 0;         // '.' executed
};

class BfWriter {
 public:
  BfWriter(std::size_t instructions, std::uint64_t seed) : target_(instructions), rng_(seed) {
    // Fewer loops per instruction as the program grows keeps staging near
    // linear (see the top of the file).
    const std::size_t squared = instructions * instructions / 20'000'000;
    loop_every_ = std::max<std::size_t>(15, squared);
  }

  BfProgram write() {
    while (program_.code.size() < target_ || !open_.empty()) {
      if (program_.code.size() >= target_) {
        close();
      } else if (!open_.empty() && body_ops_ >= open_.back().body_length) {
        close();
      } else if (static_cast<int>(open_.size()) < kMaxDepth && rng_.below(loop_every_) == 0) {
        open();
      } else {
        operation();
      }
    }
    program_.match.assign(program_.code.size(), -1);
    std::vector<int> brackets;
    for (int pc = 0; pc < static_cast<int>(program_.code.size()); ++pc) {
      if (program_.code[pc] == '[') brackets.push_back(pc);
      if (program_.code[pc] == ']') {
        program_.match[pc] = brackets.back();
        program_.match[brackets.back()] = pc;
        brackets.pop_back();
      }
    }
    return program_;
  }

 private:
  struct Loop {
    int cell;
    std::size_t body_length;
  };

  void move_to(int cell) {
    program_.code.append(static_cast<std::size_t>(std::abs(cell - ptr_)), cell > ptr_ ? '>' : '<');
    ptr_ = cell;
  }
  void add(int amount) {
    program_.code.append(static_cast<std::size_t>(std::abs(amount)), amount > 0 ? '+' : '-');
  }

  // Cells the current body may touch: all at top level, else right of the loop's cell.
  int random_cell(int offset) {
    if (open_.empty()) return static_cast<int>(rng_.below(kTape));
    return open_.back().cell + 1 + static_cast<int>(rng_.below(static_cast<std::uint64_t>(offset)));
  }

  void operation() {
    ++body_ops_;
    if (open_.empty() && rng_.below(16) == 0) {
      program_.code += '.';
      ++program_.outputs;
      return;
    }
    if (open_.empty() && rng_.below(16) == 0) {
      program_.code += ',';
      ++program_.inputs;
      return;
    }
    move_to(random_cell(kBodyOffset));
    add(static_cast<int>(rng_.between(1, 4)) * (rng_.below(2) == 0 ? 1 : -1));
  }

  void open() {
    // Room for the nest to the right: every level moves at most kInnerOffset,
    // the innermost body kBodyOffset beyond.
    constexpr int kRoom = kMaxDepth * kInnerOffset + kBodyOffset;
    int cell = 0;
    std::size_t body = 0;
    if (open_.empty()) {
      cell = static_cast<int>(rng_.below(kTape - kRoom));
      body = loop_every_ + rng_.below(2 * loop_every_);
    } else {
      cell = random_cell(kInnerOffset);
      move_to(cell);
      program_.code += "[-]";
      add(static_cast<int>(rng_.between(1, 3)));
      body = 3 + rng_.below(std::min<std::size_t>(loop_every_, 30));
    }
    move_to(cell);
    program_.code += "[-";
    open_.push_back({cell, body});
    body_ops_ = 0;
  }

  void close() {
    move_to(open_.back().cell);
    program_.code += ']';
    open_.pop_back();
    // The enclosing body goes on; what it already holds is not counted again.
    body_ops_ = 0;
  }

  std::size_t target_;
  Rng rng_;
  std::size_t loop_every_ = 15;
  BfProgram program_;
  std::vector<Loop> open_;
  std::size_t body_ops_ = 0;
  int ptr_ = 0;
};

// The interpreter: `pc` walks the program in the first stage; the tape, the
// pointer and the I/O positions exist only in the second. A '[' whose cell is
// zero jumps past its ']', a ']' whose cell is nonzero back to its '[': a dyn
// condition around a static jump, which staging turns into a loop.
jit::dyn<int> interpret(jit::dyn<std::uint8_t*> tape, jit::dyn<const std::uint8_t*> input,
                        jit::dyn<std::uint8_t*> output, const BfProgram& program) {
  jit::dyn<int> ptr("ptr", 0), in("in", 0), out("out", 0);
  const int size = static_cast<int>(program.code.size());
  for (jit::stat<int> pc = 0; pc < size; ++pc) {
    switch (program.code[pc]) {
      case '>':
        ++ptr;
        break;
      case '<':
        --ptr;
        break;
      case '+':
        tape[ptr] += 1;
        break;
      case '-':
        tape[ptr] -= 1;
        break;
      case '.':
        output[out] = tape[ptr];
        ++out;
        break;
      case ',':
        tape[ptr] = input[in];
        ++in;
        break;
      case '[':
        if (tape[ptr] == 0) pc = program.match[pc];
        break;
      case ']':
        if (tape[ptr] != 0) pc = program.match[pc];
        break;
    }
  }
  return out;
}

}  // namespace

Program make_bf(std::size_t instructions) {
  if (instructions < 100) throw jit::error("corpus: a BF program needs at least 100 instructions");
  Program p;
  p.family = "bf";
  p.size = instructions;
  p.name = "bf_" + std::to_string(instructions);
  const BfProgram bf = BfWriter(instructions, instructions).write();
  p.description = "BF interpreter specialized to " + std::to_string(bf.code.size()) +
                  " instructions (" +
                  std::to_string(std::count(bf.code.begin(), bf.code.end(), '[')) + " loops)";
  const ir::Type bytes = ir::type_of<std::uint8_t*>();
  p.params = {
      {"tape", bytes, kTape, 0, 255, true},
      {"input", bytes, static_cast<std::size_t>(std::max(bf.inputs, 1)), 0, 255, false},
      {"output", bytes, static_cast<std::size_t>(std::max(bf.outputs, 1)), 0, 255, true},
  };
  p.stage = [name = p.name, bf] {
    jit::extract_options options;
    options.name = name;
    options.param_names = {"tape", "input", "output"};
    return jit::extract(options, interpret, bf);
  };
  return p;
}

}  // namespace augur::bench::corpus
