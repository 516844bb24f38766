// Golden files for tests: a text compared with a file checked into the tree.
// AUGUR_UPDATE_GOLDEN=1 rewrites the file instead (and the check passes).
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace augur::testing {

// Whether `text` equals the file at `path`; on a difference, the first line
// that differs, then the whole text.
::testing::AssertionResult matches_golden_file(const std::string& path, const std::string& text);

}  // namespace augur::testing
