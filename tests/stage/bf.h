// A Brainfuck interpreter written as a staged program: specialized to a
// program (a static argument), its first stage leaves only the program's own
// tape operations and loops in the IR (the first Futamura projection).
// Used by the golden tests and bench/stage_bench.cpp.
#pragma once

#include <cstdint>
#include <string>

#include "jit/jit.h"

namespace bf {

// The position of the bracket matching the one at pc.
inline int match(const std::string& program, int pc) {
  const int step = program[pc] == '[' ? 1 : -1;
  int depth = 0;
  for (int i = pc;; i += step) {
    if (program[i] == '[') depth += step;
    if (program[i] == ']') depth -= step;
    if (depth == 0) return i;
  }
}

// Runs `program` on a tape; ',' reads input bytes, '.' writes output bytes.
// Returns the number of bytes written.
inline jit::dyn<int> staged(jit::dyn<std::uint8_t*> tape, jit::dyn<const std::uint8_t*> input,
                            jit::dyn<std::uint8_t*> output, const std::string& program) {
  jit::dyn<int> ptr("ptr", 0), in("in", 0), out("out", 0);
  for (jit::stat<int> pc = 0; pc < static_cast<int>(program.size()); ++pc) {
    switch (program[pc]) {
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
        if (tape[ptr] == 0) pc = match(program, pc);
        break;
      case ']':
        if (tape[ptr] != 0) pc = match(program, pc);
        break;
    }
  }
  return out;
}

// The same interpreter, unstaged.
inline int plain(std::uint8_t* tape, const std::uint8_t* input, std::uint8_t* output,
                 const std::string& program) {
  int ptr = 0, in = 0, out = 0;
  for (int pc = 0; pc < static_cast<int>(program.size()); ++pc) {
    switch (program[pc]) {
      case '>':
        ++ptr;
        break;
      case '<':
        --ptr;
        break;
      case '+':
        ++tape[ptr];
        break;
      case '-':
        --tape[ptr];
        break;
      case '.':
        output[out++] = tape[ptr];
        break;
      case ',':
        tape[ptr] = input[in++];
        break;
      case '[':
        if (tape[ptr] == 0) pc = match(program, pc);
        break;
      case ']':
        if (tape[ptr] != 0) pc = match(program, pc);
        break;
    }
  }
  return out;
}

}  // namespace bf
