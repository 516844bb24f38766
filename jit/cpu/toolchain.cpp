#include "jit/cpu/toolchain.h"

#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "jit/cpu/target.h"

namespace augur::cpu {

namespace {

std::string key_of(const Options& options) {
  return std::to_string(options.opt_level) + "|" + options.cpu + "|" + options.features;
}

class ToolchainPool {
 public:
  static ToolchainPool& get() {
    // Leaked, like the engine: TargetMachines must not be destroyed after
    // LLVM's own statics at exit.
    static ToolchainPool* const pool = new ToolchainPool();
    return *pool;
  }

  std::unique_ptr<Toolchain> take(const std::string& key) {
    std::lock_guard lock(mutex_);
    auto it = idle_.find(key);
    if (it == idle_.end() || it->second.empty()) return nullptr;
    std::unique_ptr<Toolchain> toolchain = std::move(it->second.back());
    it->second.pop_back();
    return toolchain;
  }

  void give_back(std::unique_ptr<Toolchain> toolchain) {
    std::lock_guard lock(mutex_);
    std::vector<std::unique_ptr<Toolchain>>& idle = idle_[toolchain->key];
    idle.push_back(std::move(toolchain));
  }

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::vector<std::unique_ptr<Toolchain>>> idle_;
};

}  // namespace

ToolchainLease::~ToolchainLease() {
  if (toolchain_) ToolchainPool::get().give_back(std::move(toolchain_));
}

llvm::Expected<ToolchainLease> lease_toolchain(const Options& options) {
  std::string key = key_of(options);
  if (std::unique_ptr<Toolchain> idle = ToolchainPool::get().take(key)) {
    return ToolchainLease(std::move(idle));
  }
  auto toolchain = std::make_unique<Toolchain>();
  toolchain->key = std::move(key);
  auto machine = target_machine(options);
  if (!machine) return machine.takeError();
  toolchain->machine = std::move(*machine);
  toolchain->optimization =
      std::make_unique<OptimizationPipeline>(*toolchain->machine, options.opt_level);
  auto emitter = ObjectEmitter::create(*toolchain->machine);
  if (!emitter) return emitter.takeError();
  toolchain->emitter = std::move(*emitter);
  return ToolchainLease(std::move(toolchain));
}

}  // namespace augur::cpu
