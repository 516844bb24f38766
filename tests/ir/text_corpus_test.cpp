// The hand-written IR corpus (tests/ir/programs/*.ir) is in canonical form:
// printing what the parser reads gives the file back byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/ir/parser.h"
#include "runtime/ir/printer.h"

namespace augur::ir {
namespace {

namespace fs = std::filesystem;

fs::path corpus_dir() {
  return fs::path(AUGUR_TEST_DATA) / "programs";
}

std::vector<std::string> corpus_files() {
  std::vector<std::string> names;
  for (const fs::directory_entry& entry : fs::directory_iterator(corpus_dir())) {
    if (entry.path().extension() == ".ir") names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(IrCorpus, HasAtLeastThirtyPrograms) {
  EXPECT_GE(corpus_files().size(), 30u);
}

class IrCorpusFile : public testing::TestWithParam<std::string> {};

TEST_P(IrCorpusFile, PrintsBackByteForByte) {
  const std::string text = read_file(corpus_dir() / GetParam());
  ASSERT_FALSE(text.empty());
  const Module module = parse_module(text, GetParam());
  EXPECT_FALSE(module.functions.empty());
  EXPECT_EQ(print(module), text);
}

TEST_P(IrCorpusFile, ReparsesToTheSameModule) {
  const std::string text = read_file(corpus_dir() / GetParam());
  const Module module = parse_module(text, GetParam());
  const Module again = parse_module(print(module), GetParam());
  EXPECT_TRUE(again == module);
  EXPECT_EQ(print(again), print(module));
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
    text.replace(at, from.size(), to);
    at += to.size();
  }
  return text;
}

TEST_P(IrCorpusFile, LayoutAndCommentsDoNotChangeTheModule) {
  const std::string text = read_file(corpus_dir() / GetParam());
  const Module expected = parse_module(text);
  const std::string variants[] = {
      replace_all(text, "\n", "\r\n"),
      replace_all(text, "\n", " "),
      "// header comment\n\t" + replace_all(text, "\n", " // note\n\n\t"),
      replace_all(replace_all(text, "  ", "\t"), " ", "  "),
  };
  for (const std::string& variant : variants) {
    EXPECT_TRUE(parse_module(variant) == expected) << variant;
  }
}

std::string test_name(const testing::TestParamInfo<std::string>& info) {
  std::string name = fs::path(info.param).stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Programs, IrCorpusFile, testing::ValuesIn(corpus_files()), test_name);

}  // namespace
}  // namespace augur::ir
