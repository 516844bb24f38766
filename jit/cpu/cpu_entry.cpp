#include "jit/cpu/cpu_entry.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "jit/error.h"
#include "runtime/ir/parser.h"
#include "runtime/ir/printer.h"

namespace augur::cpu {

namespace {
constexpr std::size_t kLengthBytes = 8;
}  // namespace

std::vector<char> encode_cpu_entry(std::span<const ir::ExternFn> callees,
                                   std::span<const char> object) {
  ir::Module declarations;
  for (const ir::ExternFn& callee : callees) {
    declarations.externs.push_back(std::make_shared<const ir::ExternFn>(callee));
  }
  const std::string text = ir::print(declarations);
  std::vector<char> payload;
  payload.reserve(kLengthBytes + text.size() + object.size());
  for (std::size_t i = 0; i < kLengthBytes; ++i) {
    payload.push_back(static_cast<char>(static_cast<std::uint64_t>(text.size()) >> (8 * i)));
  }
  payload.insert(payload.end(), text.begin(), text.end());
  payload.insert(payload.end(), object.begin(), object.end());
  return payload;
}

CpuEntry decode_cpu_entry(std::span<const char> payload) {
  if (payload.size() < kLengthBytes) {
    throw jit::error("CPU cache entry of " + std::to_string(payload.size()) +
                     " bytes has no extern list");
  }
  std::uint64_t length = 0;
  for (std::size_t i = 0; i < kLengthBytes; ++i) {
    length |= std::uint64_t{static_cast<unsigned char>(payload[i])} << (8 * i);
  }
  if (length > payload.size() - kLengthBytes) {
    throw jit::error("CPU cache entry: extern list of " + std::to_string(length) +
                     " bytes in a payload of " + std::to_string(payload.size()));
  }
  const std::string_view text(payload.data() + kLengthBytes, length);
  const ir::Module declarations = ir::parse_module(text, "<cache entry externs>");
  if (!declarations.functions.empty()) {
    throw jit::error("CPU cache entry: extern list holds functions");
  }
  CpuEntry entry;
  for (const ir::ExternRef& callee : declarations.externs) entry.callees.push_back(*callee);
  entry.object = payload.subspan(kLengthBytes + length);
  return entry;
}

}  // namespace augur::cpu
