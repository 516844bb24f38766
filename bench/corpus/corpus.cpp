// The corpus registry: the families in a fixed order, with the knobs that give
// about 1k, 10k, 50k and 100k IR statements (measured by corpus_dump).
#include "bench/corpus/corpus.h"

#include <algorithm>

#include "bench/corpus/families.h"

namespace augur::bench::corpus {

const std::vector<Family>& families() {
  static const std::vector<Family> all = {
      {"bf", "BF instructions", {1'000, 10'000, 50'000, 100'000}, make_bf},
      {"dfa", "states", {64, 512, 2'800, 5'600}, make_dfa},
      {"conv", "image side", {8, 22, 46, 64}, make_conv},
      {"vm", "bytecode instructions", {1'000, 10'000, 50'000, 100'000}, make_vm},
      {"power", "exponents", {11, 110, 550, 1'100}, make_power},
      {"poly", "points", {40, 400, 2'000, 4'000}, make_poly},
      {"fft", "complex points", {32, 256, 1'024, 2'048}, make_fft},
  };
  return all;
}

std::vector<Program> programs(Sizes sizes) {
  const std::size_t count = sizes == Sizes::small ? 1 : sizes == Sizes::standard ? 2 : 4;
  std::vector<Program> out;
  for (const Family& f : families())
    for (std::size_t i = 0; i < std::min(count, f.sizes.size()); ++i)
      out.push_back(f.make(f.sizes[i]));
  return out;
}

Program program(std::string_view family, std::size_t size) {
  std::string known;
  for (const Family& f : families()) {
    if (f.name == family) return f.make(size);
    known += (known.empty() ? "" : ", ") + f.name;
  }
  throw jit::error("corpus: no family '" + std::string(family) + "' (families: " + known + ")");
}

Sizes parse_sizes(std::string_view text) {
  if (text == "small") return Sizes::small;
  if (text == "standard") return Sizes::standard;
  if (text == "all") return Sizes::all;
  throw jit::error("corpus: sizes are small, standard or all, not '" + std::string(text) + "'");
}

}  // namespace augur::bench::corpus
