#include "tests/support/random_inputs.h"

#include <cstring>
#include <limits>

#include "tests/support/rng.h"

namespace augur::testing {

namespace {

// A value of scalar type `t` in canonical form (value.h).
std::uint64_t random_bits(ir::Type t, Rng& rng) {
  if (t.is_bool()) return rng.below(2);
  if (t.is_float()) {
    double v = 0;
    switch (rng.below(6)) {
      case 0: {
        static constexpr double kSpecial[] = {0.0, -0.0, 1.0, -1.0, 0.5, 1e-310};
        v = kSpecial[rng.below(std::size(kSpecial))];
        break;
      }
      case 1:
        v = rng.chance(50) ? std::numeric_limits<double>::infinity()
                           : -std::numeric_limits<double>::infinity();
        break;
      case 2:
        v = std::numeric_limits<double>::quiet_NaN();
        break;
      default:
        v = static_cast<double>(rng.between(-100000, 100000)) / 64.0;
    }
    return t == ir::Type::f32() ? ir::Value::of(static_cast<float>(v)).bits : ir::Value::of(v).bits;
  }
  const std::uint64_t sign = std::uint64_t{1} << (t.bits() - 1);
  std::uint64_t bits = 0;
  switch (rng.below(6)) {
    case 0:
      bits = rng.below(3);  // 0, 1, 2
      break;
    case 1:
      bits = ~std::uint64_t{0};  // -1, or the unsigned maximum
      break;
    case 2:
      bits = rng.chance(50) ? sign : sign - 1;  // the signed limits
      break;
    case 3:
      bits = static_cast<std::uint64_t>(rng.between(-20, 20));
      break;
    default:
      bits = rng.next();
  }
  return ir::canonical_bits(t, bits);
}

// Writes the low `size` bytes of `bits` at `out`, as the host stores a value of that size.
void store_element(std::uint8_t* out, std::uint64_t bits, std::size_t size) {
  switch (size) {
    case 1: {
      const auto v = static_cast<std::uint8_t>(bits);
      std::memcpy(out, &v, 1);
      break;
    }
    case 2: {
      const auto v = static_cast<std::uint16_t>(bits);
      std::memcpy(out, &v, 2);
      break;
    }
    case 4: {
      const auto v = static_cast<std::uint32_t>(bits);
      std::memcpy(out, &v, 4);
      break;
    }
    default:
      std::memcpy(out, &bits, 8);
  }
}

}  // namespace

RandomInputs::RandomInputs(std::span<const ParamDesc> params, std::uint64_t seed)
    : params_(params.begin(), params.end()), storage_(params.size()), args_(params.size()) {
  Rng rng(seed);
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const ParamDesc& p = params_[i];
    if (!p.type.is_pointer()) {
      args_[i].bits = random_bits(p.type, rng);
      continue;
    }
    const ir::Type elem = p.type.pointee();
    const std::size_t bytes = p.length * elem.size();
    storage_[i].assign((bytes + 7) / 8, 0);  // 8-byte words keep every element aligned
    auto* base = reinterpret_cast<std::uint8_t*>(storage_[i].data());
    for (std::size_t e = 0; e < p.length; ++e) {
      store_element(base + e * elem.size(), random_bits(elem, rng), elem.size());
    }
  }
  point_args_at_arrays();
}

RandomInputs::RandomInputs(const RandomInputs& other)
    : params_(other.params_), storage_(other.storage_), args_(other.args_) {
  point_args_at_arrays();
}

RandomInputs& RandomInputs::operator=(const RandomInputs& other) {
  if (this != &other) {
    params_ = other.params_;
    storage_ = other.storage_;
    args_ = other.args_;
    point_args_at_arrays();
  }
  return *this;
}

void RandomInputs::point_args_at_arrays() {
  for (std::size_t i = 0; i < params_.size(); ++i) {
    if (params_[i].type.is_pointer()) args_[i] = ir::Value::of(storage_[i].data());
  }
}

std::vector<std::vector<std::uint8_t>> RandomInputs::memory() const {
  std::vector<std::vector<std::uint8_t>> out;
  for (std::size_t i = 0; i < params_.size(); ++i) {
    if (!params_[i].type.is_pointer()) continue;
    const auto* base = reinterpret_cast<const std::uint8_t*>(storage_[i].data());
    out.emplace_back(base, base + params_[i].length * params_[i].type.pointee().size());
  }
  return out;
}

std::vector<ir::Buffer> RandomInputs::buffers() const {
  std::vector<ir::Buffer> out;
  for (std::size_t i = 0; i < params_.size(); ++i) {
    if (!params_[i].type.is_pointer()) continue;
    out.push_back({storage_[i].data(), params_[i].length * params_[i].type.pointee().size(),
                   params_[i].name});
  }
  return out;
}

}  // namespace augur::testing
