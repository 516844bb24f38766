#include "tests/support/golden.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace augur::testing {

namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

::testing::AssertionResult matches_golden_file(const std::string& path, const std::string& text) {
  if (const char* update = std::getenv("AUGUR_UPDATE_GOLDEN"); update && *update == '1') {
    std::ofstream(path, std::ios::binary) << text;
    return ::testing::AssertionSuccess() << "wrote " << path;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return ::testing::AssertionFailure()
           << "no golden file " << path << " (run with AUGUR_UPDATE_GOLDEN=1 to write it); got:\n"
           << text;
  }
  std::stringstream expected;
  expected << in.rdbuf();
  if (expected.str() == text) return ::testing::AssertionSuccess();
  const std::vector<std::string> want = lines(expected.str());
  const std::vector<std::string> got = lines(text);
  std::size_t i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) ++i;
  auto line_or_end = [](const std::vector<std::string>& v, std::size_t k) {
    return k < v.size() ? v[k] : std::string("<end of text>");
  };
  return ::testing::AssertionFailure()
         << path << " differs at line " << i + 1 << ":\n  golden: " << line_or_end(want, i)
         << "\n  actual: " << line_or_end(got, i)
         << "\n(if the change is intended, regenerate with AUGUR_UPDATE_GOLDEN=1)\nactual text:\n"
         << text;
}

}  // namespace augur::testing
