#include "jit/cpu/target.h"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include <llvm/ADT/StringMap.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>

#include "jit/cpu/compile.h"
#include "jit/cpu/llvm_options.h"
#include "jit/error.h"

namespace augur::cpu {

namespace {

std::vector<std::string> split_features(std::string_view features) {
  std::vector<std::string> out;
  while (!features.empty()) {
    const std::size_t comma = features.find(',');
    std::string_view item = features.substr(0, comma);
    if (!item.empty()) out.emplace_back(item);
    features = comma == std::string_view::npos ? std::string_view() : features.substr(comma + 1);
  }
  return out;
}

llvm::CodeGenOptLevel codegen_level(int opt_level) {
  switch (opt_level) {
    case 0:
      return llvm::CodeGenOptLevel::None;
    case 1:
      return llvm::CodeGenOptLevel::Less;
    case 2:
      return llvm::CodeGenOptLevel::Default;
    default:
      return llvm::CodeGenOptLevel::Aggressive;
  }
}

// "+adx,+aes,...,-xop": every feature LLVM knows of the host CPU, sorted.
std::string host_features() {
  std::vector<std::string> features;
  for (const auto& feature : llvm::sys::getHostCPUFeatures()) {
    std::string item(1, feature.getValue() ? '+' : '-');
    item += feature.getKey();
    features.push_back(std::move(item));
  }
  std::sort(features.begin(), features.end());
  std::string joined;
  for (const std::string& feature : features) {
    if (!joined.empty()) joined += ',';
    joined += feature;
  }
  return joined;
}

}  // namespace

void initialize_native_target() {
  static const bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    set_llvm_options();
    return true;
  }();
  static_cast<void>(initialized);
}

void check_options(const Options& options) {
  if (options.opt_level < 0 || options.opt_level > 3) {
    throw jit::compile_error("opt_level must be 0 to 3, not " + std::to_string(options.opt_level));
  }
  if (options.cpu.empty() && options.features.empty()) return;
  initialize_native_target();
  const std::string triple = llvm::sys::getProcessTriple();
  std::string message;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, message);
  if (!target) throw jit::compile_error("no LLVM target for " + triple + ": " + message);
  std::unique_ptr<llvm::MCSubtargetInfo> info(target->createMCSubtargetInfo(triple, "", ""));
  if (!options.cpu.empty() && !info->isCPUStringValid(options.cpu)) {
    throw jit::compile_error("unknown CPU '" + options.cpu + "' for " + triple);
  }
  for (const std::string& feature : split_features(options.features)) {
    const std::string_view name = std::string_view(feature).substr(1);
    bool known = false;
    for (const llvm::SubtargetFeatureKV& kv : info->getAllProcessorFeatures()) {
      known = known || name == kv.Key;
    }
    if ((feature[0] != '+' && feature[0] != '-') || !known) {
      throw jit::compile_error("unknown target feature '" + feature + "' for " + triple +
                               " (write +name or -name)");
    }
  }
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>> target_machine(const Options& options) {
  initialize_native_target();
  llvm::Expected<llvm::orc::JITTargetMachineBuilder> builder =
      options.cpu.empty()
          ? llvm::orc::JITTargetMachineBuilder::detectHost()
          : llvm::orc::JITTargetMachineBuilder(llvm::Triple(llvm::sys::getProcessTriple()));
  if (!builder) return builder.takeError();
  if (!options.cpu.empty()) builder->setCPU(options.cpu);
  builder->addFeatures(split_features(options.features));
  builder->setCodeGenOptLevel(codegen_level(options.opt_level));
  builder->setRelocationModel(llvm::Reloc::PIC_);
  builder->setCodeModel(llvm::CodeModel::Small);
  return builder->createTargetMachine();
}

std::string object_key(const Options& options) {
  static const std::string host_features_list = host_features();
  std::string key = "LLVM " LLVM_VERSION_STRING "; ";
  key += llvm::sys::getProcessTriple();
  key += "; cpu ";
  if (options.cpu.empty()) {
    key += llvm::sys::getHostCPUName();
    key += " features ";
    key += host_features_list;
  } else {
    key += options.cpu;
  }
  key += "; extra features ";
  key += options.features;
  key += "; O";
  key += std::to_string(options.opt_level);
  key += options.invokers ? "; invokers" : "; no invokers";
  key += "; split " + std::to_string(options.split_nodes);
  return key;
}

}  // namespace augur::cpu
