#include "kernels.h"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "examples/gpu_conv_kernels.h"
#include "jit/gpu.h"
#include "jit/jit.h"
#include "runtime/stage/extract.h"

namespace augur::gpu::testing {

namespace {

using jit::dyn;
namespace g = jit::gpu;

// ---------------------------------------------------------------- the kernels

void scale(dyn<float*> v, dyn<int> n, float a) {
  dyn<int> i = g::global_id_x();
  if (i < n) v[i] = v[i] * a;
}

void saxpy(dyn<const float*> x, dyn<float*> y, dyn<int> n, float a) {
  dyn<int> i = g::global_id_x();
  if (i < n) y[i] = a * x[i] + y[i];
}

// Specialized on the taps: zero taps vanish, the others are constants.
void conv1d(dyn<const float*> in, dyn<float*> out, dyn<int> n, std::vector<float> taps) {
  dyn<int> i = g::global_id_x();
  if (i < n) {
    dyn<float> acc = 0.0f;
    const int radius = static_cast<int>(taps.size()) / 2;
    for (jit::stat<int> k = 0; k < static_cast<int>(taps.size()); ++k) {
      if (taps[k] == 0.0f) continue;
      dyn<int> j = i + (k - radius);
      if (j >= 0 && j < n) acc = acc + in[j] * taps[k];
    }
    out[i] = acc;
  }
}

// The same, reading the filter and its size from memory.
void conv1d_generic(dyn<const float*> in, dyn<float*> out, dyn<const float*> filter, dyn<int> n,
                    dyn<int> size) {
  dyn<int> i = g::global_id_x();
  if (i < n) {
    dyn<float> acc = 0.0f;
    dyn<int> radius = size / 2;
    for (dyn<int> k = 0; k < size; ++k) {
      dyn<int> j = i + k - radius;
      if (j >= 0 && j < n) acc = acc + in[j] * filter[k];
    }
    out[i] = acc;
  }
}

void conv2d(dyn<const float*> in, dyn<float*> out, dyn<int> w, dyn<int> h,
            std::array<float, 9> taps) {
  dyn<int> x = g::global_id_x();
  dyn<int> y = g::global_id_y();
  if (x < w && y < h) {
    dyn<float> acc = 0.0f;
    for (jit::stat<int> dy = -1; dy <= 1; ++dy) {
      for (jit::stat<int> dx = -1; dx <= 1; ++dx) {
        const float tap = taps[static_cast<std::size_t>((dy + 1) * 3 + dx + 1)];
        if (tap == 0.0f) continue;
        dyn<int> xx = x + dx;
        dyn<int> yy = y + dy;
        if (xx >= 0 && xx < w && yy >= 0 && yy < h) acc = acc + in[yy * w + xx] * tap;
      }
    }
    out[y * w + x] = acc;
  }
}

// One sum per block of 64 threads: a tree in shared memory.
void block_sum(dyn<const float*> in, dyn<float*> out, dyn<int> n) {
  g::shared_array<float, 64> tile("tile");
  dyn<int> t = g::thread_idx_x();
  dyn<int> i = g::global_id_x();
  tile[t] = jit::select(i < n, in[i], 0.0f);
  g::barrier();
  for (dyn<int> s = 32; s > 0; s = s >> 1) {
    if (t < s) tile[t] = tile[t] + tile[t + s];
    g::barrier();
  }
  if (t == 0) out[g::block_idx_x()] = tile[0];
}

void histogram(dyn<const std::uint32_t*> data, dyn<int> n, dyn<std::uint32_t*> bins) {
  g::shared_array<std::uint32_t, 16> local("local");
  dyn<int> t = g::thread_idx_x();
  dyn<int> i = g::global_id_x();
  if (i < n) g::atomic_add(local[data[i] % 16u], 1u);
  g::barrier();
  if (t < 16) g::atomic_add(bins[t], local[t]);
}

// C = A * B for n x n matrices, in 8 x 8 tiles through shared memory.
void matmul_tiled(dyn<const float*> a, dyn<const float*> b, dyn<float*> c, dyn<int> n) {
  constexpr int tile = 8;
  g::shared_array<float, tile * tile> as("a_tile");
  g::shared_array<float, tile * tile> bs("b_tile");
  dyn<int> tx = g::thread_idx_x();
  dyn<int> ty = g::thread_idx_y();
  dyn<int> row = g::block_idx_y() * tile + ty;
  dyn<int> col = g::block_idx_x() * tile + tx;
  dyn<float> acc = 0.0f;
  for (dyn<int> t = 0; t < (n + tile - 1) / tile; ++t) {
    dyn<int> ac = t * tile + tx;
    dyn<int> br = t * tile + ty;
    as[ty * tile + tx] = jit::select(row < n && ac < n, a[row * n + ac], 0.0f);
    bs[ty * tile + tx] = jit::select(br < n && col < n, b[br * n + col], 0.0f);
    g::barrier();
    for (jit::stat<int> k = 0; k < tile; ++k) acc = acc + as[ty * tile + k] * bs[k * tile + tx];
    g::barrier();
  }
  if (row < n && col < n) c[row * n + col] = acc;
}

void transpose(dyn<const float*> in, dyn<float*> out, dyn<int> w, dyn<int> h) {
  g::shared_array<float, 8 * 9> tile("tile");  // a padded row avoids bank conflicts
  dyn<int> tx = g::thread_idx_x();
  dyn<int> ty = g::thread_idx_y();
  dyn<int> x = g::block_idx_x() * 8 + tx;
  dyn<int> y = g::block_idx_y() * 8 + ty;
  if (x < w && y < h) tile[ty * 9 + tx] = in[y * w + x];
  g::barrier();
  dyn<int> x2 = g::block_idx_y() * 8 + tx;
  dyn<int> y2 = g::block_idx_x() * 8 + ty;
  if (x2 < h && y2 < w) out[y2 * h + x2] = tile[tx * 9 + ty];
}

// Hillis and Steele's inclusive scan of each block of 64 ints.
void scan(dyn<const int*> in, dyn<int*> out, dyn<int> n) {
  g::shared_array<int, 64> s("partial");
  dyn<int> t = g::thread_idx_x();
  dyn<int> i = g::global_id_x();
  s[t] = jit::select(i < n, in[i], 0);
  g::barrier();
  for (jit::stat<int> offset = 1; offset < 64; offset *= 2) {
    dyn<int> v = 0;
    if (t >= offset) v = s[t - offset];
    g::barrier();
    s[t] = s[t] + v;
    g::barrier();
  }
  if (i < n) out[i] = s[t];
}

// Integer semantics: wrapping, shifts, narrowing and widening.
void int_mix(dyn<const int*> a, dyn<const std::int16_t*> b, dyn<const std::uint8_t*> c,
             dyn<const std::uint64_t*> d, dyn<const std::int64_t*> e, dyn<int*> out_i,
             dyn<std::int16_t*> out_s, dyn<std::uint8_t*> out_b, dyn<std::uint64_t*> out_u,
             dyn<std::int64_t*> out_l, dyn<int> n) {
  dyn<int> i = g::global_id_x();
  if (i >= n) return;
  dyn<int> x = a[i];
  dyn<std::int16_t> y = b[i];
  dyn<std::uint8_t> z = c[i];
  dyn<std::uint64_t> w = d[i];
  dyn<std::int64_t> v = e[i];
  out_i[i] = (x * 1103515245 + 12345 - (x << 7)) ^ ~x ^ (x >> (y & 31)) ^ (x % 7 + x / 13);
  out_s[i] = jit::cast<std::int16_t>(y * y + y - (y >> 3));
  out_b[i] = jit::cast<std::uint8_t>(z * 3 + (z >> 2) - jit::cast<std::uint8_t>(x));
  out_u[i] = (w * 6364136223846793005ull + 1442695040888963407ull) ^ (w >> 17) ^ (w << 13) ^
             jit::cast<std::uint64_t>(x) ^ jit::select(w > jit::cast<std::uint64_t>(v), w, 7ull);
  out_l[i] = v * 3 - (v >> 63) + jit::cast<std::int64_t>(x) * jit::cast<std::int64_t>(y) +
             jit::select(v < 0, -v, v % 1000003);
}

// Float semantics: saturating conversions, NaN, min/max, sqrt, floor, fma.
void float_mix(dyn<const float*> f, dyn<const double*> dd, dyn<std::int8_t*> o8,
               dyn<std::uint8_t*> ou8, dyn<int*> o32, dyn<std::uint64_t*> ou64, dyn<float*> of,
               dyn<double*> od, dyn<int> n) {
  dyn<int> i = g::global_id_x();
  if (i < n) {
    dyn<float> x = f[i];
    dyn<double> y = dd[i];
    o8[i] = jit::cast<std::int8_t>(x * 40.0f);
    ou8[i] = jit::cast<std::uint8_t>(x * 40.0f);
    o32[i] = jit::cast<int>(y * 1e9);
    ou64[i] = jit::cast<std::uint64_t>(y * 1e18);
    of[i] = jit::min(x, 1.5f) + jit::max(x, -2.5f) + jit::sqrt(jit::fabs(x)) + jit::floor(x) +
            jit::fma(x, x, 1.0f);
    od[i] = jit::select(y != y, -1.0, y / 3.0) + jit::cast<double>(x) +
            jit::cast<double>(jit::cast<std::int64_t>(y));
  }
}

// Every float → integer conversion on edge values (NaN, ±inf, out of range,
// -0.0, tiny): saturating, NaN → 0, whichever float type it starts from.
template <typename F>
void conversions(dyn<const F*> x, dyn<std::int8_t*> i8, dyn<std::uint8_t*> u8,
                 dyn<std::int16_t*> i16, dyn<std::uint16_t*> u16, dyn<std::int32_t*> i32,
                 dyn<std::uint32_t*> u32, dyn<std::int64_t*> i64, dyn<std::uint64_t*> u64,
                 dyn<int> n) {
  dyn<int> i = g::global_id_x();
  if (i < n) {
    dyn<F> v = x[i];
    i8[i] = jit::cast<std::int8_t>(v);
    u8[i] = jit::cast<std::uint8_t>(v);
    i16[i] = jit::cast<std::int16_t>(v);
    u16[i] = jit::cast<std::uint16_t>(v);
    i32[i] = jit::cast<std::int32_t>(v);
    u32[i] = jit::cast<std::uint32_t>(v);
    i64[i] = jit::cast<std::int64_t>(v);
    u64[i] = jit::cast<std::uint64_t>(v);
  }
}

// Every atomic, used so that the result does not depend on the threads' order.
void atomics(dyn<int*> mins, dyn<std::int64_t*> maxs, dyn<std::uint64_t*> sums, dyn<int*> mine,
             dyn<std::uint64_t*> swapped, dyn<int*> old_values, dyn<int> n) {
  dyn<int> i = g::global_id_x();
  if (i < n) {
    dyn<int> key = (i * 7919) % 1000 - 500;
    g::atomic_min(mins[i % 4], key);
    g::atomic_max(maxs[i % 3], jit::cast<std::int64_t>(key) * 1000000007ll);
    g::atomic_add(sums[i % 5], jit::cast<std::uint64_t>(i) * 3ull);
    old_values[i] = g::atomic_exchange(mine[i], key);
    dyn<std::uint64_t> before = swapped[i];
    g::atomic_cas(swapped[i], before, before + 1ull);
    g::atomic_cas(swapped[i], 0ull, 99ull);  // fails unless the element was 0 plus 1 is 0
  }
}

// bool elements are bytes; && and ?: do not evaluate what they skip.
void flags(dyn<const float*> v, dyn<bool*> positive, dyn<int*> counts, dyn<int> n) {
  dyn<int> i = g::global_id_x();
  dyn<bool> inside = i < n && v[i] > 0.0f;
  if (i < n) positive[i] = inside && v[i] < 5.0f;
  if (inside || (i < n && v[i] < -5.0f)) g::atomic_add(counts[0], 1);
}

// Every index on every axis, read after a barrier (the fallback's fibers
// get each thread's own).
void coordinates(dyn<int*> out) {
  dyn<int> local = g::thread_idx_x() +
                   g::block_dim_x() * (g::thread_idx_y() + g::block_dim_y() * g::thread_idx_z());
  dyn<int> block =
      g::block_idx_x() + g::grid_dim_x() * (g::block_idx_y() + g::grid_dim_y() * g::block_idx_z());
  dyn<int> id = block * (g::block_dim_x() * g::block_dim_y() * g::block_dim_z()) + local;
  g::barrier();
  out[id] = g::thread_idx_x() + 10 * g::thread_idx_y() + 100 * g::thread_idx_z() +
            1000 * g::block_idx_x() + 10000 * g::block_idx_y() + 100000 * g::block_idx_z() +
            1000000 * g::grid_dim_z();
}

// Where "abc" first occurs in each thread's row, by an automaton whose state
// is static (each state its own code): the occurrence found leaves the loops
// of two states at once, `continue 2` and `break 2` in the IR, gotos in CUDA.
dyn<int> find_abc(dyn<const std::uint8_t*> row, dyn<int> length) {
  dyn<int> i = 0;
  dyn<int> at = -1;
  jit::stat<int> state = 0;
  while (i < length) {
    const dyn<int> c = jit::cast<int>(row[i]);
    i = i + 1;
    jit::stat<int> next = 0;
    if (c == 'a') {
      next = 1;
    } else if (state == 1) {
      if (c == 'b') next = 2;
    } else if (state == 2) {
      if (c == 'c') {
        at = i - 3;
        break;
      }
    }
    state = next;
  }
  return at;
}

void search_rows(dyn<const std::uint8_t*> text, dyn<int*> found, dyn<int> length, dyn<int> rows) {
  dyn<int> r = g::global_id_x();
  if (r < rows) found[r] = find_abc(text + r * length, length);
}

// Bytes from "abcx", so that rows hold the pattern, parts of it, or neither.
void abcx_text(std::vector<std::uint8_t>& bytes, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (std::uint8_t& b : bytes) b = static_cast<std::uint8_t>("abcx"[rng() % 4]);
}

// Tables in the code (jit::table): a byte permutation and a small table of
// 16-bit coefficients, read at indices the kernel computes.
void table_lookup(dyn<std::uint8_t*> v, dyn<int*> out, dyn<int> n,
                  std::vector<std::uint8_t> permutation) {
  const auto bytes = jit::table(permutation);
  const auto weights = jit::table(std::vector<std::int16_t>{-3, 7, 300, -32768, 1});
  dyn<int> i = g::global_id_x();
  if (i < n) {
    dyn<std::uint8_t> b = bytes[v[i]];
    v[i] = b;
    out[i] = jit::cast<int>(weights[jit::cast<int>(b) % 5]) * i;
  }
}

std::vector<std::uint8_t> reversed_bytes() {
  std::vector<std::uint8_t> permutation(256);
  for (int b = 0; b < 256; ++b)
    permutation[static_cast<std::size_t>(b)] = static_cast<std::uint8_t>(255 - b);
  return permutation;
}

// ---------------------------------------------------------------- the catalog

template <class F, class... S>
std::function<ir::Module()> staged(const char* name, F fn, S... statics) {
  return [=] {
    jit::extract_options options;
    options.name = name;
    options.kernel = true;
    const jit::detail::generator_closure<F, S...> closure(fn, statics...);
    return stage::extract(closure.get(), options).module;
  };
}

KernelArg floats(std::size_t count) {
  return KernelArg::buffer(ir::Type::f32(), count);
}

// Edge values for conversions, then ordinary ones.
void special_floats(std::vector<std::uint8_t>& bytes, std::uint64_t seed) {
  const float specials[] = {0.0f,
                            -0.0f,
                            0.5f,
                            -0.5f,
                            3.2f,
                            -3.3f,
                            6.4f,
                            -7.0f,
                            1e30f,
                            -1e30f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            1e-40f};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> value(-10.0f, 10.0f);
  for (std::size_t i = 0; i * sizeof(float) < bytes.size(); ++i) {
    const float v = i < std::size(specials) ? specials[i] : value(rng);
    std::memcpy(bytes.data() + i * sizeof(float), &v, sizeof v);
  }
}

void special_doubles(std::vector<std::uint8_t>& bytes, std::uint64_t seed) {
  const double specials[] = {0.0,
                             -0.0,
                             2.5,
                             -2.5,
                             1e300,
                             -1e300,
                             std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN(),
                             18.5,
                             -3.25};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-30.0, 30.0);
  for (std::size_t i = 0; i * sizeof(double) < bytes.size(); ++i) {
    const double v = i < std::size(specials) ? specials[i] : value(rng);
    std::memcpy(bytes.data() + i * sizeof(double), &v, sizeof v);
  }
}

void zeros(std::vector<std::uint8_t>& bytes, std::uint64_t) {
  std::fill(bytes.begin(), bytes.end(), 0);
}

}  // namespace

std::vector<KernelCase> kernel_cases() {
  using ir::Type;
  std::vector<KernelCase> cases;
  cases.push_back(
      {"scale", staged("scale", &scale, 2.5f), {4}, {64}, {floats(256), KernelArg::scalar(200)}});
  cases.push_back({"saxpy",
                   staged("saxpy", &saxpy, -0.75f),
                   {3},
                   {32},
                   {floats(96), floats(96), KernelArg::scalar(90)}});
  cases.push_back({"conv1d_taps5",
                   staged("conv1d", &conv1d, std::vector<float>{0.25f, 0.0f, 0.5f, 0.0f, -0.25f}),
                   {2},
                   {64},
                   {floats(128), floats(128), KernelArg::scalar(120)}});
  cases.push_back(
      {"conv1d_generic",
       staged("conv1d_generic", &conv1d_generic),
       {2},
       {64},
       {floats(128), floats(128), floats(5), KernelArg::scalar(120), KernelArg::scalar(5)}});
  cases.push_back(
      {"conv2d_3x3",
       staged("conv2d", &conv2d,
              std::array<float, 9>{0.0625f, 0.125f, 0.0625f, 0.125f, 0.25f, 0.125f, 0.0625f, 0.125f,
                                   0.0625f}),
       {3, 2},
       {8, 8},
       {floats(20 * 14), floats(20 * 14), KernelArg::scalar(20), KernelArg::scalar(14)}});
  cases.push_back({"block_sum",
                   staged("block_sum", &block_sum),
                   {3},
                   {64},
                   {floats(192), floats(3), KernelArg::scalar(170)}});
  cases.push_back({"histogram",
                   staged("histogram", &histogram),
                   {4},
                   {64},
                   {KernelArg::buffer(Type::u32(), 256), KernelArg::scalar(250),
                    KernelArg::buffer(Type::u32(), 16)}});
  cases.push_back({"matmul_tiled",
                   staged("matmul_tiled", &matmul_tiled),
                   {3, 3},
                   {8, 8},
                   {floats(19 * 19), floats(19 * 19), floats(19 * 19), KernelArg::scalar(19)}});
  cases.push_back(
      {"transpose",
       staged("transpose", &transpose),
       {3, 2},
       {8, 8},
       {floats(21 * 13), floats(21 * 13), KernelArg::scalar(21), KernelArg::scalar(13)}});
  cases.push_back({"scan",
                   staged("scan", &scan),
                   {2},
                   {64},
                   {KernelArg::buffer(Type::i32(), 128), KernelArg::buffer(Type::i32(), 128),
                    KernelArg::scalar(100)}});
  cases.push_back({"int_mix",
                   staged("int_mix", &int_mix),
                   {2},
                   {32},
                   {KernelArg::buffer(Type::i32(), 64), KernelArg::buffer(Type::i16(), 64),
                    KernelArg::buffer(Type::u8(), 64), KernelArg::buffer(Type::u64(), 64),
                    KernelArg::buffer(Type::i64(), 64), KernelArg::buffer(Type::i32(), 64),
                    KernelArg::buffer(Type::i16(), 64), KernelArg::buffer(Type::u8(), 64),
                    KernelArg::buffer(Type::u64(), 64), KernelArg::buffer(Type::i64(), 64),
                    KernelArg::scalar(60)}});
  KernelArg f = floats(64);
  f.fill = special_floats;
  KernelArg d = KernelArg::buffer(Type::f64(), 64);
  d.fill = special_doubles;
  cases.push_back({"float_mix",
                   staged("float_mix", &float_mix),
                   {2},
                   {32},
                   {f, d, KernelArg::buffer(Type::i8(), 64), KernelArg::buffer(Type::u8(), 64),
                    KernelArg::buffer(Type::i32(), 64), KernelArg::buffer(Type::u64(), 64),
                    floats(64), KernelArg::buffer(Type::f64(), 64), KernelArg::scalar(64)}});
  const auto conversion_outputs = [](KernelArg input) {
    return std::vector<KernelArg>{input,
                                  KernelArg::buffer(Type::i8(), 64),
                                  KernelArg::buffer(Type::u8(), 64),
                                  KernelArg::buffer(Type::i16(), 64),
                                  KernelArg::buffer(Type::u16(), 64),
                                  KernelArg::buffer(Type::i32(), 64),
                                  KernelArg::buffer(Type::u32(), 64),
                                  KernelArg::buffer(Type::i64(), 64),
                                  KernelArg::buffer(Type::u64(), 64),
                                  KernelArg::scalar(64)};
  };
  cases.push_back({"conversions_f32",
                   staged("conversions_f32", &conversions<float>),
                   {2},
                   {32},
                   conversion_outputs(f)});
  cases.push_back({"conversions_f64",
                   staged("conversions_f64", &conversions<double>),
                   {2},
                   {32},
                   conversion_outputs(d)});
  cases.push_back({"atomics",
                   staged("atomics", &atomics),
                   {4},
                   {32},
                   {KernelArg::buffer(Type::i32(), 4), KernelArg::buffer(Type::i64(), 3),
                    KernelArg::buffer(Type::u64(), 5), KernelArg::buffer(Type::i32(), 128),
                    KernelArg::buffer(Type::u64(), 128), KernelArg::buffer(Type::i32(), 128),
                    KernelArg::scalar(120)}});
  KernelArg counts = KernelArg::buffer(Type::i32(), 1);
  counts.fill = zeros;
  cases.push_back(
      {"flags",
       staged("flags", &flags),
       {2},
       {64},
       {floats(128), KernelArg::buffer(Type::bool_(), 128), counts, KernelArg::scalar(100)}});
  KernelArg rows_text = KernelArg::buffer(Type::u8(), 96 * 24);
  rows_text.fill = abcx_text;
  cases.push_back({"search_rows",
                   staged("search_rows", &search_rows),
                   {2},
                   {64},
                   {rows_text, KernelArg::buffer(Type::i32(), 96), KernelArg::scalar(24),
                    KernelArg::scalar(96)}});
  cases.push_back({"table_lookup",
                   staged("table_lookup", &table_lookup, reversed_bytes()),
                   {2},
                   {64},
                   {KernelArg::buffer(Type::u8(), 128), KernelArg::buffer(Type::i32(), 128),
                    KernelArg::scalar(120)}});
  cases.push_back({"coordinates",
                   staged("coordinates", &coordinates),
                   {2, 3, 2},
                   {4, 2, 3},
                   {KernelArg::buffer(Type::i32(), 2 * 3 * 2 * 4 * 2 * 3)}});
  // examples/gpu_conv.cpp's kernels.
  cases.push_back(
      {"example_conv1d_sparse9",
       staged("conv1d", &gpu_conv::conv1d,
              std::vector<float>{1.0f, 0.0f, 0.0f, 0.0f, -2.0f, 0.0f, 0.0f, 0.0f, 1.0f}),
       {2},
       {64},
       {floats(128), floats(128), KernelArg::scalar(125)}});
  cases.push_back(
      {"example_conv1d_generic",
       staged("conv1d_generic", &gpu_conv::conv1d_generic),
       {2},
       {64},
       {floats(128), floats(128), floats(7), KernelArg::scalar(125), KernelArg::scalar(7)}});
  cases.push_back(
      {"example_conv2d_box5",
       staged("conv2d", &gpu_conv::conv2d, std::vector<float>(25, 0.04f), 5),
       {3, 2},
       {8, 8},
       {floats(19 * 13), floats(19 * 13), KernelArg::scalar(19), KernelArg::scalar(13)}});
  cases.push_back({"example_conv2d_generic",
                   staged("conv2d_generic", &gpu_conv::conv2d_generic),
                   {3, 2},
                   {8, 8},
                   {floats(19 * 13), floats(19 * 13), floats(25), KernelArg::scalar(19),
                    KernelArg::scalar(13), KernelArg::scalar(5)}});
  return cases;
}

KernelInputs::KernelInputs(const KernelCase& c, std::uint64_t seed) : case_(c) {
  std::mt19937_64 rng(seed);
  for (const KernelArg& arg : c.args) {
    std::vector<std::uint8_t> bytes(arg.count * arg.type.size());
    if (arg.count > 0) {
      if (arg.fill) {
        arg.fill(bytes, rng());
      } else if (arg.type.is_float()) {
        // Floats in [-8, 8): sums and products stay exact enough to compare bits.
        std::uniform_real_distribution<double> value(-8.0, 8.0);
        for (std::size_t i = 0; i < arg.count; ++i) {
          if (arg.type.scalar() == ir::Scalar::F32) {
            const float v = static_cast<float>(value(rng));
            std::memcpy(bytes.data() + i * 4, &v, 4);
          } else {
            const double v = value(rng);
            std::memcpy(bytes.data() + i * 8, &v, 8);
          }
        }
      } else if (arg.type.is_bool()) {
        for (std::uint8_t& b : bytes) b = static_cast<std::uint8_t>(rng() & 1);
      } else {
        for (std::uint8_t& b : bytes) b = static_cast<std::uint8_t>(rng());
      }
    }
    buffers_.push_back(std::move(bytes));
  }
}

std::vector<ir::Value> KernelInputs::values() const {
  std::vector<ir::Value> out;
  for (std::size_t i = 0; i < case_.args.size(); ++i) {
    const KernelArg& arg = case_.args[i];
    out.push_back(arg.count > 0 ? ir::Value::of(static_cast<const void*>(buffers_[i].data()))
                                : arg.value);
  }
  return out;
}

}  // namespace augur::gpu::testing
