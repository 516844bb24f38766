// A pricing engine that never stops: prices are computed by code specialized
// on the rules in a file, and when the file changes the engine respecializes
// in the background and swaps the new code in while the pricing loop keeps
// running. Throughput is printed every tick, so the swap shows.
//
//   hotswap RULES_FILE [--ticks N]    watch RULES_FILE (Ctrl-C to stop)
//   hotswap --self-test [--ticks N]   rewrite a temporary rules file every few
//                                     ticks, check every price, exit 0 if right
//
// A rules file holds three lines, "threshold 100", "discount 10" (percent off
// amounts above the threshold) and "fee 5" (added to every price).
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>

#include <jit/jit.h>

namespace {

struct rules {
  int threshold = 100;
  int discount = 0;
  int fee = 0;
};

}  // namespace

// The rules key the compiled versions, as every static argument does.
template <>
struct jit::key<rules> {
  static void encode(jit::key_writer& out, const rules& r) {
    out.write_value(r.threshold);
    out.write_value(r.discount);
    out.write_value(r.fee);
  }
};

namespace {

// The staged price: the rules are constants of the compiled code.
jit::dyn<double> price(jit::dyn<double> amount, rules r) {
  jit::dyn<double> p = amount;
  if (r.discount != 0) {
    if (p > static_cast<double>(r.threshold)) p = p * (1.0 - r.discount / 100.0);
  }
  if (r.fee != 0) p = p + static_cast<double>(r.fee);
  return p;
}

// The same, interpreted: what the self-test checks against.
double reference_price(double amount, const rules& r) {
  double p = amount;
  if (r.discount != 0 && p > r.threshold) p = p * (1.0 - r.discount / 100.0);
  return p + r.fee;
}

rules read_rules(const std::filesystem::path& file) {
  rules r;
  std::ifstream in(file);
  std::string key;
  int value = 0;
  while (in >> key >> value) {
    if (key == "threshold") r.threshold = value;
    if (key == "discount") r.discount = value;
    if (key == "fee") r.fee = value;
  }
  return r;
}

void write_rules(const std::filesystem::path& file, const rules& r) {
  const std::filesystem::path temporary = file.string() + ".new";
  std::ofstream(temporary) << "threshold " << r.threshold << "\ndiscount " << r.discount << "\nfee "
                           << r.fee << "\n";
  std::filesystem::rename(temporary, file);  // readers see the old file or the new one
}

// The file's identity for change detection: modification time and size.
std::string stamp(const std::filesystem::path& file) {
  struct stat s {};
  if (::stat(file.c_str(), &s) != 0) return {};
  return std::to_string(s.st_mtim.tv_sec) + "." + std::to_string(s.st_mtim.tv_nsec) + "/" +
         std::to_string(s.st_size);
}

const char* tier_name(jit::tier t) {
  return t == jit::tier::quick ? "O0" : "O2";
}

}  // namespace

int main(int argc, char** argv) {
  bool self_test = false;
  long ticks = -1;  // forever
  std::filesystem::path file;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--self-test") {
      self_test = true;
    } else if (arg == "--ticks" && i + 1 < argc) {
      ticks = std::atol(argv[++i]);
    } else {
      file = arg;
    }
  }
  if (self_test) {
    file = std::filesystem::temp_directory_path() /
           ("augur_hotswap_rules." + std::to_string(::getpid()));
    write_rules(file, {100, 10, 5});
    if (ticks < 0) ticks = 12;
  } else if (file.empty()) {
    std::fprintf(stderr, "usage: hotswap RULES_FILE [--ticks N] | hotswap --self-test\n");
    return 2;
  }

  rules live = read_rules(file);
  std::string seen = stamp(file);
  try {
    jit::handle<double(double)> pricer = jit::compile(price, live, jit::tiered);
    long wrong = 0;
    std::uint64_t shown_version = 0;
    for (long tick = 0; ticks < 0 || tick < ticks; ++tick) {
      // Price for one tick of 100 ms.
      const auto start = std::chrono::steady_clock::now();
      const auto end = start + std::chrono::milliseconds(100);
      long calls = 0;
      double amount = 1.0;
      double total = 0.0;
      while (std::chrono::steady_clock::now() < end) {
        // A batch of prices inside one call section: each call is one atomic
        // load and one indirect call; a swap shows from the next batch on.
        const jit::call_section section;
        for (int i = 0; i < 1000; ++i, ++calls) {
          const double p = pricer.call(section, amount);
          total += p;
          amount = amount >= 400.0 ? 1.0 : amount + 0.5;
        }
      }
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const jit::handle_statistics s = pricer.statistics();
      std::printf("tick %3ld  version %2llu (%s)  %7.1f M prices/s%s\n", tick,
                  static_cast<unsigned long long>(s.version), tier_name(s.tier),
                  static_cast<double>(calls) / seconds / 1e6,
                  s.version != shown_version ? "  <- swapped in" : "");
      shown_version = s.version;

      if (self_test) {
        // Every 3 ticks the rules change; the check runs on settled versions.
        pricer.wait();
        for (double a = 0.5; a < 300.0; a += 7.25) {
          if (pricer(a) != reference_price(a, live)) ++wrong;
        }
        if (tick % 3 == 2) {
          write_rules(file, {100 + static_cast<int>(tick), static_cast<int>(tick % 20),
                             static_cast<int>(tick % 7)});
        }
      }
      const std::string now = stamp(file);
      if (now != seen) {
        seen = now;
        live = read_rules(file);
        std::printf("rules changed: threshold %d, discount %d%%, fee %d: respecializing\n",
                    live.threshold, live.discount, live.fee);
        pricer.respecialize(live);
      }
      std::fflush(stdout);
      if (total < 0) std::printf("%f\n", total);  // keeps the loop's work observable
    }
    pricer.wait();
    pricer.reclaim();
    const jit::handle_statistics s = pricer.statistics();
    std::printf(
        "versions published %llu, swaps %llu, retired %llu, freed %llu\n",
        static_cast<unsigned long long>(s.published), static_cast<unsigned long long>(s.swaps),
        static_cast<unsigned long long>(s.retired), static_cast<unsigned long long>(s.freed));
    if (self_test) {
      std::filesystem::remove(file);
      const bool ok = wrong == 0 && s.freed == s.retired && s.swaps >= 4;
      std::printf("self-test: %ld wrong prices: %s\n", wrong, ok ? "ok" : "FAILED");
      return ok ? 0 : 1;
    }
  } catch (const jit::error& e) {
    std::fprintf(stderr, "hotswap: %s\n", e.what());
    return 1;
  }
  return 0;
}
