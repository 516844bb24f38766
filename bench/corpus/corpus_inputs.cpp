#include "bench/corpus/corpus_inputs.h"

#include <cmath>
#include <cstring>

#include "bench/corpus/rng.h"

namespace augur::bench::corpus {

namespace {

// A value of scalar type `t` in [min, max], canonical bits (value.h).
std::uint64_t random_bits(ir::Type t, double min, double max, Rng& rng) {
  if (t == ir::Type::f64()) return ir::Value::of(min + (max - min) * rng.unit()).bits;
  if (t == ir::Type::f32())
    return ir::Value::of(static_cast<float>(min + (max - min) * rng.unit())).bits;
  const auto lo = static_cast<std::int64_t>(std::ceil(min));
  const auto hi = static_cast<std::int64_t>(std::floor(max));
  return ir::canonical_bits(t, static_cast<std::uint64_t>(rng.between(lo, hi)));
}

}  // namespace

Arguments::Arguments(const std::vector<Param>& params, std::uint64_t seed) : params_(params) {
  Rng rng(seed);
  for (const Param& p : params_) {
    std::vector<std::uint8_t> buffer;
    if (p.type.is_pointer()) {
      const ir::Type element = p.type.pointee();
      const std::size_t size = element.size();
      buffer.resize(p.length * size);
      for (std::size_t i = 0; i < p.length; ++i) {
        const std::uint64_t bits = random_bits(element, p.min, p.max, rng);
        // The low `size` bytes are the element on this little-endian host.
        std::memcpy(buffer.data() + i * size, &bits, size);
      }
      values_.push_back({});
    } else {
      values_.push_back({random_bits(p.type, p.min, p.max, rng)});
    }
    buffers_.push_back(std::move(buffer));
  }
  point_at_buffers();
}

Arguments::Arguments(const Arguments& other)
    : params_(other.params_), buffers_(other.buffers_), values_(other.values_) {
  point_at_buffers();
}

Arguments& Arguments::operator=(const Arguments& other) {
  if (this != &other) {
    params_ = other.params_;
    buffers_ = other.buffers_;
    values_ = other.values_;
    point_at_buffers();
  }
  return *this;
}

void Arguments::point_at_buffers() {
  for (std::size_t i = 0; i < params_.size(); ++i)
    if (params_[i].type.is_pointer()) values_[i] = ir::Value::of(buffers_[i].data());
}

std::vector<std::uint64_t> Arguments::words() const {
  std::vector<std::uint64_t> out;
  for (const ir::Value& v : values_) out.push_back(v.bits);
  return out;
}

std::vector<std::vector<std::uint8_t>> Arguments::memory() const {
  std::vector<std::vector<std::uint8_t>> out;
  for (std::size_t i = 0; i < params_.size(); ++i)
    if (params_[i].type.is_pointer()) out.push_back(buffers_[i]);
  return out;
}

void Arguments::reset_written(const Arguments& pristine) {
  for (std::size_t i = 0; i < params_.size(); ++i)
    if (params_[i].written)
      std::memcpy(buffers_[i].data(), pristine.buffers_[i].data(), buffers_[i].size());
}

std::size_t Arguments::written_bytes() const {
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < params_.size(); ++i)
    if (params_[i].written) bytes += buffers_[i].size();
  return bytes;
}

std::vector<ir::Buffer> Arguments::buffers() const {
  std::vector<ir::Buffer> out;
  for (std::size_t i = 0; i < params_.size(); ++i)
    if (params_[i].type.is_pointer())
      out.push_back({buffers_[i].data(), buffers_[i].size(), params_[i].name});
  return out;
}

}  // namespace augur::bench::corpus
