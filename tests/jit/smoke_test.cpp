#include "tests/jit/jit_test_util.h"

namespace augur::cpu::test {
namespace {

using namespace ir;

TEST_P(AtOptLevel, CompilesAndCallsTwice) {
  FunctionBuilder b("twice", Type::i32());
  VarId x = b.param("x", Type::i32());
  b.return_(binary(BinaryOp::Add, b.read(x), b.read(x)));
  auto code = compile_at(opt(), module_of({std::move(b).finish()}));
  for (std::int32_t v : {0, 1, -7, 1 << 30}) {
    EXPECT_EQ(call_native<std::int32_t>(*code, "twice", v),
              static_cast<std::int32_t>(2u * static_cast<std::uint32_t>(v)));
    EXPECT_EQ(invoke_as<std::int32_t>(*code, "twice", v),
              static_cast<std::int32_t>(2u * static_cast<std::uint32_t>(v)));
  }
}

INSTANTIATE_TEST_SUITE_P(Jit, AtOptLevel, ::testing::Values(0, 2));

}  // namespace
}  // namespace augur::cpu::test
