// The corpus families' program makers (one file each), for the registry in
// corpus.cpp. Each throws jit::error for a size it cannot make.
#pragma once

#include <cstddef>

#include "bench/corpus/corpus.h"

namespace augur::bench::corpus {

Program make_bf(std::size_t instructions);
Program make_dfa(std::size_t states);
Program make_conv(std::size_t side);
Program make_vm(std::size_t instructions);
Program make_power(std::size_t exponents);
Program make_poly(std::size_t points);
Program make_fft(std::size_t points);

}  // namespace augur::bench::corpus
