#include "jit/cpu/llvm_options.h"

#include <string_view>
#include <vector>

#include <llvm/ADT/StringMap.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/raw_ostream.h>

namespace augur::cpu {

namespace {

// LICM keeps a memory cell in a register across a loop only while the loop
// makes at most 250 memory accesses. A staged Brainfuck nest updates a few
// dozen cells at static addresses hundreds of times: its cells stayed in
// memory, stored and reloaded every iteration through store-forwarding
// stalls (the corpus's bf_10000 ran 1.2-1.9x gcc's time); promoted, LLVM
// closes the nest (0.02x). The loop nests LLVM sees are at most 16 x
// split_nodes IR nodes (split_plan.h), so the cap is raised past that. The
// cost of promotion grows with the distinct cells, which alias analysis
// still caps at 250 (raising that one made a loop over 4,000 cells compile
// 18x slower).
//
// The machine scheduler orders each memory access after every earlier one it
// may alias, until a region holds 1,000 of them (then it adds a barrier and
// starts over); each dependence is checked against those already recorded,
// so a region costs about its accesses times that bound squared. Staged
// straight-line code makes such regions: the scheduler took 40% of an
// unrolled 256-point FFT's compile (3.1 s of CPU; 1.1 s at a bound of 128,
// the code as fast in the same runs). Memory accesses then move across at
// most about 64 others, which leaves the scheduler room to hide latency.
//
// On a CPU with AVX-512 the X86 domain reassignment pass looks for integer
// code to move into mask registers; on long straight-line integer code its
// search is superlinear: machine code for 10,934 statements of i64
// multiplies (the corpus's power_110) took 2.2 s of CPU with it, 0.7 s
// without; the register VM's 10,732 statements 0.75 and 0.46 s. What it
// would move is mask arithmetic, which staged code does not make (the
// corpus's machine code is the same without it).
constexpr const char* kOptions[] = {"-licm-mssa-max-acc-promotion=65536",
                                    "-dag-maps-huge-region=128",
                                    "-disable-x86-domain-reassignment"};

std::string_view name_of(std::string_view option) {
  option.remove_prefix(1);
  return option.substr(0, option.find('='));
}

}  // namespace

void set_llvm_options() {
  static const bool set = [] {
    const llvm::StringMap<llvm::cl::Option*>& registered = llvm::cl::getRegisteredOptions();
    std::vector<const char*> argv{"augur"};
    for (const char* option : kOptions) {
      const auto it = registered.find(name_of(option));
      if (it != registered.end() && it->second->getNumOccurrences() == 0) argv.push_back(option);
    }
    // With an error stream, a parse error is reported there instead of
    // ending the process; an option LLVM did not take only costs speed.
    llvm::raw_null_ostream errors;
    return argv.size() == 1 || llvm::cl::ParseCommandLineOptions(static_cast<int>(argv.size()),
                                                                 argv.data(), "", &errors);
  }();
  static_cast<void>(set);
}

std::vector<std::string> llvm_options_not_in_effect() {
  const llvm::StringMap<llvm::cl::Option*>& registered = llvm::cl::getRegisteredOptions();
  std::vector<std::string> missing;
  for (const char* option : kOptions) {
    const auto it = registered.find(name_of(option));
    if (it == registered.end() || it->second->getNumOccurrences() == 0)
      missing.emplace_back(option);
  }
  return missing;
}

}  // namespace augur::cpu
