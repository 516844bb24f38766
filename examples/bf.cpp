// A Brainfuck compiler for free: an interpreter written as a staged program,
// specialized to a BF program (a static argument), leaves only that program's
// own tape operations and loops (the first Futamura projection); jit::compile
// turns them into native code.
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <jit/jit.h>

namespace {

// The position of the bracket matching the one at pc.
int matching(const std::string& program, int pc) {
  const int step = program[pc] == '[' ? 1 : -1;
  int depth = 0;
  for (int i = pc;; i += step) {
    if (program[i] == '[') ++depth;
    if (program[i] == ']') --depth;
    if (depth == 0) return i;
  }
}

// The interpreter. `pc` walks the program in the first stage; the tape, the
// pointer and the I/O positions are dyn: they exist only in the compiled code.
// A '[' whose cell is zero jumps past its ']', a ']' whose cell is nonzero
// back to its '[': a dyn condition around a static jump, which staging turns
// into a loop. Returns the number of bytes written.
jit::dyn<int> run_bf(jit::dyn<std::uint8_t*> tape, jit::dyn<const std::uint8_t*> input,
                     jit::dyn<std::uint8_t*> output, const std::string& program) {
  jit::dyn<int> ptr = 0, in = 0, out = 0;
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
        if (tape[ptr] == 0) pc = matching(program, pc);
        break;
      case ']':
        if (tape[ptr] != 0) pc = matching(program, pc);
        break;
    }
  }
  return out;
}

using bf_function = jit::function<int(std::uint8_t*, const std::uint8_t*, std::uint8_t*)>;

std::string run(const bf_function& program, const std::string& input) {
  std::array<std::uint8_t, 30000> tape{};
  std::array<std::uint8_t, 256> output{};
  const int written =
      program(tape.data(), reinterpret_cast<const std::uint8_t*>(input.data()), output.data());
  return std::string(reinterpret_cast<const char*>(output.data()),
                     static_cast<std::size_t>(written));
}

// Prints the alphabet: 8 * 8 + 1 = 'A' in cell 1, 26 in cell 2, then 26 times
// print and increment; then 10 (newline).
const std::string kAlphabet =
    "++++++++[>++++++++<-]>+"
    ">++++++++++++++++++++++++++[<.+>-]"
    "++++++++++.";

// Reads two bytes and writes their product: a * b by repeated addition, with
// a copy of b restored for each unit of a.
const std::string kMultiply = ",>,<[->[->+>+<<]>>[-<<+>>]<<<]>>.";

}  // namespace

int main() {
  try {
    int failures = 0;
    const bf_function alphabet = jit::compile(run_bf, kAlphabet);
    const std::string letters = run(alphabet, "");
    std::printf("%s", letters.c_str());
    if (letters != "ABCDEFGHIJKLMNOPQRSTUVWXYZ\n") ++failures;

    const bf_function multiply = jit::compile(run_bf, kMultiply);
    for (int a : {0, 3, 7, 15}) {
      for (int b : {0, 5, 17}) {
        const std::string product = run(multiply, {static_cast<char>(a), static_cast<char>(b)});
        if (product.size() != 1 || static_cast<std::uint8_t>(product[0]) != a * b) ++failures;
      }
    }
    std::printf(failures == 0 ? "bf: OK\n" : "bf: %d FAILURES\n", failures);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
  } catch (const jit::error& e) {
    std::fprintf(stderr, "bf: %s\n", e.what());
    return EXIT_FAILURE;
  }
}
